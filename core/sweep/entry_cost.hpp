// What an entry of a sweep is predicted to cost in wall time, at fixed nominal rates: the
// shards' plan (shard_costs.hpp), the order in which --devices lanes take plugins and the
// default sweep's budget (sweep_budget.hpp, until it measures better) all plan with it. The
// rates are constants, so that every shard computes the same plan on any machine: about those
// of the studies' H100 host (docs/scale-out.md, "Costs", says where each comes from).
#pragma once

#include "measure.hpp"
#include "plugin_info.hpp"
#include "sweep.hpp"
#include "work_query.hpp"

#include <gpubench/plugin.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace gpubench {

// Nominal seconds of an entry of `plugin` whose run() declares `work`: a fixed part (the
// worker's request and report), making the inputs and checking the result, the warm-up and
// samples that the sampling rule of `options` takes at the nominal pace of its device and
// language (entry_cost.cpp), and with --counters a GPU entry's counting passes.
double nominal_entry_s(const Work &work, const PluginInfo &plugin, const MeasureOptions &options);
// The same for a compiled plugin (no interpreter) on `device`.
double nominal_entry_s(const Work &work, gpubench_device_kind device, const MeasureOptions &options);

// An entry outside its plugin's sizes: skipped at once, the fixed part alone.
double nominal_skipped_entry_s();

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

// Each entry's declared work on `devices` GPUs (query_declared_work, each query within
// `timeout_s`): one query per plugin and setting, of its sizes within its range (a size outside
// is skipped at once: Work{}). With `notes`, a line for each plugin and setting whose work could
// not be read, and why. Never throws for a plugin's failure.
std::vector<WorkAnswer> ask_declared_work(const SweepEntries &entries, int devices, const std::filesystem::path &runner,
                                          double timeout_s, std::vector<std::string> *notes = nullptr);

}  // namespace gpubench
