// gpubench_work.launches for a workload whose run() is a loop of steps: each GPU backend's
// device operations (kernels, library calls, copies) per step, as the runner's device trace
// counts them (stream_audit.traced.run_operations in a results file); a CPU backend issues
// none. The runner's plans predict a run() of many small operations from the count.
#pragma once

#include <gpubench/backend_spec.hpp>

#include <initializer_list>
#include <string_view>
#include <utility>

namespace gpubench {

struct BackendLaunches {
    std::string_view backend;  // BackendSpec::backend: "cuda", "cublas", "cupy"...
    double per_step, once;     // per step of the loop, and around it
};

// `steps` times the named backend's count per step, plus its fixed part; 0 for a CPU backend
// or one not listed.
inline double device_launches(const BackendSpec &spec, double steps,
                              std::initializer_list<BackendLaunches> counts) {
    if (spec.device_kind != GPUBENCH_DEVICE_CUDA) return 0;
    for (const BackendLaunches &count : counts)
        if (count.backend == spec.backend) return steps * count.per_step + count.once;
    return 0;
}

}  // namespace gpubench
