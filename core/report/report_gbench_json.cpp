// --format gbench (report_formats.hpp): one results file in Google Benchmark's JSON format,
// the metrics as its user counters.
#include "report_formats.hpp"

#include "entry_figures.hpp"
#include "statistics.hpp"

namespace gpubench {

using nlohmann::json;

namespace {

// One results document in Google Benchmark's JSON format, so that its tools (compare.py)
// read it: each timed sample of run() an "iteration" record (repetitions of
// "<plugin>/<size>[/<params>]"), then its mean and median as "aggregate" records.
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
        if (entry.status != EntryStatus::ok || entry.timing.samples.run.empty()) continue;
        std::string name = entry.plugin + "/" + std::to_string(entry.size);
        if (!entry.settings.params.empty()) name += "/" + entry.settings.params;
        const std::vector<double> &samples = headline_run_samples(entry);
        const EntryFigures figures = entry_figures(entry, {document.header.logical_cores});
        const auto record = [&](double seconds, int index, const std::string &aggregate) {
            json r = {{"name", aggregate.empty() ? name : name + "_" + aggregate},
                      {"family_index", family},
                      {"per_family_instance_index", 0},
                      {"run_name", name},
                      {"run_type", aggregate.empty() ? "iteration" : "aggregate"},
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
            // Google Benchmark's user counters: each a number beside the times (never in place
            // of a field of its own, whatever a plugin names its metric).
            for (const Metric &m : figures.metrics)
                if (!r.contains(m.name)) r[m.name] = m.value;
            out["benchmarks"].push_back(r);
        };
        for (size_t i = 0; i < samples.size(); ++i) record(samples[i], int(i), "");
        const Summary headline = summarize(samples);
        record(headline.mean, 0, "mean");
        record(headline.median, 0, "median");
        ++family;
    }
    return out;
}

}  // namespace

void write_gbench_json_report(std::ostream &out, const ReportInput &input) {
    out << gbench_json(input.labelled.front().second).dump(1) << '\n';
}

}  // namespace gpubench
