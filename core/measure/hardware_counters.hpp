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

#include <memory>
#include <string>
#include <vector>

namespace gpubench {

// What the counters of a source are called and measured in.
struct CounterKind {
    const char *name;  // the metric: "<name>" as recorded
    const char *unit;
};
const std::vector<CounterKind> &counter_kinds();  // every counter any source reads

class CounterSource {
public:
    virtual ~CounterSource() = default;
    virtual std::string name() const = 0;  // "perf_event_open", "GPUBENCH_FAKE_COUNTERS"
    // Around each pass of the counted call: start_pass() resets and starts the counters;
    // end_pass() stops them and says whether every pass is done. false: the caller restores
    // the call's inputs and makes it again (a GPU counts a few counters a pass). read() then
    // returns what they counted as metrics (measured values, per run()). Each throws
    // std::runtime_error naming what failed.
    virtual void start_pass() = 0;
    virtual bool end_pass() = 0;
    virtual std::vector<Metric> read() = 0;
    virtual size_t passes() const { return 1; }  // how many end_pass() will ask, all told
    virtual std::string caveat() const { return ""; }  // after read(): figures left out, or ""
};

// The source for an entry: the fake where GPUBENCH_FAKE_COUNTERS names a file, else one for
// the entry's device kind (`on_gpu`); nullptr with `why_not` set where none can read them.
// Throws std::runtime_error for a fake file that cannot be read or names an unknown counter.
std::unique_ptr<CounterSource> open_counter_source(bool on_gpu, std::string &why_not);

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
