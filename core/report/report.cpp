#include "report.hpp"

#include "statistics.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

namespace gpubench {

using nlohmann::json;

namespace {

struct PluginKind {
    std::string workload, backend;
    bool gpu = false;
    std::optional<BuildRecord> build;
};

std::map<std::string, PluginKind> plugin_kinds(const ResultsDocument &document) {
    std::map<std::string, PluginKind> kinds;
    for (const PluginRecord &p : document.plugins)
        kinds[p.name] = {p.workload, p.backend, p.device_kind == "cuda", p.build_record};
    return kinds;
}

// The column of `backend` from the same source as `like`, else from any source.
const ReportColumn *find_column(const WorkloadReport &report, const std::string &backend,
                                const std::string &source) {
    const ReportColumn *any = nullptr;
    for (const ReportColumn &c : report.columns) {
        if (c.backend != backend) continue;
        if (c.source == source) return &c;
        if (!any) any = &c;
    }
    return any;
}

// The report's baseline backend: the one asked for, else the first CPU backend, else the first.
std::string pick_baseline(const WorkloadReport &report, const std::string &wanted) {
    for (const ReportColumn &c : report.columns)
        if (c.backend == wanted) return wanted;
    for (const ReportColumn &c : report.columns)
        if (!c.gpu) return c.backend;
    return report.columns.empty() ? "" : report.columns.front().backend;
}

std::optional<uint64_t> crossover_of(const WorkloadReport &report, const ReportColumn &gpu) {
    std::optional<uint64_t> from;
    bool compared = false;
    for (const auto &[size, point] : gpu.points) {
        double best_cpu = -1;
        for (const ReportColumn &c : report.columns) {
            if (c.gpu || c.source != gpu.source) continue;
            if (auto it = c.points.find(size); it != c.points.end())
                best_cpu = best_cpu < 0 ? it->second.end_to_end_s()
                                        : std::min(best_cpu, it->second.end_to_end_s());
        }
        if (best_cpu < 0) continue;  // no CPU backend measured this size
        compared = true;
        if (point.end_to_end_s() < best_cpu) {
            if (!from) from = size;
        } else {
            from.reset();  // beaten again at a larger size: the crossover is later, if at all
        }
    }
    return compared ? from : std::nullopt;
}

std::string format_ratio(std::optional<double> ratio) {
    if (!ratio) return "";
    char text[32];
    std::snprintf(text, sizeof text, *ratio >= 100 ? "%.0fx" : *ratio >= 10 ? "%.1fx" : "%.2fx", *ratio);
    return text;
}

// The report's column of `kind`'s backend from the file `label` (on `gpu_model`, when the
// file holds several), added when missing.
ReportColumn &column_for(WorkloadReport &report, const PluginKind &kind, const std::string &label,
                         const std::string &gpu_model) {
    auto column = std::find_if(report.columns.begin(), report.columns.end(), [&](const ReportColumn &c) {
        return c.backend == kind.backend && c.source == label && c.gpu_model == gpu_model;
    });
    if (column != report.columns.end()) return *column;
    report.columns.push_back({kind.backend, label, kind.gpu, {}, kind.build, gpu_model});
    return report.columns.back();
}

// Columns in order, the sizes, the baseline and each GPU backend's crossover.
void complete(WorkloadReport &report, const ReportOptions &options) {
    // CPU backends first, then GPU ones; by name within each, sources in file order.
    std::stable_sort(report.columns.begin(), report.columns.end(),
                     [](const ReportColumn &a, const ReportColumn &b) {
                         return std::tie(a.gpu, a.backend, a.gpu_model) <
                                std::tie(b.gpu, b.backend, b.gpu_model);
                     });
    std::set<uint64_t> sizes;
    for (const ReportColumn &c : report.columns)
        for (const auto &[size, point] : c.points) sizes.insert(size);
    report.sizes.assign(sizes.begin(), sizes.end());
    report.baseline = pick_baseline(report, options.baseline_backend);
    for (const ReportColumn &c : report.columns)
        report.cpu_measured = report.cpu_measured || (!c.gpu && !c.points.empty());
    for (const ReportColumn &c : report.columns)
        if (c.gpu) report.crossover[c.label()] = crossover_of(report, c);
}

}  // namespace

std::string gpu_model(const EntryResult &entry) {
    return entry.devices.empty() || entry.cuda_devices.empty() || entry.devices.front().index != entry.cuda_devices.front()
               ? ""
               : entry.devices.front().name;
}

std::optional<double> run_host_s(const ReportPoint &point) {
    return point.figures.run_host ? std::optional(point.figures.run_host->median) : std::nullopt;
}

std::vector<WorkloadReport> build_report(
    const std::vector<std::pair<std::string, ResultsDocument>> &labelled_documents,
    const ReportOptions &options) {
    std::map<std::pair<std::string, std::string>, WorkloadReport> by_workload;
    for (const auto &[label, document] : labelled_documents) {
        const auto kinds = plugin_kinds(document);
        std::set<std::string> gpu_models;
        for (const EntryResult &entry : document.entries)
            if (const std::string model = gpu_model(entry); !model.empty()) gpu_models.insert(model);
        for (const EntryResult &entry : document.entries) {
            if (entry.status != EntryStatus::ok || entry.run_s.empty()) continue;
            const auto kind = kinds.find(entry.plugin);
            if (kind == kinds.end()) continue;
            const std::string &params = entry.settings.params;
            WorkloadReport &report = by_workload[{kind->second.workload, params}];
            report.workload = kind->second.workload;
            report.params = params;
            ReportColumn &column =
                column_for(report, kind->second, label, gpu_models.size() > 1 ? gpu_model(entry) : "");
            // Files before build records had none: a column of several files takes one that has.
            if (!column.build) column.build = kind->second.build;
            column.points[entry.size] = {entry, entry_figures(entry, document.header.basis())};
        }
    }
    std::vector<WorkloadReport> reports;
    for (auto &[key, report] : by_workload) {
        complete(report, options);
        reports.push_back(std::move(report));
    }
    return reports;
}

std::optional<double> speedup(const WorkloadReport &report, const ReportColumn &column,
                              uint64_t size, bool end_to_end) {
    const ReportColumn *base = find_column(report, report.baseline, column.source);
    if (!base) return std::nullopt;
    const auto b = base->points.find(size), c = column.points.find(size);
    if (b == base->points.end() || c == column.points.end()) return std::nullopt;
    const double tb = end_to_end ? b->second.end_to_end_s() : b->second.compute_s();
    const double tc = end_to_end ? c->second.end_to_end_s() : c->second.compute_s();
    if (tb <= 0 || tc <= 0) return std::nullopt;
    return tb / tc;
}

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
        if (!r.crossover.empty()) {
            out << "\nCrossover, end to end (the smallest size from which the GPU backend beats "
                   "the best CPU backend at every larger measured size):";
            for (const auto &[label, size] : r.crossover) out << "\n- " << label << ": " << crossover_text(r, size);
            out << '\n';
        }
        out << '\n';
    }
    write_flag_glossary(out, reports);
}

