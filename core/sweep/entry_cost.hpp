// What an entry of a sweep is predicted to cost in wall time, for the shards' plan, the --devices
// lanes' order and the default sweep's budget: at constant rates, so that every shard computes
// the same plan, about those of the studies' H100 host (docs/scale-out.md, "Costs").
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

// An entry whose work is unknown, as the sampling rule bounds it: the fixed part and max_time_s.
double nominal_unknown_entry_s(const MeasureOptions &options);

// What a plugin's worker costs before its first entry, paid once per shard or lane that takes
// any: the process, a CUDA context, an interpreter, and the first use of each library its
// script imports (its build record's "imports").
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
