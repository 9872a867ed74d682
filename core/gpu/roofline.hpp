// The ceilings an entry's throughput is read against: the peak FLOP rate for the kind of
// arithmetic it declares (gpubench_work.math), and the peak memory bandwidth. For a GPU they
// come from device attributes and a per-architecture table; for the host, from a measurement
// (host_peaks.hpp). A rate above a ceiling, beyond the stated margin, is not a result: the
// timing or the declared work is wrong, and the entry is invalid.
#pragma once

#include <gpubench/plugin.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace gpubench {

struct GpuInfo;

inline constexpr int math_kinds = 6;  // GPUBENCH_MATH_FP32 .. GPUBENCH_MATH_TENSOR_INT8
const char *math_name(gpubench_math math);  // "fp32", "fp64", "tf32 tensor"...
gpubench_math math_from_name(const std::string &name);  // the reverse; FP32 when unknown

struct Roofline {
    std::array<double, math_kinds> flops{};  // FLOP/s by gpubench_math; 0 = unknown
    double bytes_per_s = 0;                  // 0 = unknown
    // One run's bytes up to this size may be served from a cache (GPU L2, host LLC) faster
    // than bytes_per_s: the bandwidth ceiling then does not apply (unless the cache was flushed).
    uint64_t cache_bytes = 0;
    double margin = 0;   // a rate up to (1 + margin) x ceiling is still accepted
    std::string source;  // where the figures come from, for the results file

    double flops_for(gpubench_math math) const;  // 0 when unknown or out of range
};

// Ceilings of a CUDA device from its attributes: FP32/FP64 on the CUDA cores, dense tensor
// rates per SM and clock for the architectures in roofline.cpp's table (others: unknown).
// FP64 is the larger of the CUDA-core and tensor-core rates. Margin 5%: the attributes give
// the boost clock, which a card does not exceed.
Roofline gpu_roofline(const GpuInfo &gpu);


nlohmann::json roofline_json(const Roofline &roofline);
Roofline roofline_from_json(const nlohmann::json &json);  // throws on a malformed object

}  // namespace gpubench
