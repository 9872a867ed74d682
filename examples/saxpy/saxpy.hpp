// What both saxpy backends share: the inputs, the float64 reference check and the
// descriptor data. y_out = a * x + y_in over n float32 values; y_in is never modified, so
// every run() recomputes the whole result from the same inputs.
#pragma once

#include <gpubench/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace saxpy {

// The scale factor: the "a" parameter (--param a=3), 2 by default.
inline float scale(const gpubench::Params &params) {
    return static_cast<float>(params.get_double("a", 2.0));
}

// Deterministic inputs, a pure function of (n, seed): x and y uniform in [-1, 1).
inline void make_inputs(uint64_t seed, size_t n, float *x, float *y) {
    uint64_t state = seed;
    auto next = [&state] {  // splitmix64
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);  // [-1, 1)
    };
    for (size_t i = 0; i < n; ++i) {
        x[i] = next();
        y[i] = next();
    }
}

// Compares a float32 result with a float64 recomputation. The error of element i is taken
// relative to |a*x| + |y|, the magnitudes the float32 sum rounds against: one float32
// multiply and one add (or a fused multiply-add) stay below 2^-23 of it.
inline gpubench::Verification verify(float a, const float *x, const float *y_in,
                                      const float *y_out, size_t n) {
    gpubench::Verification v;
    v.tolerance = 2.0 * std::numeric_limits<float>::epsilon();
    for (size_t i = 0; i < n; ++i) {
        double ax = static_cast<double>(a) * x[i];
        double reference = ax + y_in[i];
        double magnitude = std::fabs(ax) + std::fabs(static_cast<double>(y_in[i]));
        double error = std::fabs(static_cast<double>(y_out[i]) - reference) /
                       std::max(magnitude, static_cast<double>(std::numeric_limits<float>::min()));
        if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
        v.max_error = std::max(v.max_error, error);
    }
    v.checked = n;
    v.passed = v.max_error <= v.tolerance;
    v.detail = "error relative to |a*x|+|y| vs a float64 recomputation, " + std::to_string(n) +
               " elements";
    return v;
}

// One run() reads x and y_in and writes y_out: 2 flops and 12 bytes per element.
inline gpubench::Work work(uint64_t n, const gpubench::Params &params, bool device) {
    scale(params);  // rejects a malformed "a" before anything is created
    gpubench::Work w;
    w.flops = 2.0 * static_cast<double>(n);
    w.bytes = 12.0 * static_cast<double>(n);
    w.host_bytes = 12.0 * static_cast<double>(n);  // x, y_in and the result on the host
    w.device_bytes = device ? 12.0 * static_cast<double>(n) : 0.0;
    return w;
}

inline gpubench::Info info(const char *name, const char *backend, gpubench_device_kind kind,
                           const char *description) {
    return gpubench::Info{
        name,
        "example_saxpy",
        backend,
        kind,
        description,
        "n: y = a*x + y over n float32 elements",
        "1.0.0",
        "a=<float>: the scale factor (default 2)",
        1,
        uint64_t(1) << 28,  // 3 GiB of inputs and result
        {uint64_t(1) << 10, uint64_t(1) << 14, uint64_t(1) << 18, uint64_t(1) << 22,
         uint64_t(1) << 26},
        nullptr,                 // item_name: none
        GPUBENCH_HEADLINE_AUTO,  // throughput shown first
        "a",                     // the parameter keys it reads, so the runner catches typos
    };
}

}  // namespace saxpy
