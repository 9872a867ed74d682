// copy: dst = src over n float32 — no arithmetic, just memory traffic. It is the reference
// the streaming workloads (vecadd) are read against: a vecadd kernel that reaches the
// copy bandwidth of cudaMemcpy (or of a parallel CPU memcpy) cannot get faster.
#pragma once

#include "random_inputs.hpp"

#include <gpubench/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace copy {

inline gpubench::Info make_info(const char *name, const char *backend,
                                gpubench_device_kind kind, const char *description) {
    return gpubench::Info{name, "copy", backend, kind, description,
                          "n: float32 elements copied (dst = src)", "1.0", "", 1,
                          2'000'000'000ull, {1'000, 100'000, 10'000'000, 100'000'000},
                          "elements", GPUBENCH_HEADLINE_BYTES, ""};
}

// Each run reads n floats and writes n floats.
inline gpubench::Work make_work(uint64_t n, bool on_device) {
    gpubench::Work w;
    w.bytes = 2.0 * 4.0 * static_cast<double>(n);
    w.items = static_cast<double>(n);
    w.host_bytes = w.bytes;
    w.device_bytes = on_device ? w.bytes : 0.0;
    return w;
}

// Element i of the source: exact float from the shared deterministic stream.
inline float source_value(uint64_t key, size_t i) {
    return static_cast<float>(gpubench::inputs::symmetric_unit(gpubench::inputs::bits(key, i)));
}

// Every element of dst must equal the source bit for bit.
inline gpubench::Verification verify_copy(uint64_t key, const float *dst, size_t n) {
    gpubench::Verification v;
    uint64_t wrong = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
        const float expected = source_value(key, i);
        if (std::memcmp(&dst[i], &expected, sizeof expected) != 0 && wrong++ == 0) first = i;
    }
    v.checked = n;
    v.max_error = static_cast<double>(wrong);
    v.passed = wrong == 0;
    v.detail = "bitwise comparison of all " + std::to_string(n) + " elements with the source";
    if (wrong) v.detail += "; " + std::to_string(wrong) + " differ, first at " + std::to_string(first);
    return v;
}

}  // namespace copy
