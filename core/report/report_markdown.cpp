// --format markdown (report_formats.hpp): the runs behind the files (each file's header), per
// workload a table of median times and speedups, one of its metrics, and the GPU backends'
// answers (crossovers and cost models); the flags explained, then the studies view (report_studies.cpp).
#include "report_formats.hpp"

#include "check.hpp"
#include "metric_format.hpp"
#include "results_model.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <set>

namespace gpubench {

using nlohmann::json;

namespace {

// The file's options as "seed 42; cpu_threads 2; param_axes dtype=float32,float64...".
std::string options_text(const json &options) {
    std::string text;
    for (const auto &[key, value] : options.items()) {
        std::string shown;
        if (value.is_string()) {
            shown = value.get<std::string>();
        } else if (key == "param_axes" && value.is_object()) {
            for (const auto &[name, values] : value.items()) {
                std::string list;
                for (const json &v : values)
                    list += (list.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
                shown += (shown.empty() ? "" : " ") + name + "=" + list;
            }
        } else {
            shown = value.dump();
        }
        text += (text.empty() ? "" : "; ") + key + " " + (shown.empty() ? "\"\"" : shown);
    }
    return text;
}

// Inline code that holds any text: fenced by more backticks than it contains in a row.
std::string code_span(const std::string &text) {
    std::string fence = "`";
    while (text.find(fence) != std::string::npos) fence += '`';
    return fence + " " + text + " " + fence;
}

std::string format_ratio(std::optional<double> ratio) {
    if (!ratio) return "";
    return format_text(*ratio >= 100 ? "%.0fx" : *ratio >= 10 ? "%.1fx" : "%.2fx", *ratio);
}

// The metrics of the workload's entries, one row per metric and size, one column per
// backend; nothing where no entry has any.
void write_metrics_table(std::ostream &out, const WorkloadReport &r) {
    const std::vector<EntryMetric> metrics = report_metrics({r});
    if (metrics.empty()) return;
    out << "\nMetrics (↑ higher is better, ↓ lower):\n\n| metric | size |";
    for (const ReportColumn &c : r.columns) out << ' ' << c.label() << " |";
    out << "\n| :--- | ---: |";
    for (size_t i = 0; i < r.columns.size(); ++i) out << " ---: |";
    out << '\n';
    for (const Metric &m : metrics)
        for (uint64_t size : r.sizes) {
            std::string cells;
            bool any = false;
            for (const ReportColumn &c : r.columns) {
                const auto p = c.points.find(size);
                const EntryMetric *found =
                    p == c.points.end() ? nullptr : find_metric(p->second.figures.metrics, m.name);
                cells += ' ' + (found ? metric_number(found->value) : std::string("—")) + " |";
                any = any || found;
            }
            if (any) out << "| " << metric_heading(m) << " | " << format_size(size) << " |" << cells << '\n';
        }
}

// Each GPU column's crossovers, then each column's cost models, below the workload's tables.
void write_answer_tables(std::ostream &out, const WorkloadReport &r) {
    if (r.answers.empty()) return;
    out << "\nCrossovers with the best CPU backend at each size (n*: from where the GPU wins; 95% intervals for "
        << repeat_words(pooled_runs(r)) << "; the margin is the best CPU figure over the GPU's at the largest size compared):\n\n"
           "| GPU backend | compared | n* | 95% interval | margin at largest | best CPU | df |\n"
           "| :--- | :--- | ---: | :--- | :--- | :--- | ---: |\n";
    for (const ColumnAnswer &a : r.answers)
        for (Compared compared : all_compared) {
            const Crossover &c = a.of(compared);
            const bool alike = a.compute.why == a.end_to_end.why && a.compute.why == a.energy.why;
            if (c.verdict == CrossoverVerdict::unknown && alike && compared != Compared::compute) continue;
            const bool once = c.verdict == CrossoverVerdict::unknown && alike;  // one row says it for all three
            out << "| " << a.gpu << " | " << (once ? "any" : compared_name(compared)) << " | ";
            if (c.verdict == CrossoverVerdict::unknown) {
                out << "— | " << printable_text(c.why) << " | | | |\n";
                continue;
            }
            out << crossover_size_text(c) << " | " << crossover_interval_text(c) << " | "
                << estimate_text(c.margin) << " at " << format_size(uint64_t(c.largest)) << " | " << c.best_cpu
                << " | " << c.degrees_of_freedom << " |\n";
        }
    out << "\nCost models, t(n) = latency + work over throughput, work as n^exponent, the throughput changing at "
           "each break (cache levels), the latency jumping where the backend changes its algorithm; judged by the "
           "error at each inner size left out of the fit:\n\n"
           "| backend | compared | latency | exponent | breaks at | left-out error, median (max) over sizes |\n"
           "| :--- | :--- | ---: | ---: | :--- | :--- |\n";
    for (const ReportColumn &c : r.columns)
        for (Compared compared : all_compared)
            if (const CostModel &m = c.models.of(compared); m.fitted()) {
                std::vector<std::string> breaks;
                for (double knot : m.knots) breaks.push_back(format_size(uint64_t(knot)));
                for (size_t j = 0; j < m.steps.size(); ++j)
                    breaks.push_back("a jump of " + format_seconds(m.jumps[j]) + " past " +
                                     format_size(uint64_t(m.steps[j])));
                out << "| " << c.label() << " | " << compared_name(compared) << " | "
                    << (compared == Compared::energy ? format_text("%.3g J", m.latency) : format_seconds(m.latency))
                    << " | " << format_text("%.2f", m.exponent) << " | "
                    << (breaks.empty() ? "—" : join(breaks, ", "))
                    << " | "
                    << (m.leave_out_sizes ? format_text("%.1f%% (%.1f%%) over %zu", 100 * m.leave_out_median_error,
                                                        100 * m.leave_out_max_error, m.leave_out_sizes)
                                          : std::string("— (too few sizes to leave one out)"))
                    << " |\n";
            }
}

// The top of the report: for each results file, the run that wrote it (machine, GPUs,
// driver, commit, date, build, options, command line).
void write_markdown_header(std::ostream &out, const ReportInput &input) {
    out << "# gpubench report\n\n";
    std::string lines;
    size_t runs = 1;
    for (const WorkloadReport &r : input.reports) {
        if (const std::string line = answer_line(r); !line.empty()) lines += "- " + printable_text(line) + "\n";
        runs = std::max(runs, pooled_runs(r));
    }
    if (!lines.empty())
        out << "**The answer**: from which size each workload's best GPU backend beats its best CPU backend, "
               "with 95% intervals for " << repeat_words(runs) << " (the workloads' sections show how they were found)\n\n" << lines << '\n';
    for (const auto &[label, document] : input.labelled) {
        const RunHeader &h = document.header;
        out << "**" << printable_text(h.file) << "**\n\n"
            << "- machine: " << printable_text(h.machine()) << (h.os.empty() ? "" : ", " + printable_text(h.os))
            << "\n- GPUs: " << (h.gpus.empty() ? "none" : printable_text(h.gpu_list()))
            << "\n- driver: " << (h.driver.empty() ? "none" : "CUDA " + h.driver)
            << "\n- commit: " << printable_text(h.commit)
            << "\n- date: " << (h.created.empty() ? "unknown" : printable_text(h.created))
            << "\n- build: " << printable_text(h.build())
            << "\n- options: " << printable_text(options_text(h.options))
            << (h.wall_s.empty() ? "" : "\n- wall time: " + h.wall_time() + " (until the last entry finished)")
            << "\n- command line: " << code_span(printable_text(shell_command(h.command_line))) << "\n\n";
    }
}

// "## Flags": what each flag that marks an entry of `reports` means (flag_glossary), so that
// no "*noisy*" in a table is left unexplained; nothing when no entry is flagged.
void write_flag_glossary(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    std::set<std::string> seen;
    for (const WorkloadReport &r : reports)
        for (const ReportColumn &c : r.columns)
            for (const auto &[size, point] : c.points) seen.insert(point.figures.flags.begin(), point.figures.flags.end());
    if (seen.empty()) return;
    out << "## Flags\n\nA flag after a time marks an entry whose numbers need care:\n";
    for (const auto &[flag, meaning] : flag_glossary())
        if (seen.erase(flag)) out << "\n- *" << flag << "*: " << meaning;
    for (const std::string &flag : seen)  // set by a newer runner than this report
        out << "\n- *" << printable_text(flag) << "*: not known to this version of the report";
    out << "\n\n";
}

}  // namespace

void write_markdown(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    for (const WorkloadReport &r : reports) {
        out << "## " << r.title() << "\n\nMedian compute time (end to end, with transfers, in "
               "parentheses where it differs); speedup over `" << r.baseline
            << "` (compute; end to end).\n\n| size |";
        for (const ReportColumn &c : r.columns) out << ' ' << c.label() << " |";
        out << "\n| ---: |";
        for (size_t i = 0; i < r.columns.size(); ++i) out << " ---: |";
        out << '\n';
        for (uint64_t size : r.sizes) {
            out << "| " << format_size(size) << " |";
            for (const ReportColumn &c : r.columns) {
                const auto p = c.points.find(size);
                if (p == c.points.end()) {
                    out << " — |";
                    continue;
                }
                std::string cell = format_seconds(p->second.compute_s());
                if (p->second.end_to_end_s() > p->second.compute_s() * 1.0001)
                    cell += " (" + format_seconds(p->second.end_to_end_s()) + ")";
                for (const std::string &flag : p->second.figures.flags) cell += " *" + flag + "*";
                if (c.backend != r.baseline) {
                    const auto compute = speedup(r, c, size, false), e2e = speedup(r, c, size, true);
                    if (compute) {
                        cell += "<br>" + format_ratio(compute);
                        if (c.gpu && e2e) cell += "; " + format_ratio(e2e);
                    }
                }
                out << ' ' << cell << " |";
            }
            out << '\n';
        }
        write_metrics_table(out, r);
        write_answer_tables(out, r);
        out << '\n';
    }
    write_flag_glossary(out, reports);
}

void write_markdown_report(std::ostream &out, const ReportInput &input) {
    write_markdown_header(out, input);
    write_markdown(out, input.reports);
    write_studies_markdown(out, input.reports);
}

}  // namespace gpubench
