// The report's model (report.hpp): results documents read into per-workload tables, with each
// column's speedups and the workload's answers. The formats written from it are
// report_formats.hpp's.
#include "report.hpp"

#include "metric_format.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace gpubench {

namespace {

// Whether `column` is `backend`'s: by name, or a setting of its own ("cublas [math=fp32]" is
// cublas's, the first of its settings taking the baseline's part).
bool of_backend(const std::string &column, const std::string &backend) {
    return column == backend || column.rfind(backend + " [", 0) == 0;
}

// The column of `backend` from the same source as `like`, else from any source.
const ReportColumn *find_column(const WorkloadReport &report, const std::string &backend,
                                const std::string &source) {
    const ReportColumn *any = nullptr;
    for (const ReportColumn &c : report.columns) {
        if (!of_backend(c.backend, backend)) continue;
        if (c.source == source) return &c;
        if (!any) any = &c;
    }
    return any;
}

// The report's baseline backend: the one asked for, else the first CPU backend, else the first.
std::string pick_baseline(const WorkloadReport &report, const std::string &wanted) {
    if (const ReportColumn *c = find_column(report, wanted, "")) return c->backend;
    for (const ReportColumn &c : report.columns)
        if (!c.gpu) return c.backend;
    return report.columns.empty() ? "" : report.columns.front().backend;
}

// The report's column of `backend` (`plugin`'s, with its own settings) from the file `label`
// (on `gpu_model`, when the file holds several), added when missing.
ReportColumn &column_for(WorkloadReport &report, const PluginRecord &plugin, const std::string &backend,
                         const std::string &label, const std::string &gpu_model) {
    auto column = std::find_if(report.columns.begin(), report.columns.end(), [&](const ReportColumn &c) {
        return c.backend == backend && c.source == label && c.gpu_model == gpu_model;
    });
    if (column != report.columns.end()) return *column;
    report.columns.push_back(
        {backend, label, plugin.device_kind == "cuda", {}, {}, plugin.build_record, gpu_model});
    return report.columns.back();
}

// Per workload, the parameter keys that only some of its plugins in `document` declare: such
// a key (matmul_cuda's kernel, matmul_cublas's math) is their plugin's own and names their
// column ("cuda [kernel=ffma]") instead of a section, so that each variant stands beside the
// others and the baseline in one table. A key every plugin declares (dtype) makes sections.
// Plugins that declare nothing (files written before declarations were recorded) do not vote.
std::map<std::string, std::set<std::string>> own_keys(const ResultsDocument &document) {
    std::map<std::string, std::set<std::string>> declared_by_any, declared_by_all, own;
    for (const PluginRecord &plugin : document.plugins) {
        if (plugin.param_keys.empty()) continue;
        const std::set<std::string> keys(plugin.param_keys.begin(), plugin.param_keys.end());
        declared_by_any[plugin.workload].insert(keys.begin(), keys.end());
        auto [all, first] = declared_by_all.try_emplace(plugin.workload, keys);
        if (!first) std::erase_if(all->second, [&](const std::string &key) { return !keys.count(key); });
    }
    for (const auto &[workload, keys] : declared_by_any)
        for (const std::string &key : keys)
            if (!declared_by_all[workload].count(key)) own[workload].insert(key);
    return own;
}

// An entry's params as (the section's, the column's own), each in their order.
std::pair<std::string, std::string> split_params(const std::string &params, const std::set<std::string> &own_keys) {
    std::vector<std::string> section, own;
    for (const std::string &item : split_list(params))
        (own_keys.count(item.substr(0, item.find('='))) ? own : section).push_back(item);
    return {join(section, ","), join(own, ",")};
}

// Columns in order, the sizes, the baseline and the answers.
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
    answer_workload(report);
}

}  // namespace

std::string gpu_model(const EntryResult &entry) {
    const std::vector<DeviceIdentity> &known = entry.sweep.devices;
    return known.empty() || entry.cuda_devices.empty() || known.front().index != entry.cuda_devices.front()
               ? ""
               : known.front().name;
}

std::optional<double> run_host_s(const ReportPoint &point) {
    return point.figures.run_host ? std::optional(point.figures.run_host->median) : std::nullopt;
}

std::vector<WorkloadReport> build_report(
    const std::vector<std::pair<std::string, ResultsDocument>> &labelled_documents,
    const ReportOptions &options) {
    std::map<std::pair<std::string, std::string>, WorkloadReport> by_workload;
    for (size_t run = 0; run < labelled_documents.size(); ++run) {
        const auto &[label, document] = labelled_documents[run];
        std::map<std::string, const PluginRecord *> plugins;
        for (const PluginRecord &plugin : document.plugins) plugins[plugin.name] = &plugin;
        std::map<std::string, std::set<std::string>> own = own_keys(document);
        std::set<std::string> gpu_models;
        for (const EntryResult &entry : document.entries)
            if (const std::string model = gpu_model(entry); !model.empty()) gpu_models.insert(model);
        for (const EntryResult &entry : document.entries) {
            if (entry.status != EntryStatus::ok || entry.timing.samples.run.empty()) continue;
            const auto found = plugins.find(entry.plugin);
            if (found == plugins.end()) continue;
            const PluginRecord &plugin = *found->second;
            const auto [params, setting] = split_params(entry.settings.params, own[plugin.workload]);
            WorkloadReport &report = by_workload[{plugin.workload, params}];
            report.workload = plugin.workload;
            report.params = params;
            ReportColumn &column =
                column_for(report, plugin, setting.empty() ? plugin.backend : plugin.backend + " [" + setting + "]",
                           label, gpu_models.size() > 1 ? gpu_model(entry) : "");
            // Files before build records had none: a column of several files takes one that has.
            if (!column.build) column.build = plugin.build_record;
            ReportPoint point{entry, entry_figures(entry, document.header.basis()), run};
            if (auto [at, added] = column.points.try_emplace(entry.size, point); !added)
                column.repeats.push_back(std::exchange(at->second, std::move(point)));
        }
    }
    std::vector<WorkloadReport> reports;
    for (auto &[key, report] : by_workload) {
        complete(report, options);
        reports.push_back(std::move(report));
    }
    return reports;
}

std::vector<EntryMetric> report_metrics(const std::vector<WorkloadReport> &reports) {
    std::vector<EntryMetric> names;
    for (const WorkloadReport &r : reports)
        for (const ReportColumn &c : r.columns)
            for (const auto &[size, p] : c.points)
                for (const EntryMetric &metric : p.figures.metrics)
                    if (!find_metric(names, metric.name)) names.push_back(metric);
    return names;
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

}  // namespace gpubench