std::string crossover_text(const WorkloadReport &report, const std::optional<uint64_t> &size, bool csv) {
    if (size) return csv ? std::to_string(*size) : "from " + format_size(*size);
    if (!report.cpu_measured) return csv ? "not measured" : "not measured (no CPU backend was measured)";
    return csv ? "never" : "never, at the sizes measured";
}

namespace {

std::string join_flags(const std::vector<std::string> &flags) {
    std::string text;
    for (const std::string &flag : flags) text += (text.empty() ? "" : " ") + flag;
    return text;
}

}  // namespace

void write_csv(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    out << "workload,params,source,backend,device,size,compute_s,end_to_end_s,"
           "speedup_compute,speedup_end_to_end,crossover,flags,gpu_model,run_host_s\n";
    const auto number = [](std::optional<double> v) {
        if (!v) return std::string();
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", *v);
        return std::string(text);
    };
    const auto quoted = [](const std::string &text) {
        if (text.find_first_of(",\"") == std::string::npos) return text;
        std::string q = "\"";
        for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return q + "\"";
    };
    for (const WorkloadReport &r : reports)
        for (const ReportColumn &c : r.columns) {
            std::string crossover;
            if (auto it = r.crossover.find(c.label()); it != r.crossover.end())
                crossover = crossover_text(r, it->second, true);
            for (const auto &[size, p] : c.points)
                out << quoted(r.workload) << ',' << quoted(r.params) << ',' << quoted(c.source) << ','
                    << quoted(c.backend) << ',' << (c.gpu ? "gpu" : "cpu") << ',' << size << ','
                    << number(p.compute_s()) << ',' << number(p.end_to_end_s()) << ','
                    << number(speedup(r, c, size, false)) << ','
                    << number(speedup(r, c, size, true)) << ',' << crossover << ','
                    << quoted(join_flags(p.figures.flags)) << ',' << quoted(c.gpu_model) << ','
                    << number(run_host_s(p)) << '\n';
        }
}

