// Hand-made results documents for the report's tests: plugins named WORKLOAD_BACKEND ("cuda"
// and "thrust" backends on the GPU), entries with given run samples, written as the runner
// writes them so that they pass the schema.
#pragma once

#include "report.hpp"
#include "results.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace report_documents {

using namespace gpubench;
using nlohmann::json;

// A results document with the given plugins and entries (plugin, size, run samples; e2e =
// run + transfer for GPU plugins; per-launch samples when given), written as the runner
// writes one, so that it passes the schema.
struct Entry {
    std::string plugin;
    uint64_t size;
    std::vector<double> run_s;
    double transfer_s = 0;
    bool valid = true;
    std::vector<double> per_launch_s = {};
};

inline json results(const std::vector<Entry> &entries, const std::string &gpu = "NVIDIA H100 80GB HBM3") {
    GpuInfo device;
    device.available = true;
    device.name = gpu;
    json doc = results_header({"runner"}, device, MeasureOptions{}, std::nullopt);
    doc["host"]["host_name"] = "testhost";
    doc["plugins"] = json::array();
    doc["entries"] = json::array();
    std::set<std::string> plugins;
    for (const Entry &e : entries) {
        const std::string backend = e.plugin.substr(e.plugin.find('_') + 1);
        if (plugins.insert(e.plugin).second)
            doc["plugins"].push_back(
                {{"name", e.plugin}, {"workload", e.plugin.substr(0, e.plugin.find('_'))},
                 {"backend", backend}, {"device_kind", backend == "cuda" || backend == "thrust" ? "cuda" : "cpu"},
                 {"description", ""}, {"size_meaning", "n"}, {"version", "1.0"}, {"abi", "1.3"},
                 {"build_info", ""}, {"file", e.plugin + ".so"}});
        EntryResult r;
        r.plugin = e.plugin;
        r.size = e.size;
        r.status = e.valid ? EntryStatus::ok : EntryStatus::verification_failed;
        r.message = e.valid ? "" : "wrong result";
        r.timing.clock = "steady_clock";
        r.timing.samples.run = e.run_s;
        if (e.transfer_s > 0) r.timing.samples.upload.assign(e.run_s.size(), e.transfer_s);
        if (!e.per_launch_s.empty()) r.timing.per_launch = {"graph", 1000, e.per_launch_s};
        doc["entries"].push_back(nlohmann::json(r));
    }
    return doc;
}

// What the readers take: the document checked and typed.
inline ResultsDocument typed(const json &document) { return results_document(document, "test document"); }

inline std::vector<double> around(double center, int n = 13) {  // a little spread, no ties; median = center
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(center * (1 + 0.001 * (i - n / 2)));
    return v;
}

}  // namespace report_documents
