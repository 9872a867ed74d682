// The host's measured roofline: peak FP32/FP64 FLOP rate and memory bandwidth, all cores
// together. A CPU entry that claims more than these is faster than the hardware, so the
// figures are measured to be generous rather than low: best of several repetitions, the
// widest FMA the CPU has, and rates that other processes preempting the measuring threads do
// not lower (see host_peaks.cpp).
#pragma once

#include "roofline.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct HostPeaks {
    double fp32_flops = 0;   // FLOP/s, all logical cores, the widest FMA the CPU supports
    double fp64_flops = 0;   // same in double
    // Memory bandwidth, all cores, as STREAM counts it (bytes read + written, no write-allocate):
    // the best of a triad and memcpy over arrays far larger than the last-level cache.
    double bytes_per_s = 0;
    uint64_t llc_bytes = 0;  // the last-level cache, all its instances together; 0 if unknown
    std::string isa;         // "avx512f", "avx2+fma", "sse2"
    std::string cpu_model;   // /proc/cpuinfo "model name"
    std::string source;      // "measured now" or "cached in <path>, measured <UTC date>"
    // Nothing else kept the host busy while it was measured (the rest of the machine used less
    // than half a core). Only quiet measurements are cached: a figure taken beside other work
    // is too low, and would make honest entries look faster than the hardware.
    bool quiet = true;
    // Each cache level's capacity (all instances) and measured bandwidth, lowest first
    // (cache_bandwidth.hpp); margin unset. Where no size is known, one level "cache" with no
    // bandwidth, so that nothing is refused for a size the host did not tell.
    std::vector<MemoryLevel> caches;
    std::string cache_source;  // where the sizes came from: "sysfs", "cpuid" or "unknown"
};

// Measured peaks of this host: measured (about 1-2 s) where the cache (host-peaks.json in the
// cache folder, cache_files.hpp) has none for this host name, CPU, core count and format.
// Never throws: a cache that cannot be read or written is ignored (measure again).
HostPeaks host_peaks();
// The same with another measurement (tests inject quiet or busy ones).
HostPeaks host_peaks(const std::function<HostPeaks()> &measure);
HostPeaks measure_host_peaks();  // always measures, no cache

nlohmann::json host_peaks_json(const HostPeaks &peaks);
std::optional<HostPeaks> host_peaks_from_json(const nlohmann::json &json);  // nullopt if malformed

// Ceilings of the host from its measured peaks. Margin 20%: a measured peak can fall short of
// the true one (turbo, memory shared with other tenants), and a false "impossible" must not
// happen; 100% when the peaks were measured beside other work (HostPeaks::quiet false).
// Levels: the caches, then DRAM; a cache's margin is 50% (200% beside other work), see
// host_peaks.cpp.
Roofline host_roofline(const HostPeaks &peaks);

}  // namespace gpubench
