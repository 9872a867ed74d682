// Hardware counters of one run(), read in a counting pass of their own after the timed
// samples (--counters), so that they never disturb a timed sample: what the hardware says
// the call did (bytes moved, instructions, flops), beside what the plugin declared. Each is
// recorded as one of the runner's measured metrics ("dram_read_bytes_per_run", B).
//
// Where they come from: GPUBENCH_FAKE_COUNTERS (a test hook: a JSON object of counter names
// and values, read for every entry, so that the plumbing is tested with no GPU and no PMU);
// else, for a CPU entry, perf_event_open (cycles, instructions, last-level cache misses of
// every thread of the worker); for a GPU entry, CUPTI's range profiler (gpu_counters.hpp).
// Where none can read them, the entry records why in one line and nothing else changes.
#pragma once

#include "gpubench/descriptor.hpp"

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

}  // namespace gpubench
