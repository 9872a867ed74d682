// The ceilings an entry's throughput is read against: the peak FLOP rate for the arithmetic it
// declares (gpubench_work.math) and the peak bandwidth; a GPU's from device attributes and a
// per-architecture table, the host's measured (host_peaks.hpp). A rate above a ceiling, beyond
// its margin, is not a result: the timing or the declared work is wrong.
#pragma once

#include "interconnect_peak.hpp"

#include <gpubench/plugin.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

struct GpuInfo;

inline constexpr int math_kinds = 6;  // GPUBENCH_MATH_FP32 .. GPUBENCH_MATH_TENSOR_INT8
const char *math_name(gpubench_math math);  // "fp32", "fp64", "tf32 tensor"...
gpubench_math math_from_name(const std::string &name);  // the reverse; FP32 when unknown

// A level of the memory hierarchy, whose bandwidth an entry whose data fits in it is held to.
struct MemoryLevel {
    std::string name;        // "L1", "L2", "L3", "DRAM"; a GPU's "L2", "HBM" or "DRAM"
    uint64_t capacity = 0;   // bytes it holds, all its instances together; 0: the memory (any size)
    double bytes_per_s = 0;  // all cores (all SMs) together; 0 = unknown: no bandwidth ceiling
    double margin = 0;       // a rate up to (1 + margin) x bytes_per_s is still accepted
};

struct Roofline {
    std::array<double, math_kinds> flops{};  // FLOP/s by gpubench_math; 0 = unknown
    double bytes_per_s = 0;                  // the memory's (DRAM, HBM); 0 = unknown
    uint64_t cache_bytes = 0;                // the largest cache's capacity
    double margin = 0;   // a rate up to (1 + margin) x ceiling is still accepted
    std::string source;  // where the figures come from, for the results file
    // The caches, smallest first, then the memory (capacity 0). Empty in files written before
    // levels were measured: level_for then falls back on cache_bytes.
    std::vector<MemoryLevel> levels;
    // The GPU's links to other GPUs (interconnect_peak.hpp); unknown for the host.
    InterconnectPeak interconnect;

    double flops_for(gpubench_math math) const;  // 0 when unknown or out of range
    // The level a working set of `bytes` is held to: the smallest that holds it, or the memory
    // where none does or the caches were flushed. Its bytes_per_s counts the part the faster
    // levels below hold at their rates (0 where the level's rate is unknown). Without levels:
    // no ceiling up to cache_bytes ("cache"), bytes_per_s above ("memory").
    MemoryLevel level_for(double bytes, bool caches_flushed) const;
    // The level bytes across the interconnect are held to ("interconnect": no ceiling, unknown).
    MemoryLevel interconnect_level() const;
};

// Per SM and clock by compute capability (0: none, or not known here): the FP32 and FP64 lanes
// without tensor cores, and the dense tensor-core operations (an FMA is 2).
struct ArchitectureRates {
    int fp32_lanes, fp64_lanes;
    double tensor_fp64, tf32, fp16, fp8, int8;
};
ArchitectureRates architecture_rates(int major, int minor);

// Ceilings of a CUDA device from its attributes and architecture_rates (others: unknown).
// Margin 5%: a card does not exceed the boost clock. Levels: the L2 at gpu.l2_bytes_per_s (no
// ceiling while unknown), then the memory.
Roofline gpu_roofline(const GpuInfo &gpu);

nlohmann::json roofline_json(const Roofline &roofline);
nlohmann::json memory_level_json(const MemoryLevel &level);
MemoryLevel memory_level_from_json(const nlohmann::json &json);  // throws on a malformed object
Roofline roofline_from_json(const nlohmann::json &json);  // throws on a malformed object

}  // namespace gpubench
