// What an entry of a sweep is predicted to cost in wall time, at fixed nominal rates: the
// shards' plan (shard_costs.hpp), the order in which --devices lanes take plugins and the
// default sweep's budget (sweep_budget.hpp) all plan with it. The rates are constants, not
// measured here, so that every shard computes the same plan on any machine; where a sweep has
// measured something better (sweep_budget.hpp) it uses that instead.
#pragma once

#include "measure.hpp"
#include "plugin_info.hpp"

#include <gpubench/plugin.hpp>

#include <string>

namespace gpubench {

// Nominal seconds of an entry of a plugin on `device` whose run() declares `work`: a fixed
// 0.05 s (worker request), the set-up and verification of its host_bytes at 0.5 GB/s, plus
// warm-up and sampling by the sampling rule
// of `options` (at least min_samples runs and min_time_s of run time, at most max_samples
// runs and max_time_s), one run() taking flops / 1e13 + bytes / 1e12 seconds, or items /
// 1e10 when it declares neither; a CPU plugin's at a hundredth of those rates.
double nominal_entry_s(const Work &work, gpubench_device_kind device, const MeasureOptions &options);

// An entry whose work is unknown, as the sampling rule bounds it: the fixed part plus
// max_time_s of sampling.
double nominal_unknown_entry_s(const MeasureOptions &options);

// What a plugin's worker costs before its first entry, paid once per worker (a shard or a
// lane that takes any of the plugin's entries pays it): the process and the plugin's load,
// a CUDA context, a Python interpreter with its imports, and the first compilation of a JIT
// compiler the script imports (numba, cupy: its build record's "imports").
struct StartCost {
    double seconds = 0;
    std::string parts;  // "worker 0.05 s + CUDA context 0.5 s + Python 1 s + numba 2 s"
    std::string kind;   // what plugins of one kind share, to learn from: "CUDA Python numba"
};
StartCost nominal_start_cost(const PluginInfo &plugin);

}  // namespace gpubench
