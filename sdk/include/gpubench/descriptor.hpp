// What crosses the boundary, in C++ form: the descriptor's data (Info), create()'s arguments
// (Setup), and what work(), verify() and metrics() return; and the size check of create().
#pragma once

#include <gpubench/errors.hpp>
#include <gpubench/params.hpp>
#include <gpubench/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

// The descriptor's data, without function pointers.
struct Info {
    const char *name, *workload, *backend;
    gpubench_device_kind device_kind;
    const char *description, *size_meaning, *version, *params_help;
    uint64_t min_size, max_size;
    std::vector<uint64_t> default_sizes;
    const char *item_name = nullptr;  // what Work::items counts; nullptr = none
    gpubench_headline headline = GPUBENCH_HEADLINE_AUTO;  // throughput shown first
    // The keys Params::get reads, comma-separated; "" = none; nullptr = not declared (the
    // runner then cannot catch a mistyped --param for this plugin).
    const char *param_names = nullptr;
    // ABI 1.5: how many GPUs the plugin can work across at once; 1 = a single-device plugin.
    uint32_t max_devices = 1;
    // ABI 1.10: the parameters it reads, declared (gpubench/param_spec.hpp). With them,
    // param_names may stay nullptr: the descriptor then lists their keys.
    std::vector<ParamSpec> params;
};

// create()'s arguments in C++ form.
struct Setup {
    uint64_t size = 0;
    uint64_t seed = 0;
    int cpu_threads = 1;
    int cuda_device = 0;
    void *cuda_stream = nullptr;  // a cudaStream_t; see gpubench/cuda.hpp for a typed accessor
    Params params;
    // ABI 1.5: every device the plugin works on and the stream of each (element 0 is
    // cuda_device and cuda_stream); one device unless Info::max_devices is above 1. Filled
    // from the single device and stream when the runner is older; empty for CPU plugins.
    std::vector<int> cuda_devices;
    std::vector<void *> cuda_streams;
    // ABI 1.7: this process's place among the ranks that measure the entry together (rank
    // 0 of 1 when alone, and with a runner before 1.7), the folder they share for this entry
    // ("" when alone) and how long a rank waits for the others (gpubench/rendezvous.hpp).
    int rank = 0, ranks = 1;
    std::string rendezvous;
    double rank_timeout_s = 60;

    // The CPU threads to use: cpu_threads, at least one.
    int threads() const { return cpu_threads > 0 ? cpu_threads : 1; }
};

struct Work {
    double flops = 0, bytes = 0, host_bytes = 0, device_bytes = 0;
    double items = 0;  // keys, pixels...: counted in Info::item_name
    gpubench_math math = GPUBENCH_MATH_FP32;  // what the flops are (ABI 1.3)
    uint32_t flags = 0;                       // GPUBENCH_WORK_* (ABI 1.3)
    double launches = 0;  // device operations one run() issues (ABI 1.9; 0: not known)
};

// A named figure about the result (see gpubench_metric), with the way it improves (ABI 1.8).
// Strings longer than the C struct's fields are truncated at the boundary.
struct Metric {
    std::string name;
    double value = 0;
    std::string unit;
    std::string text;
    gpubench_better better = GPUBENCH_BETTER_UNSTATED;
};

struct Verification {
    bool passed = false;
    double max_error = 0, tolerance = 0;
    uint64_t checked = 0;
    std::string detail;
};

// The size check every plugin makes in create(): a size outside the descriptor's range is
// NotSupported with the reason (the runner skips those sizes too, but a plugin must not trust
// it).
inline size_t checked_size(const Info &info, uint64_t size) {
    if (size < info.min_size || size > info.max_size)
        throw NotSupported("size " + std::to_string(size) + " is outside " + info.name +
                           "'s range " + std::to_string(info.min_size) + ".." +
                           std::to_string(info.max_size));
    return static_cast<size_t>(size);
}

}  // namespace gpubench
