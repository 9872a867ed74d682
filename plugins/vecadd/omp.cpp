// All CPU threads: a static `parallel for simd`, whose split matches the one that first
// touched the arrays in vecadd_common (so each thread streams pages on its own NUMA node).
#include "vecadd_common.hpp"

#include <cstdint>

namespace {

struct OmpLoop {
    static void add(const float *a, const float *b, float *c, size_t n, int threads) {
        const int64_t count = static_cast<int64_t>(n);
#pragma omp parallel for simd schedule(static) num_threads(threads)
        for (int64_t i = 0; i < count; ++i) c[i] = a[i] + b[i];
    }
    static void increment(float *a, size_t n, int threads) {
        const int64_t count = static_cast<int64_t>(n);
#pragma omp parallel for simd schedule(static) num_threads(threads)
        for (int64_t i = 0; i < count; ++i) a[i] += 1.0f;
    }
};

using OmpPlugin = vecadd::HostProblem<vecadd::Backend::omp, OmpLoop>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, vecadd::make_info(vecadd::Backend::omp))
