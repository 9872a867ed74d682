// The timed part of an entry: warm-up cycles, then samples of upload / run / download until
// the stopping rule is met. Along the way it checks that the device work of each timed phase
// ended with its span (a share of the calls), and that memory does not grow with the runs.
#pragma once

#include "leak_watch.hpp"
#include "measure.hpp"
#include "plugin_instance.hpp"
#include "resource_watch.hpp"

#include <string>
#include <vector>

namespace gpubench {

// A check failed that makes the entry an error or invalid, not a measurement (a leak, device
// work outside the runner's stream).
struct EntryProblem {
    EntryStatus status;
    std::string message;
};

// When sampling stops: at least min_samples and min_time of measured time, and the median's
// relative standard error below max_noise (when > 0); at most max_samples or max_time.
// Returns the reason it stops, or "" to go on; sets noise and converged when it stops.
struct StopRule {
    size_t min_samples, max_samples;
    double min_time_s, max_noise, max_time_s;
    std::string check(const std::vector<double> &samples, double measured_s, double elapsed_s,
                      double &noise, bool &converged) const;
};

// Device work that outlives its span by more than this is outside the runner's stream:
// max(stream_escape_floor_s, stream_escape_share x the span), at every check (the least of
// the drains): another process's kernels on the same GPU delay some checks, not all.
inline constexpr double stream_escape_floor_s = 100e-6;
inline constexpr double stream_escape_share = 0.10;
inline constexpr size_t audit_every = 4;  // every 4th sample is checked (and every warm-up)

// Runs the warm-up and the samples into `result`. Throws EntryProblem for a leak (found
// while sampling, so it stops before memory runs out) and PluginFailure for a failed call;
// `runs_done` says how many run() calls completed, for the caller's out-of-memory verdict.
void sample(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
            PhaseTimer &timer, EntryResult &result, const StageObserver &stage,
            ResourceWatch &watch, LeakWatch &leaks, size_t &runs_done);

}  // namespace gpubench
