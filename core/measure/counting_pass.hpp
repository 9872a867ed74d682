// The counting pass (--counters): after the timed samples, one more cycle whose run() the
// entry's counter source counts (hardware_counters.hpp). It is never timed and never a
// sample, so the counters cost the timed samples nothing.
#pragma once

#include "measure.hpp"
#include "plugin_instance.hpp"

namespace gpubench {

// Counts one upload, reset, run() and download of `instance` and returns the counters, per
// run(); result.counters says which source read them, or why none could ("not read: ...").
std::vector<Metric> count_one_run(Instance &instance, const gpubench_plugin &api, PhaseTimer &timer,
                                  EntryResult &result);

}  // namespace gpubench
