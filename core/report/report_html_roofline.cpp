// The HTML report's measured roofline (report_html.hpp): with --counters, each entry at its
// counted arithmetic intensity (flops per DRAM byte) and rate (flops per median compute time),
// against the roofs of the device it ran on as its results file's header records them; beside
// it, the declared work against the counted, and why an entry has no point.
#include "work_mismatch.hpp"
#include "report_html.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace gpubench {

using nlohmann::json;

namespace {

// A device's roofs are drawn for at most this many devices in one plot; beyond, only those of
// the device most points ran on (more sets of lines than that cannot be told apart).
constexpr size_t most_devices_drawn = 3;

bool counters_read(const EntryResult &e) { return !e.counters.empty() && e.counters.rfind("not read", 0) != 0; }

// The device a point's roofs are: its GPU by name ("GPU 1" where the sweep did not probe it) or
// "host", with the column's source where the report has several.
std::string device_of(const ReportColumn &c, const ReportPoint &p) {
    std::string device = "host";
    if (!p.entry.cuda_devices.empty()) {
        const std::string model = gpu_model(p.entry);
        device = model.empty() ? "GPU " + std::to_string(p.entry.cuda_devices.front()) : model;
    }
    return c.source.empty() ? device : device + " @ " + c.source;
}

// Where the entry stands on the roofline, from its counters: DRAM bytes (a GPU's reads and
// writes, a CPU's last-level cache misses x 64 B), L2 bytes, flops (the four precisions; for a
// CPU entry, whose counters count none, the declared ones), intensity and rate; or, in
// "off_plot", why it has no point.
json counted_json(const ReportColumn &c, const ReportPoint &p) {
    const EntryResult &e = p.entry;
    const bool on_gpu = !e.cuda_devices.empty();
    json counted = {{"device", device_of(c, p)}};
    std::optional<double> bytes;
    if (on_gpu) {
        bytes = counted_sum(e, {"dram_read_bytes_per_run", "dram_write_bytes_per_run"});
        counted["bytes_what"] = "DRAM read + write";
        if (const auto l2 = counted_value(e, "l2_bytes_per_run")) counted["l2_bytes"] = *l2;
    } else {
        if (const auto misses = counted_value(e, "llc_misses_per_run")) bytes = *misses * 64;
        counted["bytes_what"] = "last-level cache misses x 64 B";
    }
    std::optional<double> flops = counted_flops(e);
    if (!flops && !on_gpu && e.work.flops > 0) {
        flops = e.work.flops;
        counted["flops_declared"] = true;  // the CPU's counters count no flops
    }
    if (bytes) counted["bytes"] = *bytes;
    if (flops) counted["flops"] = *flops;
    const double seconds = p.compute_s();
    if (!bytes || *bytes <= 0)
        counted["off_plot"] = on_gpu ? "no DRAM bytes counted" : "no last-level cache misses counted";
    else if (!flops || *flops <= 0)
        counted["off_plot"] = on_gpu ? "no flops counted" : "no flops counted or declared";
    else if (!(seconds > 0))
        counted["off_plot"] = "no compute time";
    else
        counted.update({{"intensity", *flops / *bytes}, {"rate", *flops / seconds}});
    return counted;
}

// The roofline of a point's device, from the first results file of its column's source that
// records one.
const Roofline *recorded_roofline(const ReportInput &input, const ReportColumn &c, const ReportPoint &p) {
    for (const auto &[label, document] : input.labelled)
        if (label == c.source)
            if (const RecordedRoofline *r = document.header.roofline_of(p.entry)) return &r->roofline;
    return nullptr;
}

struct DeviceRoofs {
    const Roofline *roofline = nullptr;  // nullptr: no file records it
    bool host = false;
    size_t points = 0;
    std::set<int> maths;  // the declared math of its points, beside fp32 and fp64
};

// A device's roofs: its peak flops (fp64, fp32, then any other math its points declare) and
// its bandwidths (a GPU's L2 and memory, the host's memory: what its points' bytes count).
json device_json(const std::string &name, const DeviceRoofs &d) {
    json device = {{"name", name}, {"host", d.host}, {"compute", json::array()}, {"memory", json::array()}};
    if (!d.roofline) {
        device["missing"] = "its results file records no roofline";
        return device;
    }
    const Roofline &r = *d.roofline;
    std::vector<int> maths = {GPUBENCH_MATH_FP64, GPUBENCH_MATH_FP32};
    for (int math : d.maths)
        if (std::find(maths.begin(), maths.end(), math) == maths.end()) maths.push_back(math);
    for (int math : maths)
        if (const double flops = r.flops_for(gpubench_math(math)); flops > 0)
            device["compute"].push_back({{"name", math_name(gpubench_math(math))}, {"flops", flops}});
    for (const MemoryLevel &level : r.levels)
        if (level.bytes_per_s > 0 && (level.capacity == 0 || (!d.host && level.name == "L2")))
            device["memory"].push_back({{"name", level.name}, {"bytes_per_s", level.bytes_per_s}});
    if (r.levels.empty() && r.bytes_per_s > 0)  // a file from before memory levels
        device["memory"].push_back({{"name", "memory"}, {"bytes_per_s", r.bytes_per_s}});
    device["source"] = r.source;
    return device;
}

}  // namespace

json counted_work_json(const ReportColumn &c, const ReportPoint &p) {
    const EntryResult &e = p.entry;
    if (e.counters.empty()) return json::object();
    json work = {{"plugin", e.plugin},
                 {"params", e.settings.params},
                 {"counters", e.counters},
                 {"work", {{"bytes", e.work.bytes}, {"flops", e.work.flops}, {"math", math_name(e.work.math)}}}};
    if (!p.figures.work_mismatch.empty()) work["work_mismatch"] = p.figures.work_mismatch;
    if (counters_read(e)) work["counted"] = counted_json(c, p);
    return work;
}

json workload_roofline_json(const WorkloadReport &r, const ReportInput &input) {
    std::map<std::string, DeviceRoofs> devices;
    for (const ReportColumn &c : r.columns)
        for (const auto &[size, p] : c.points) {
            if (!counters_read(p.entry) || !counted_json(c, p).contains("intensity")) continue;
            DeviceRoofs &d = devices[device_of(c, p)];
            d.roofline = d.roofline ? d.roofline : recorded_roofline(input, c, p);
            d.host = p.entry.cuda_devices.empty();
            ++d.points;
            d.maths.insert(p.entry.work.math);
        }
    json roofline = {{"devices", json::array()}, {"mismatch_factor", counted_work_tolerance}};
    if (devices.size() > most_devices_drawn) {
        const auto most = std::max_element(devices.begin(), devices.end(), [](const auto &a, const auto &b) {
            return a.second.points < b.second.points;
        });
        roofline["note"] = "The points ran on " + std::to_string(devices.size()) +
                           " devices: only the roofs of " + most->first +
                           ", which most of them ran on, are drawn.";
        devices = {*most};
    }
    for (const auto &[name, d] : devices) roofline["devices"].push_back(device_json(name, d));
    return roofline;
}

}  // namespace gpubench
