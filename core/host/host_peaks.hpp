// The host's measured roofline: peak FP32/FP64 FLOP rate and memory bandwidth, all cores
// together. A CPU entry that claims more than these is faster than the hardware, so the
// figures are measured to be generous rather than low: best of several repetitions, the
// widest FMA the CPU has, and rates that other processes preempting the measuring threads do
// not lower (see host_peaks.cpp).
#pragma once

#include "roofline.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
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
    // (measure_cache_levels); margin unset. Where no size is known, one level "cache" with no
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

// ---- The CPU's data caches (cpu_caches.cpp) and their bandwidth (cache_bandwidth.cpp)

// One level's size and how many logical CPUs share one instance of it. From sysfs where the
// kernel publishes them; else from CPUID (x86: leaf 4 on Intel, 0x8000001D on AMD), which a VM
// without sysfs cache folders still answers.
struct CpuCache {
    int level = 0;          // 1, 2, 3...
    uint64_t bytes = 0;     // one instance
    unsigned sharers = 1;   // logical CPUs sharing one instance (at most the host's)
};

struct CpuCaches {
    std::vector<CpuCache> levels;  // data or unified caches, one per level, lowest first
    std::string source;            // "sysfs", "cpuid" or "unknown" (levels empty)
};

// $GPUBENCH_SYSFS_CPU, else /sys/devices/system/cpu. The variable is a test hook: pointing it at
// a folder without cpu0/cache simulates a host (a VM) whose kernel publishes no cache data.
std::filesystem::path sysfs_cpu_root();

// From <root>/cpu0/cache/index*/{level,type,size,shared_cpu_list}; empty levels when absent.
CpuCaches cpu_caches_from_sysfs(const std::filesystem::path &root, unsigned logical);
// From CPUID; empty levels off x86 or when the CPU does not say.
CpuCaches cpu_caches_from_cpuid(unsigned logical);
// sysfs, else CPUID, else none ("unknown").
CpuCaches cpu_caches(unsigned logical);

// "32K" / "1024K" / "32M" (sysfs sizes) in bytes; 0 when not a size.
uint64_t parse_cache_size(const std::string &text);

// The bandwidth of each level, all logical CPUs together, as a cache-aware roofline measures it
// (Intel Advisor's CARM, likwid-bench's per-level streams): every thread streams over a buffer
// of its own that fits well inside its share of the level. One level per cache ("L1",
// "L2"...), of what all its instances hold (a private cache's size times the logical CPUs:
// generous, so that no working set is placed in a slower level than it may run from),
// bytes_per_s measured now (about 0.1 s), margin 0 (host_roofline sets it). Without cache
// sizes: one level "cache" of unknown_cache_bytes and no bandwidth (no ceiling: a size that is
// not known must not refuse correct work).
std::vector<MemoryLevel> measure_cache_levels(const CpuCaches &caches, unsigned threads);

// The capacity assumed when no cache size is known: more than any CPU's caches hold.
inline constexpr uint64_t unknown_cache_bytes = 2ull << 30;

}  // namespace gpubench
