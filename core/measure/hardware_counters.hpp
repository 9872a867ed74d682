// Hardware counters of one run() (--counters), read in a counting pass after the timed
// samples: one more cycle, never timed and never a sample, so that they cost the samples
// nothing. What the hardware says the call did (bytes moved, instructions, flops), beside what
// the plugin declared, each recorded as a measured metric ("dram_read_bytes_per_run", B).
//
// Where they come from: GPUBENCH_FAKE_COUNTERS (a test hook: a JSON object of counter names
// and values, read for every entry, so that the plumbing is tested with no GPU and no PMU);
// else, for a CPU entry, perf_event_open (cycles, instructions, last-level cache misses of
// every thread of the worker); for a GPU entry, CUPTI's range profiler (gpu_counters.hpp).
// Where none can read them, the entry records why in one line and nothing else changes.
#pragma once

#include "measure.hpp"
#include "plugin_instance.hpp"

#include <string>
#include <vector>

namespace gpubench {

// What the counters of a source are called and measured in.
struct CounterKind {
    const char *name;  // the metric: "<name>" as recorded
    const char *unit;
};
const std::vector<CounterKind> &counter_kinds();  // every counter any source reads

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
