// What the C++ backends of @WORKLOAD@ share (omp.cpp, cuda.cu): the descriptor's data, the
// declared parameter, the work model, the inputs and the check. The workload: y = a*x over n
// float32 values. x is never written, so every run() computes the whole result again.
#pragma once

#include <gpubench/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace workload {

// The one parameter, --param a=3: declared with its range and default, so that the runner
// lists it, refuses a value outside it before measuring, and `runner check` tries its values.
inline const gpubench::ParamSpec kScale = gpubench::real("a", 2.0, -1000.0, 1000.0, "the scale factor");

inline float scale(const gpubench::Params &params) { return static_cast<float>(params.get_double(kScale)); }

// The inputs, a pure function of (n, seed): x uniform in [-1, 1), in steps of 2^-23.
inline void make_inputs(uint64_t seed, size_t n, float *x) {
    uint64_t state = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);  // splitmix64
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        x[i] = static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);
    }
}

// Compares a float32 result with a float64 recomputation. The product of two float32 values is
// exact in float64, so the result's only error is its rounding to float32: at most 2^-24 of
// |a*x|, or of the smallest normal float32 where |a*x| is below it. The tolerance is twice that.
inline gpubench::Verification verify(float a, const float *x, const float *y, size_t n) {
    gpubench::Verification v;
    v.tolerance = std::numeric_limits<float>::epsilon();
    const double smallest = std::numeric_limits<float>::min();
    for (size_t i = 0; i < n; ++i) {
        const double reference = static_cast<double>(a) * x[i];
        double error = std::fabs(static_cast<double>(y[i]) - reference) / std::max(std::fabs(reference), smallest);
        if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
        v.max_error = std::max(v.max_error, error);
    }
    v.checked = n;
    v.passed = v.max_error <= v.tolerance;
    v.detail = "error relative to |a*x| vs a float64 recomputation, " + std::to_string(n) + " elements";
    return v;
}

// One run() reads x and writes y: 1 flop and 8 bytes per element.
inline gpubench::Work work(uint64_t n, const gpubench::Params &params, bool device) {
    scale(params);  // refuses a value of "a" outside its declaration before anything is created
    const double elements = static_cast<double>(n);
    gpubench::Work w;
    w.flops = elements;
    w.bytes = 8.0 * elements;
    w.items = elements;
    w.host_bytes = 8.0 * elements;  // x and the result on the host
    w.device_bytes = device ? 8.0 * elements : 0.0;
    w.flags = GPUBENCH_WORK_RUN_REPEATABLE;  // run() leaves x intact
    return w;
}

inline gpubench::Info info(const char *name, const char *backend, gpubench_device_kind kind,
                           const char *description) {
    return gpubench::Info{
        name,
        "@WORKLOAD@",  // the workload: its backends are compared side by side
        backend,
        kind,
        description,
        "n: y = a*x over n float32 elements",
        "0.1.0",
        "a=<number from -1000 to 1000> (the scale factor, default 2)",
        1,
        uint64_t(1) << 28,  // 2 GiB of input and result
        {uint64_t(1) << 10, uint64_t(1) << 16, uint64_t(1) << 20, uint64_t(1) << 24},
        "elements",              // what Work::items counts
        GPUBENCH_HEADLINE_AUTO,  // the throughput shown first
        nullptr,                 // param_names: those of `params`
        1,                       // max_devices: one GPU
        {kScale},                // params: each with its type, values and default
    };
}

}  // namespace workload
