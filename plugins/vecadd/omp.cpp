// All CPU threads: a static `parallel for simd`, whose split matches the one that first
// touched the arrays in vecadd_common (so each thread streams pages on its own NUMA node).
#include "vecadd_common.hpp"

#include <cstdint>

namespace {

const gpubench::BackendSpec kOmp{
    "vecadd_omp", "omp", GPUBENCH_DEVICE_CPU,
    "c = a + b, OpenMP parallel for simd with a static schedule; arrays first touched "
    "by the same split (NUMA placement); up to 1e9 elements (12 GB)",
    1'000'000'000, {1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}};

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

using OmpPlugin = vecadd::HostProblem<kOmp, OmpLoop>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, vecadd::make_info(kOmp))
