#include "report.hpp"

#include "text_format.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpubench {

namespace {

// 0 compiled (C, C++, CUDA), 1 Python, 2 another language, 3 unknown (no build record).
int language_group(const std::string &language) {
    if (language == "C" || language == "C++" || language == "CUDA") return 0;
    if (language == "Python") return 1;
    return language.empty() ? 3 : 2;
}

// Text from a build record in a table cell: a '|' would end the cell.
std::string cell(const std::string &text) {
    std::string out;
    for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return out;
}

std::string percent(std::optional<double> value, const char *format) {
    return value ? format_text(format, *value) : "—";
}

// Compiled code: its build's compile time. Python: the first run's extra time (JIT
// compilation, lazy imports) and the plugin's loading (interpreter start and imports).
std::string compile_cell(const ReportColumn &c, const ReportPoint &p) {
    if (c.build && c.build->compile_s) return format_seconds(*c.build->compile_s);
    if (c.language() != "Python") return "—";
    return "JIT " + format_seconds(std::max(0.0, p.entry.timing.first_run - p.figures.run.median)) + ", load " +
           format_seconds(p.entry.timing.load);
}

// `gpu_columns`: the table has GPU RAM and GPU % (some backend of it ran on a GPU).
void write_row(std::ostream &out, const std::string &size, const ReportColumn &c,
               const ReportPoint &p, bool gpu_columns) {
    const EntryResources &r = p.entry.resources;
    const bool watched = r.watched(), on_device = watched && r.on_device;  // "—": not recorded
    const std::string language = c.language();
    out << "| " << size << " | " << (language.empty() ? "unknown" : cell(language)) << " | "
        << c.label() << " | " << format_seconds(p.compute_s()) << " | ";
    if (gpu_columns) {
        const auto host = run_host_s(p);
        out << (host ? format_seconds(*host) : "—") << " | ";
    }
    out << (watched ? format_memory(double(r.peak_rss_bytes)) : "—") << " | ";
    if (gpu_columns) out << (on_device ? format_memory(double(r.device_allocated_bytes)) : "—") << " | ";
    out << percent(watched ? std::optional(p.figures.cpu_percent) : std::nullopt, "%.1f%%") << " | ";
    if (gpu_columns)
        out << percent(on_device ? std::optional(r.gpu_busy * 100) : std::nullopt, "%.0f%%") << " | ";
    out << compile_cell(c, p) << " | "
        << (c.build ? std::to_string(c.build->source_lines) : "—") << " |\n";
}

// The shared lines once per set of shared files, with the backends that share them.
void write_shared(std::ostream &out, const std::vector<const ReportColumn *> &columns) {
    std::map<std::vector<std::string>, std::pair<const BuildRecord *, std::string>> sets;
    for (const ReportColumn *c : columns) {
        if (!c->build || c->build->shared_files.empty()) continue;
        auto &[record, users] = sets[c->build->shared_files];
        record = &*c->build;
        if (users.find(c->backend) == std::string::npos) users += (users.empty() ? "" : ", ") + c->backend;
    }
    for (const auto &[files, shared] : sets) {
        std::string names;
        for (const std::string &file : files) names += (names.empty() ? "" : ", ") + cell(file);
        out << "\nShared by " << shared.second << ": " << shared.first->shared_lines
            << " lines of code (" << names << ")";
        if (shared.first->shared_compile_s)
            out << ", compiled once in " << format_seconds(*shared.first->shared_compile_s);
        out << '.';
    }
    if (!sets.empty()) out << '\n';
}

}  // namespace

void write_studies_markdown(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    for (const WorkloadReport &r : reports) {
        std::vector<const ReportColumn *> columns;
        for (const ReportColumn &c : r.columns) columns.push_back(&c);
        std::stable_sort(columns.begin(), columns.end(), [](const ReportColumn *a, const ReportColumn *b) {
            const std::string la = a->language(), lb = b->language();
            return std::tuple(language_group(la), la, a->gpu, a->backend) <
                   std::tuple(language_group(lb), lb, b->gpu, b->backend);
        });
        // Without a GPU backend, GPU columns would be all dashes, as if GPU use was unknown.
        const bool gpu = std::any_of(columns.begin(), columns.end(), [](const ReportColumn *c) { return c->gpu; });
        out << "## " << r.title() << ": studies view\n\n"
               "Per size, each backend by language (from its build record): median compute "
               "time, "
            << (gpu ? "a GPU backend's host time per run() call (the launch overhead: "
                      "enqueueing alone, while the GPU time excludes it), " : "")
            << "peak CPU memory (the measuring process's resident set), "
            << (gpu ? "GPU memory held, " : "") << "CPU use (% of the host's cores)"
            << (gpu ? ", GPU busy time" : "")
            << "; compile: the build's time for "
               "the backend's own files, or for Python the first run's extra time (JIT) and "
               "the loading (interpreter and imports); lines: the backend's own lines of code "
               "(neither blank nor only a comment)."
            << (gpu ? "" : " No GPU backend was measured: no GPU columns.") << "\n\n"
            << (gpu ? "| size | language | backend | time | host/call | CPU RAM | GPU RAM | CPU % | GPU % | compile | lines |\n"
                      "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
                    : "| size | language | backend | time | CPU RAM | CPU % | compile | lines |\n"
                      "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
        for (uint64_t size : r.sizes) {
            std::string shown = format_size(size);  // on the size's first row only
            for (const ReportColumn *c : columns)
                if (const auto p = c->points.find(size); p != c->points.end()) {
                    write_row(out, shown, *c, p->second, gpu);
                    shown.clear();
                }
        }
        write_shared(out, columns);
        out << '\n';
    }
}

}  // namespace gpubench
