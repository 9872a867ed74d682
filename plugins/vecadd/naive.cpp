// The baseline: the obvious loop on one thread. -O3 may vectorise it; that is still what a
// plain C++ loop gets.
#include "vecadd_common.hpp"

namespace {

const gpubench::BackendSpec kNaive{
    "vecadd_naive", "naive", GPUBENCH_DEVICE_CPU,
    "c = a + b, the obvious loop on one CPU thread (the compiler may vectorise it); up "
    "to 1e9 elements (about 1 s per run, 12 GB)",
    1'000'000'000, {1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}};

struct NaiveLoop {
    static void add(const float *a, const float *b, float *c, size_t n, int /*threads*/) {
        for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    }
    static void increment(float *a, size_t n, int /*threads*/) {
        for (size_t i = 0; i < n; ++i) a[i] += 1.0f;
    }
};

using NaivePlugin = vecadd::HostProblem<kNaive, NaiveLoop>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, vecadd::make_info(kNaive))
