// The counting pass (--counters): after the timed samples, one more cycle whose run() the
// entry's counter source counts (hardware_counters.hpp). It is never timed and never a
// sample, so the counters cost the timed samples nothing.
#pragma once

#include "measure.hpp"
#include "plugin_instance.hpp"

namespace gpubench {

// How long an entry's counting may take: 30 times its sampling's limit (--max-time, as a
// budget cut it), within 4-30 s. A GPU's counting takes a dozen passes of some 0.2 s beyond
// the cycle: 2-3 s for most entries, which a sweep's 1 s --max-time would refuse; a budget
// behind its schedule cuts --max-time to some 0.05 s, and a plugin of many Python launches
// (16-27 s on an H100) then keeps to 4 s.
double counting_time_limit_s(double max_time_s);

// Counts one upload, reset, run() and download of `instance` and returns the counters, per
// run(); result.counters says which source read them, or why none could ("not read: ...").
// A source that counts in passes makes the cycle once per pass; where the first pass shows
// that the others would take longer than `time_limit_s`, it stops there and says so.
std::vector<Metric> count_one_run(Instance &instance, const gpubench_plugin &api, PhaseTimer &timer,
                                  Measurement &result, double time_limit_s);

}  // namespace gpubench
