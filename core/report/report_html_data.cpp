// The HTML report's data per workload (report_html.hpp): the report's columns with, per size,
// what the plots and tables need: the headline's median and spread, end-to-end time,
// throughput, % of peak, memory, CPU and GPU use, energy. Figures the typed report lacks are
// read from the entries themselves, matched to columns as build_report matches them.
#include "report_html.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gpubench {

using nlohmann::json;

namespace {

// An entry's place in a report: workload, params, backend, source, GPU model and size.
std::string point_key(const std::string &workload, const std::string &params, const std::string &backend,
                      const std::string &source, const std::string &gpu_model, uint64_t size) {
    return workload + '\n' + params + '\n' + backend + '\n' + source + '\n' + gpu_model + '\n' +
           std::to_string(size);
}

std::optional<double> number_at(const json &object, const char *key) {
    if (!object.is_object()) return std::nullopt;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) return std::nullopt;
    const double value = it->get<double>();
    return std::isfinite(value) ? std::optional(value) : std::nullopt;
}

const char *throughput_unit(const std::string &headline) {
    if (headline == "gflops") return "GFLOP/s";
    if (headline == "gbytes_per_s") return "GB/s";
    if (headline == "items_per_s") return "items/s";
    return "";
}

// What the typed report does not keep of one entry: the headline's spread, throughput, % of
// peak against the roofline it was measured on (the host's for a CPU entry, its GPU's for a
// GPU entry: results.cpp's entry_figures), energy.
json entry_extras(const RecordedEntry &typed, const json &entry) {
    std::vector<double> samples = typed.timing->headline_samples();
    std::sort(samples.begin(), samples.end());
    json extras = {{"n", samples.size()}};
    if (!samples.empty())
        extras.update({{"q1", quantile(samples, 0.25)}, {"q3", quantile(samples, 0.75)},
                       {"min", samples.front()}, {"max", samples.back()}});
    const json throughput = entry.value("throughput", json::object());
    const std::string headline = throughput.value("headline", std::string());
    if (const auto value = number_at(throughput, headline.c_str()); value && *value > 0)
        extras.update({{"tput", *value}, {"tput_unit", throughput_unit(headline)}});
    if (const auto peak = number_at(throughput, "percent_of_peak")) {
        extras["peak"] = *peak;
        extras["bound"] = throughput.value("roofline_bound", std::string());
        if (const std::string level = throughput.value("peak_level", std::string()); !level.empty())
            extras["bound"] = level + " " + extras["bound"].get<std::string>();  // "L2 memory"
    }
    if (const auto energy = number_at(entry.value("energy", json::object()), "per_run_j"))
        extras["energy_j"] = *energy;
    return extras;
}

using ExtrasByPoint = std::map<std::string, json>;

// Every verified entry's extras, keyed as its report point; and each workload's size meaning.
void gather_extras(const ReportInput &input, ExtrasByPoint &extras,
                   std::map<std::string, std::string> &size_meanings) {
    for (size_t i = 0; i < input.documents.size(); ++i) {
        const json &document = input.documents[i];
        const auto &[label, typed] = input.labelled.at(i);
        std::map<std::string, std::pair<std::string, std::string>> kinds;  // plugin -> workload, backend
        for (const json &plugin : document.at("plugins")) {
            const std::string workload = plugin.value("workload", std::string());
            kinds[plugin.value("name", std::string())] = {workload, plugin.value("backend", std::string())};
            size_meanings.emplace(workload, plugin.value("size_meaning", std::string()));
        }
        std::set<std::string> gpu_models;  // one column per model only where there are several
        for (const RecordedEntry &e : typed.entries)
            if (!e.gpu_model.empty()) gpu_models.insert(e.gpu_model);
        const json &entries = document.at("entries");
        for (size_t j = 0; j < typed.entries.size(); ++j) {
            const RecordedEntry &e = typed.entries[j];
            const auto kind = kinds.find(e.record.plugin);
            if (!e.record.valid || !e.timing || kind == kinds.end()) continue;
            const std::string model = gpu_models.size() > 1 ? e.gpu_model : "";
            extras[point_key(kind->second.first, e.record.params, kind->second.second, label, model,
                             e.record.size)] = entry_extras(e, entries.at(j));
        }
    }
}

std::string language_of(const ReportColumn &c) { return c.build ? c.build->language : ""; }

json point_json(uint64_t size, const ReportPoint &p, json extras) {
    json point = std::move(extras);
    point.update({{"size", size}, {"t", p.compute_s}, {"e2e", p.end_to_end_s}, {"flags", p.flags},
                  {"run_s", p.run_s}, {"first_run_s", p.first_run_s}, {"load_s", p.load_s}});
    if (const auto &r = p.resources) {
        point["cpu_mem"] = r->peak_rss_bytes;
        if (r->device_allocated_bytes) point["gpu_mem"] = *r->device_allocated_bytes;
        if (r->cpu_percent) point["cpu_pct"] = *r->cpu_percent;
        if (r->gpu_busy) point["gpu_pct"] = *r->gpu_busy * 100;
    }
    return point;
}

json column_json(const WorkloadReport &r, const ReportColumn &c, const ExtrasByPoint &extras) {
    const std::string language = language_of(c);
    json column = {{"label", c.label()}, {"backend", c.backend}, {"source", c.source},
                   {"gpu", c.gpu}, {"gpu_model", c.gpu_model}, {"language", language},
                   // Compiled code solid, Python dashed (and unknown languages solid).
                   {"dash", language == "Python" ? "dash" : "solid"}, {"points", json::array()}};
    if (c.build) {
        column["lines"] = c.build->source_lines;
        if (c.build->compile_s) column["compile_s"] = *c.build->compile_s;
        if (c.build->shared_lines) column["shared_lines"] = c.build->shared_lines;
    }
    for (const auto &[size, p] : c.points) {
        const auto found = extras.find(point_key(r.workload, r.params, c.backend, c.source, c.gpu_model, size));
        column["points"].push_back(point_json(size, p, found == extras.end() ? json::object() : found->second));
    }
    return column;
}

// A size, or why there is none: "never" only where a CPU backend was measured.
json crossover_json(const WorkloadReport &r) {
    json crossover = json::object();
    for (const auto &[label, size] : r.crossover)
        crossover[label] = size ? json(*size) : json(r.cpu_measured ? "never" : "not measured");
    return crossover;
}

}  // namespace

json workloads_json(const ReportInput &input) {
    ExtrasByPoint extras;
    std::map<std::string, std::string> size_meanings;
    gather_extras(input, extras, size_meanings);
    json workloads = json::array();
    for (const WorkloadReport &r : input.reports) {
        json columns = json::array();
        for (const ReportColumn &c : r.columns) columns.push_back(column_json(r, c, extras));
        workloads.push_back({{"title", r.title()}, {"workload", r.workload}, {"params", r.params},
                             {"size_meaning", size_meanings[r.workload]}, {"baseline", r.baseline},
                             {"sizes", r.sizes}, {"cpu_measured", r.cpu_measured},
                             {"crossover", crossover_json(r)}, {"columns", std::move(columns)}});
    }
    return workloads;
}

}  // namespace gpubench
