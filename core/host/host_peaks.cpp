// Measured host peaks, kept per machine in a small JSON cache (host_peaks.hpp); the
// measurement itself is in host_peaks_measure.cpp.
#include "host_peaks.hpp"

#include "cache_files.hpp"
#include "host_resources.hpp"
#include "system_info.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <string>

namespace fs = std::filesystem;

namespace gpubench {

namespace {

constexpr int cache_format = 2;  // part of the cache key: a new format measures again

// ---- the cache ----

// The same machine: host name, CPU and core count; a new cache format does not match.
std::string cache_key() {
    return host_name() + " | " + cpu_model_name() + " | " + std::to_string(logical_cores()) +
           " cores | format " + std::to_string(cache_format);
}

// The peaks' rates: each required, and kept by the cache at the highest measured.
constexpr double HostPeaks::*rates[] = {&HostPeaks::fp32_flops, &HostPeaks::fp64_flops, &HostPeaks::bytes_per_s};

bool usable(const HostPeaks &p) {
    for (double HostPeaks::*rate : rates)
        if (!(p.*rate > 0) || !std::isfinite(p.*rate)) return false;
    return true;
}

std::optional<HostPeaks> cached_entry(const nlohmann::json &doc, const std::string &key,
                                      const fs::path &file) {
    if (!doc.contains("machines") || !doc["machines"].contains(key)) return std::nullopt;
    const nlohmann::json &entry = doc["machines"][key];
    auto peaks = host_peaks_from_json(entry);
    if (!peaks || !usable(*peaks)) return std::nullopt;
    std::string when = entry.contains("measured_utc") && entry["measured_utc"].is_string()
                           ? entry["measured_utc"].get<std::string>()
                           : "at an unknown date";
    peaks->source = "cached in " + file.string() + ", measured " + when;
    return peaks;
}

// Stores a measurement under this machine's key, keeping per figure the higher of it and
// what the file holds (an earlier run, or another process that measured meanwhile).
// Returns the figures stored.
HostPeaks store(const fs::path &file, const std::string &key, HostPeaks measured) {
    nlohmann::json doc = read_cache(file);
    if (!doc.contains("machines") || !doc["machines"].is_object()) doc = nlohmann::json::object();
    if (auto cached = cached_entry(doc, key, file)) {
        for (double HostPeaks::*rate : rates) measured.*rate = std::max(measured.*rate, (*cached).*rate);
        for (MemoryLevel &level : measured.caches)
            for (const MemoryLevel &before : cached->caches)
                if (before.name == level.name) level.bytes_per_s = std::max(level.bytes_per_s, before.bytes_per_s);
    }
    nlohmann::json entry = host_peaks_json(measured);
    entry.erase("source");
    entry["measured_utc"] = utc_timestamp();
    doc["format"] = cache_format;
    doc["machines"][key] = entry;
    write_cache(file, doc);  // not written: measured again next time
    return measured;
}

std::mutex cache_mutex;

}  // namespace

HostPeaks host_peaks() { return host_peaks(measure_host_peaks); }

HostPeaks host_peaks(const std::function<HostPeaks()> &measure) {
    std::lock_guard lock(cache_mutex);
    std::optional<fs::path> file;
    std::string key;
    try {
        file = cache_file("host-peaks.json");
        key = cache_key();
        if (file)
            if (auto cached = cached_entry(read_cache(*file), key, *file)) return *cached;
    } catch (...) {
        file.reset();
    }
    HostPeaks measured = measure();
    if (!file || !usable(measured) || !measured.quiet) return measured;
    try {
        return store(*file, key, measured);  // its source stays what this call did: measured
    } catch (...) {
        return measured;
    }
}

nlohmann::json host_peaks_json(const HostPeaks &p) {
    nlohmann::json caches = nlohmann::json::array();
    for (const MemoryLevel &level : p.caches) caches.push_back(memory_level_json(level));
    return {{"fp32_flops", p.fp32_flops}, {"fp64_flops", p.fp64_flops},
            {"bytes_per_s", p.bytes_per_s}, {"llc_bytes", p.llc_bytes},
            {"caches", caches},       {"cache_source", p.cache_source},
            {"isa", p.isa},           {"cpu_model", p.cpu_model},
            {"source", p.source},     {"quiet", p.quiet}};
}

std::optional<HostPeaks> host_peaks_from_json(const nlohmann::json &j) {
    HostPeaks p;
    try {
        p.fp32_flops = j.at("fp32_flops").get<double>();
        p.fp64_flops = j.at("fp64_flops").get<double>();
        p.bytes_per_s = j.at("bytes_per_s").get<double>();
        if (!j.at("llc_bytes").is_number_unsigned()) return std::nullopt;
        p.llc_bytes = j["llc_bytes"].get<uint64_t>();
        p.isa = j.at("isa").get<std::string>();
        p.cpu_model = j.at("cpu_model").get<std::string>();
        p.source = j.value("source", "");
        p.quiet = j.value("quiet", true);
        p.cache_source = j.value("cache_source", "");
        for (const nlohmann::json &level : j.value("caches", nlohmann::json::array()))
            p.caches.push_back(memory_level_from_json(level));
    } catch (const std::exception &) {
        return std::nullopt;
    }
    for (double HostPeaks::*rate : rates)
        if (!std::isfinite(p.*rate) || p.*rate < 0) return std::nullopt;
    return p;
}

Roofline host_roofline(const HostPeaks &peaks) {
    Roofline r;
    r.flops[GPUBENCH_MATH_FP32] = peaks.fp32_flops;
    r.flops[GPUBENCH_MATH_FP64] = peaks.fp64_flops;
    r.bytes_per_s = peaks.bytes_per_s;
    r.cache_bytes = peaks.llc_bytes;
    // A measurement taken beside other work can be far too low: then only a rate more than
    // twice it is called impossible.
    r.margin = peaks.quiet ? 0.20 : 1.0;
    // A cache level's figure is two simple streams': a tuned kernel mixing loads and stores
    // in another ratio, or one thread per core where SMT siblings were measured sharing it,
    // can beat them by tens of percent. Beside other work, caches also lose data to it.
    const double cache_margin = peaks.quiet ? 0.5 : 2.0;
    r.levels = peaks.caches;
    for (MemoryLevel &level : r.levels) level.margin = cache_margin;
    r.levels.push_back({"DRAM", 0, peaks.bytes_per_s, r.margin});
    r.source = peaks.cpu_model + ": measured (" + peaks.isa + " FMA loops on every core; "
               "read and a[i]=b[i]+c[i] streams within each cache level, cache sizes from " +
               (peaks.cache_source.empty() ? "unknown" : peaks.cache_source) +
               "; triad and memcpy over arrays beyond the last-level cache), " + peaks.source;
    return r;
}

}  // namespace gpubench
