// The baseline: the notebook's loops on one thread, accumulating in T. Per block of columns
// the dot products against the residual, then the residual update column by column.
#include "solvebak_common.hpp"

#include <algorithm>

namespace {

const gpubench::BackendSpec kNaive{
    "solvebak_naive", "naive", GPUBENCH_DEVICE_CPU,
    "SolveBak least squares by coordinate descent, plain loops on one CPU thread: "
    "per column a dot product and an update of the residual (obs=2e6 at vars=1000, "
    "10 iterations takes ~30 s and X is 16 GB in float64, so max_size is 2e6)",
    2'000'000, {1'000, 10'000, 100'000}, solvebak::kCpuParams};

template <class T>
class NaiveSolver {
public:
    NaiveSolver(const solvebak::Config &config, const gpubench::Setup &)
        : c_(config), da_(config.batch) {}

    void solve(const T *x, const T *y, const T *x_x, T *e, T *a) {
        const size_t obs = c_.obs;
        std::copy(y, y + obs, e);
        std::fill(a, a + c_.vars, T(0));
        for (size_t iteration = 0; iteration < c_.iterations; ++iteration)
            for (size_t j0 = 0; j0 < c_.vars; j0 += c_.batch) {
                const size_t nb = std::min(c_.batch, c_.vars - j0);
                for (size_t b = 0; b < nb; ++b) {
                    const T *column = x + (j0 + b) * obs;
                    T dot = 0;
                    for (size_t i = 0; i < obs; ++i) dot += column[i] * e[i];
                    da_[b] = dot / x_x[j0 + b];
                }
                for (size_t b = 0; b < nb; ++b) {
                    const T *column = x + (j0 + b) * obs;
                    for (size_t i = 0; i < obs; ++i) e[i] -= da_[b] * column[i];
                    a[j0 + b] += da_[b];
                }
            }
    }

private:
    solvebak::Config c_;
    std::vector<T> da_;
};

template <class T>
using NaiveProblem = solvebak::HostProblem<T, NaiveSolver<T>>;
using NaivePlugin = solvebak::Plugin<kNaive, NaiveProblem>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, solvebak::make_info(kNaive))
