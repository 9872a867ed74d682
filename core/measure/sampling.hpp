// The timed part of an entry: warm-up cycles, then samples of upload / run / download until
// the stopping rule is met. Along the way it checks that the device work of each timed phase
// ended with its span (a share of the calls), and that memory does not grow with the runs.
#pragma once

#include "check.hpp"
#include "leak.hpp"
#include "plugin_instance.hpp"
#include "resource_watch.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace gpubench {

// When sampling stops: at least min_samples and min_time of measured time, and the median's
// relative standard error below max_noise (when > 0); at most max_samples or max_time.
// Returns the reason it stops, or "" to go on; sets noise and converged when it stops. (An
// entry measured across ranks stops at min_samples instead, on every rank alike.) A GPU entry
// whose board has an energy counter then samples on, past max_samples but never past max_time,
// until its energy window (energy_windows.hpp) has lasted EntryResources::energy_window_min_s
// and ended at a change of the counter: the runs are repeated until the window is long enough.
struct StopRule {
    size_t min_samples, max_samples;
    double min_time_s, max_noise, max_time_s;
    std::string check(const std::vector<double> &samples, double measured_s, double elapsed_s,
                      double &noise, bool &converged) const;
};

// run()'s host time per call is timed on groups of back_to_back_group unheld calls back to
// back, the last of each timed: after a transfer, or any pause, the first calls pay for
// refilling the host's caches (a 10^8 vecadd_cupy call: several times its host time), fading
// over about three calls. The groups are spread over the sampling: up to back_to_back_calls
// timings, within back_to_back_share of its wall time. After the samples they are topped up
// to back_to_back_min_s, and to back_to_back_min_timings where those take at most
// back_to_back_top_up_max_s (a run() of milliseconds: few groups fit in the share, and a
// median of two follows a shared host's slow spells); where not even one group fits, one call.
inline constexpr size_t back_to_back_calls = 32, back_to_back_group = 4, back_to_back_min_timings = 8;
inline constexpr double back_to_back_min_s = 0.02, back_to_back_share = 0.05, back_to_back_top_up_max_s = 0.1;
// The seconds the back-to-back groups (group_s each) may take in all, sampling_s into the
// sampling; `finishing`: the top-up after the samples. Shared with the sweep's cost model.
inline double back_to_back_budget_s(double sampling_s, double group_s, bool finishing) {
    const double share = back_to_back_share * sampling_s;
    if (!finishing) return share;
    const double top_up = std::min(back_to_back_top_up_max_s, double(back_to_back_min_timings) * group_s);
    return std::max({share, back_to_back_min_s, top_up});
}
// How many warm calls precede an unheld sampled run() (sampling.cpp): as many runs of run_s
// as fit in the transfers_s that cooled the host's caches, at most back_to_back_group - 1.
// Shared with the sweep's cost model.
inline size_t warm_calls_fitting(double transfers_s, double run_s) {
    size_t calls = 0;
    while (calls + 1 < back_to_back_group && double(calls + 1) * run_s <= transfers_s) ++calls;
    return calls;
}
inline constexpr size_t audit_every = 4;  // every 4th sample is checked (and every warm-up)

// The extra cycles whose calls are traced (device_trace.hpp), where a tracer is loaded: one
// before the 1st, 4th, 16th, 64th... sample (powers of 4), or one after the last sample when
// sampling ended sooner. Their times are not samples: tracing slows the host's calls several-
// fold and short kernels by a few percent. So an entry pays one extra cycle, a long one a few.
inline constexpr bool traced_cycle(size_t n) {
    return n == 1 || (n >= 4 && (n & (n - 1)) == 0 && (n & 0x5555555555555555ull) != 0);
}
// A traced cycle takes up to about this many times an untraced one (measured on an H100: 2.4x
// for a host-bound run() of 80,000 launches). A traced cycle that, so slowed, would outlast the
// entry's sampling time (--max-time, or its share of a --budget) is not run, except in an
// entry measured across ranks, where every rank runs the same cycles (measure.hpp).
inline constexpr double traced_cycle_slowdown = 2.5;

// Runs the warm-up and the samples into `result`. Throws EntryProblem for a leak (found
// while sampling, so it stops before memory runs out) and PluginFailure for a failed call;
// `runs_done` says how many run() calls completed, for the caller's out-of-memory verdict.
void sample(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
            PhaseTimer &timer, Measurement &result, const StageObserver &stage,
            ResourceWatch &watch, LeakWatch &leaks, size_t &runs_done);

}  // namespace gpubench
