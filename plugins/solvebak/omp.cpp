// One OpenMP parallel region for the whole solve. Thread t owns the same slice of rows
// [lo, hi) in every step, so its part of the residual e stays in its own cache and the
// update of e needs no synchronisation: a thread updates exactly the rows it later dots.
// Per block of columns (one column when batch = 1):
//   1. each thread computes the block's dot products over its rows into its slot of
//      `partials`;
//   2. one barrier, the only one per step;
//   3. every thread adds the slots of all threads in the same order, so all get the same da
//      bit for bit without a second barrier, and updates its rows of e; thread 0 updates a.
// The partials are double-buffered by step parity: a thread writes step k+1's while others
// may still read step k's, and it can write step k+2's only after the barrier of step k+1,
// which every thread reaches after it has read step k's.
// With batch = 1 a thread's slice of X_j, read for the dot, is mostly still in its cache for
// the update right after the barrier, so X streams from memory about once per iteration; the
// slices of a block of 100 columns do not fit, and X streams twice (the work model's bytes).
#include "solvebak_common.hpp"

#include <omp.h>

#include <algorithm>

namespace {

const gpubench::BackendSpec kOmp{
    "solvebak_omp", "omp", GPUBENCH_DEVICE_CPU,
    "SolveBak least squares by coordinate descent, one OpenMP region: each thread "
    "owns a slice of the rows (its part of the residual stays in its cache), one "
    "barrier per column step (max_size 2e6: X is 16 GB in float64)",
    2'000'000, {1'000, 10'000, 100'000}, solvebak::kCpuParams};

constexpr size_t kMinRowsPerThread = 4096;  // below this a thread costs more than it saves
constexpr size_t kLine = 64;                // bytes of a cache line

template <class T>
class OmpSolver {
public:
    OmpSolver(const solvebak::Config &config, const gpubench::Setup &setup)
        : c_(config),
          team_(int(std::clamp<size_t>(config.obs / kMinRowsPerThread, 1,
                                       size_t(setup.threads())))),
          // A thread's slot is followed by a whole unused line: no two slots share a line.
          stride_((config.batch * sizeof(T) + kLine - 1) / kLine * kLine / sizeof(T) +
                  kLine / sizeof(T)),
          partials_(2 * size_t(team_) * stride_) {}

    void solve(const T *x, const T *y, const T *x_x, T *e, T *a) {
        const size_t obs = c_.obs;
#pragma omp parallel num_threads(team_)
        {
            const size_t threads = size_t(omp_get_num_threads());
            const size_t me = size_t(omp_get_thread_num());
            const size_t lo = obs * me / threads, rows = obs * (me + 1) / threads - lo;
            T *e_mine = e + lo;
            std::copy(y + lo, y + lo + rows, e_mine);
            if (me == 0) std::fill(a, a + c_.vars, T(0));

            size_t step = 0;
            for (size_t iteration = 0; iteration < c_.iterations; ++iteration)
                for (size_t j0 = 0; j0 < c_.vars; j0 += c_.batch, ++step) {
                    const size_t nb = std::min(c_.batch, c_.vars - j0);
                    T *slots = partials_.data() + (step & 1) * threads * stride_;
                    for (size_t b = 0; b < nb; ++b)
                        slots[me * stride_ + b] = dot(x + (j0 + b) * obs + lo, e_mine, rows);
                    if (threads > 1) {  // uniform across the team; a team of one skips it
#pragma omp barrier
                    }
                    for (size_t b = 0; b < nb; ++b) {
                        T sum = 0;
                        for (size_t t = 0; t < threads; ++t) sum += slots[t * stride_ + b];
                        const T da = sum / x_x[j0 + b];
                        subtract_scaled(e_mine, da, x + (j0 + b) * obs + lo, rows);
                        if (me == 0) a[j0 + b] += da;
                    }
                }
        }
    }

private:
    static T dot(const T *__restrict column, const T *__restrict e, size_t rows) {
        T sum = 0;
#pragma omp simd reduction(+ : sum)
        for (size_t i = 0; i < rows; ++i) sum += column[i] * e[i];
        return sum;
    }
    static void subtract_scaled(T *__restrict e, T scale, const T *__restrict column,
                                size_t rows) {
#pragma omp simd
        for (size_t i = 0; i < rows; ++i) e[i] -= scale * column[i];
    }

    solvebak::Config c_;
    int team_;
    size_t stride_;  // elements between two threads' slots
    std::vector<T> partials_;
};

template <class T>
using OmpProblem = solvebak::HostProblem<T, OmpSolver<T>>;
using OmpPlugin = solvebak::Plugin<kOmp, OmpProblem>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, solvebak::make_info(kOmp))
