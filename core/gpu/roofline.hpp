// The ceilings an entry's throughput is read against: the peak FLOP rate for the kind of
// arithmetic it declares (gpubench_work.math), and the peak memory bandwidth. For a GPU they
// come from device attributes and a per-architecture table; for the host, from a measurement
// (host_peaks.hpp). A rate above a ceiling, beyond the stated margin, is not a result: the
// timing or the declared work is wrong, and the entry is invalid.
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
    // The caches, smallest first, then the memory (capacity 0). Empty in a roofline of a file
    // written before levels were measured: level_for then falls back on cache_bytes.
    std::vector<MemoryLevel> levels;
    // The GPU's links to other GPUs (interconnect_peak.hpp): the ceiling of bytes a plugin
    // declares as crossing them (GPUBENCH_WORK_BYTES_INTERCONNECT). Unknown in a host's
    // roofline, and where NVML could not tell (its source says why).
    InterconnectPeak interconnect;

    double flops_for(gpubench_math math) const;  // 0 when unknown or out of range
    // The level a working set of `bytes` is held to: the smallest that holds it, or the memory
    // where none does or the caches were flushed before each run. Its bytes_per_s is the
    // ceiling for that working set: the level's own, but with the part that the faster levels
    // below can hold counted at their rates (near the level below, nearly its rate; 0 where the
    // level's rate is unknown). Without levels: no bandwidth ceiling up to cache_bytes
    // ("cache"), bytes_per_s above ("memory").
    MemoryLevel level_for(double bytes, bool caches_flushed) const;
    // The interconnect as the level bytes across it are held to: "NVLink" or "PCIe" at its
    // peak, or "interconnect" with no ceiling when the peak is unknown.
    MemoryLevel interconnect_level() const;
};

// Ceilings of a CUDA device from its attributes: FP32/FP64 on the CUDA cores, dense tensor
// rates per SM and clock for the architectures in roofline.cpp's table (others: unknown).
// FP64 is the larger of the CUDA-core and tensor-core rates. Margin 5%: the attributes give
// the boost clock, which a card does not exceed. Levels: the L2 at gpu.l2_bytes_per_s (measured,
// l2_bandwidth.hpp; no ceiling while unknown), then the memory.
Roofline gpu_roofline(const GpuInfo &gpu);


nlohmann::json roofline_json(const Roofline &roofline);
nlohmann::json memory_level_json(const MemoryLevel &level);
MemoryLevel memory_level_from_json(const nlohmann::json &json);  // throws on a malformed object
Roofline roofline_from_json(const nlohmann::json &json);  // throws on a malformed object

}  // namespace gpubench
