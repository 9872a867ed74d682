// The baseline: the obvious loop on one thread. -O3 may vectorise it; that is still what a
// plain C++ loop gets.
#include "vecadd_common.hpp"

namespace {

struct NaiveLoop {
    static void add(const float *a, const float *b, float *c, size_t n, int /*threads*/) {
        for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    }
    static void increment(float *a, size_t n, int /*threads*/) {
        for (size_t i = 0; i < n; ++i) a[i] += 1.0f;
    }
};

using NaivePlugin = vecadd::HostProblem<vecadd::Backend::naive, NaiveLoop>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, vecadd::make_info(vecadd::Backend::naive))