json report_json(const std::vector<WorkloadReport> &reports) {
    json all = json::array();
    for (const WorkloadReport &r : reports) {
        json columns = json::array();
        for (const ReportColumn &c : r.columns) {
            json points = json::array();
            for (const auto &[size, p] : c.points) {
                json point = {{"size", size}, {"compute_s", p.compute_s()},
                              {"end_to_end_s", p.end_to_end_s()}, {"flags", p.figures.flags}};
                if (auto s = speedup(r, c, size, false)) point["speedup_compute"] = *s;
                if (auto s = speedup(r, c, size, true)) point["speedup_end_to_end"] = *s;
                if (const auto host = run_host_s(p)) point["run_host_s"] = *host;
                points.push_back(point);
            }
            columns.push_back({{"backend", c.backend}, {"source", c.source},
                               {"device", c.gpu ? "gpu" : "cpu"}, {"points", points}});
            if (!c.gpu_model.empty()) columns.back()["gpu_model"] = c.gpu_model;
        }
        json crossover = json::object();
        for (const auto &[label, size] : r.crossover)
            crossover[label] = size ? json(*size) : json(nullptr);
        all.push_back({{"workload", r.workload}, {"params", r.params}, {"baseline", r.baseline},
                       {"columns", columns}, {"crossover", crossover}, {"cpu_measured", r.cpu_measured}});
    }
    return all;
}

json gbench_json(const ResultsDocument &document) {
    json out = {{"context",
                 {{"date", document.header.created},
                  {"host_name", document.header.host_name},
                  {"executable", "gpubench runner"},
                  {"num_cpus", document.header.logical_cores},
                  {"mhz_per_cpu", 0},
                  {"cpu_scaling_enabled", false},
                  {"caches", json::array()},
                  {"library_build_type", "release"},
                  {"gpubench_gpu", document.gpu_name.value_or("")}}},
                {"benchmarks", json::array()}};
    int family = 0;
    for (const EntryResult &entry : document.entries) {
        if (entry.status != EntryStatus::ok || entry.run_s.empty()) continue;
        std::string name = entry.plugin + "/" + std::to_string(entry.size);
        if (!entry.settings.params.empty()) name += "/" + entry.settings.params;
        const std::vector<double> &samples = headline_run_samples(entry);
        const auto record = [&](const std::string &run_type, double seconds, int index,
                                const std::string &aggregate) {
            json r = {{"name", aggregate.empty() ? name : name + "_" + aggregate},
                      {"family_index", family},
                      {"per_family_instance_index", 0},
                      {"run_name", name},
                      {"run_type", run_type},
                      {"repetitions", samples.size()},
                      {"threads", 1},
                      {"iterations", 1},
                      {"real_time", seconds * 1e9},
                      {"cpu_time", seconds * 1e9},
                      {"time_unit", "ns"}};
            if (aggregate.empty())
                r["repetition_index"] = index;
            else
                r["aggregate_name"] = aggregate;
            out["benchmarks"].push_back(r);
        };
        for (size_t i = 0; i < samples.size(); ++i) record("iteration", samples[i], int(i), "");
        const Summary headline = summarize(samples);
        record("aggregate", headline.mean, 0, "mean");
        record("aggregate", headline.median, 0, "median");
        ++family;
    }
    return out;
}

}  // namespace gpubench
