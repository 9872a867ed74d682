// The HTML report's data (report_html.hpp): each file's header and its options explained, the
// flags glossary, the page's backend colours, the history's series; and per workload, the
// report's columns with, per size, what the plots and tables need: the headline's median and
// spread, end-to-end time, throughput, % of peak, memory, CPU and GPU use, energy, the metrics
// and the counted work, from each point's entry and figures; and the measured roofline's roofs.
#include "check.hpp"
#include "entry_json.hpp"
#include "metric_format.hpp"
#include "report_html.hpp"
#include "results_model.hpp"
#include "runner_options.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gpubench {

using nlohmann::json;

// report_html_roofline.cpp: a point's declared and counted work (--counters; {} without), and
// a workload's roofs.
json counted_work_json(const ReportColumn &c, const ReportPoint &p);
json workload_roofline_json(const WorkloadReport &r, const ReportInput &input);

namespace {

// A file's options as the page's rows: key, value and what the option means (runner_options.hpp).
json option_rows_json(const json &options) {
    json rows = json::array();
    if (!options.is_object()) return rows;
    for (const auto &[key, value] : options.items())
        rows.push_back({{"key", key}, {"value", value.is_string() ? value.get<std::string>() : value.dump()},
                        {"meaning", recorded_option_meaning(key)}});
    return rows;
}

json file_json(const RunHeader &h, const std::string &label) {
    return {{"file", h.file},          {"label", label},          {"created", h.created},
            {"machine", h.machine()},  {"os", h.os},              {"gpus", h.gpu_list()},
            {"driver", h.driver},      {"commit", h.commit},      {"build", h.build()},
            {"plugin_abi", h.plugin_abi}, {"command_line", h.command_line},
            {"options", option_rows_json(h.options)}};
}

json history_json(const std::vector<HistorySeries> &history) {
    json series = json::array();
    for (const HistorySeries &s : history) {
        json points = json::array(), steps = json::array();
        for (const HistoryPoint &p : s.points)
            points.push_back({{"commit", p.commit}, {"date", p.date}, {"median", p.median},
                              {"low", p.low}, {"high", p.high}});
        for (const ChangePoint &c : s.change_points)
            steps.push_back({{"index", c.index}, {"before", c.before}, {"after", c.after},
                             {"relative_step", c.relative_step()}});
        series.push_back({{"label", s.label()}, {"plugin", s.plugin}, {"params", s.params},
                          {"size", s.size}, {"machine", s.machine}, {"gpus", s.gpus},
                          {"build", s.build}, {"points", std::move(points)},
                          {"change_points", std::move(steps)}});
        if (!s.metric.empty())
            series.back().update({{"metric", s.metric}, {"unit", s.unit}, {"better", better_name(s.better)},
                                  {"measured", s.measured}});
    }
    return series;
}

std::optional<double> finite(double value) { return std::isfinite(value) ? std::optional(value) : std::nullopt; }

// What the plots add to a point beside its times: the headline's spread, throughput, % of
// peak against the roofline it was measured on (the host's for a CPU entry, its GPU's for a
// GPU entry), energy.
json point_extras(const ReportPoint &p) {
    std::vector<double> samples = headline_run_samples(p.entry);
    std::sort(samples.begin(), samples.end());
    json extras = {{"n", samples.size()}};
    if (!samples.empty())
        extras.update({{"q1", quantile(samples, 0.25)}, {"q3", quantile(samples, 0.75)},
                       {"min", samples.front()}, {"max", samples.back()}});
    const EntryFigures &f = p.figures;
    if (const auto value = finite(f.headline_value); !f.headline.empty() && value && *value > 0)
        extras.update({{"tput", *value}, {"tput_unit", headline_unit(f.headline)}});
    if (const auto peak = finite(f.percent_of_peak); peak && !f.roofline_bound.empty()) {
        extras["peak"] = *peak;
        extras["bound"] = f.peak_level.empty() ? f.roofline_bound : f.peak_level + " " + f.roofline_bound;  // "L2 memory"
    }
    if (f.energy)
        if (const auto energy = finite(f.energy->per_run_j)) extras["energy_j"] = *energy;
    return extras;
}

json point_json(const ReportColumn &c, uint64_t size, const ReportPoint &p) {
    json point = point_extras(p);
    point.update(counted_work_json(c, p));
    const Timing &timing = p.entry.timing;
    point.update({{"size", size}, {"t", p.compute_s()}, {"e2e", p.end_to_end_s()}, {"flags", p.figures.flags},
                  {"run_s", p.figures.run.median}, {"first_run_s", timing.first_run}, {"load_s", timing.load}});
    if (const EntryResources &r = p.entry.resources; r.watched()) {
        point["cpu_mem"] = r.peak_rss_bytes;
        point["cpu_pct"] = p.figures.cpu_percent;
        if (r.on_device) point["gpu_mem"] = r.device_allocated_bytes, point["gpu_pct"] = r.gpu_busy * 100;
    }
    if (!p.entry.metrics.empty()) point["metrics"] = p.entry.metrics;  // a table and a plot each
    return point;
}

json column_json(const ReportColumn &c) {
    const std::string language = c.language();
    json column = {{"label", c.label()}, {"backend", c.backend}, {"source", c.source},
                   {"gpu", c.gpu}, {"gpu_model", c.gpu_model}, {"language", language},
                   // Compiled code solid, Python dashed (and unknown languages solid).
                   {"dash", language == "Python" ? "dash" : "solid"}, {"points", json::array()}};
    if (c.build) {
        column["lines"] = c.build->source_lines;
        if (c.build->compile_s) column["compile_s"] = *c.build->compile_s;
        if (c.build->shared_lines) column["shared_lines"] = c.build->shared_lines;
    }
    for (const auto &[size, p] : c.points) column["points"].push_back(point_json(c, size, p));
    return column;
}

json workloads_json(const ReportInput &input) {
    std::map<std::string, std::string> size_meanings;  // by workload: the first file's that has it
    for (const auto &[label, document] : input.labelled)
        for (const PluginRecord &plugin : document.plugins) size_meanings.emplace(plugin.workload, plugin.size_meaning);
    json workloads = json::array();
    for (const WorkloadReport &r : input.reports) {
        json columns = json::array();
        for (const ReportColumn &c : r.columns) columns.push_back(column_json(c));
        workloads.push_back({{"title", r.title()}, {"workload", r.workload}, {"params", r.params},
                             {"size_meaning", size_meanings[r.workload]}, {"baseline", r.baseline},
                             {"sizes", r.sizes}, {"answer", answers_json(r)}, {"columns", std::move(columns)},
                             {"roofline", workload_roofline_json(r, input)}});
    }
    return workloads;
}

}  // namespace

