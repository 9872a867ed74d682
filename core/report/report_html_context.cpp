// The HTML report's data around the workloads (report_html.hpp): each file's header and its
// options explained, the flags glossary, the page's backend colours, the history's series.
#include "report_html.hpp"

#include "check.hpp"
#include "metric_format.hpp"
#include "results_model.hpp"
#include "runner_options.hpp"

#include <set>

namespace gpubench {

using nlohmann::json;

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

}  // namespace

json workloads_json(const ReportInput &input);  // report_html_data.cpp

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
    constexpr size_t count = sizeof palette / sizeof *palette;
    const std::set<std::string> names(backends.begin(), backends.end());
    json colours = json::object();
    size_t i = 0;
    for (const std::string &name : names) colours[name] = palette[i++ % count];
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
