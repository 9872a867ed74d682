// The counting pass (--counters): after the timed samples, one more cycle whose run() the
// entry's counter source counts (hardware_counters.hpp). It is never timed and never a
// sample, so the counters cost the timed samples nothing.
#pragma once

#include "measure.hpp"
#include "plugin_instance.hpp"

namespace gpubench {

// How long an entry's counting may take: a GPU's takes a dozen passes of some 0.2 s beyond
// the cycle. Not --max-time, which is the sampling's (1 s in the default sweep, and a budget
// cuts it further): the budget plans the counting as a cost of its own (entry_cost.hpp).
inline constexpr double counting_time_limit_s = 30;

// Counts one upload, reset, run() and download of `instance` and returns the counters, per
// run(); result.counters says which source read them, or why none could ("not read: ...").
// A source that counts in passes makes the cycle once per pass; where the first pass shows
// that the others would take longer than `time_limit_s`, it stops there and says so.
std::vector<Metric> count_one_run(Instance &instance, const gpubench_plugin &api, PhaseTimer &timer,
                                  EntryResult &result, double time_limit_s);

}  // namespace gpubench