json backend_colours(const std::vector<std::string> &backends) {
    // Tableau 10, then its light variants, then more saturated and dark tones: neighbours in
    // name order get unlike hues; 48 distinct colours.
    static const char *const palette[] = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
        "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
        "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5", "#393b79", "#637939", "#8c6d31", "#843c39",
        "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#6baed6", "#fd8d3c",
        "#74c476", "#9e9ac8", "#969696", "#5254a3", "#8ca252", "#bd9e39", "#ad494a", "#a55194",
        "#08519c", "#a63603", "#006d2c", "#54278f", "#252525", "#e7ba52", "#d6616b", "#ce6dbd"};
    const std::set<std::string> names(backends.begin(), backends.end());
    json colours = json::object();
    size_t i = 0;
    for (const std::string &name : names) colours[name] = palette[i++ % std::size(palette)];
    return colours;
}

json html_report_data(const ReportInput &input) {
    json files = json::array();
    for (const auto &[label, document] : input.labelled) files.push_back(file_json(document.header, label));
    json flags = json::array();
    for (const auto &[flag, meaning] : flag_glossary()) flags.push_back({{"flag", flag}, {"meaning", meaning}});
    std::vector<std::string> backends;
    for (const WorkloadReport &r : input.reports)
        for (const ReportColumn &c : r.columns) backends.push_back(c.backend);
    json data = {{"generator", "gpubench runner report --format html"},
                 {"baseline", input.baseline_backend},
                 {"files", std::move(files)},
                 {"flags", std::move(flags)},
                 {"backends", backend_colours(backends)},
                 {"workloads", workloads_json(input)}};
    if (input.history) data["history"] = history_json(*input.history);
    return data;
}

}  // namespace gpubench
