// A sweep: every selected plugin at every size, recorded as each entry finishes. Entries are
// measured in worker processes (worker_pool.hpp) or, with --in-process, in this process
// (entry_measurer.hpp); the caller is told of each entry through a SweepObserver (the
// runner's table and progress line).
#pragma once

#include "entry_identity.hpp"
#include "gpu.hpp"
#include "host_share.hpp"
#include "measure.hpp"
#include "plugin_info.hpp"
#include "results.hpp"
#include "worker_pool.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

namespace gpubench {

// The sweep's entries by status, those already in the results file among them.
struct SweepTally : StatusTally {
    size_t resumed = 0;        // entries already in the results file, not measured again
    bool interrupted = false;  // stopped by SIGINT/SIGTERM; the entry under way is not recorded
};

struct SweepEntry;

class SweepObserver {
public:
    virtual ~SweepObserver() = default;
    virtual void planned(size_t entries) { (void)entries; }
    // `entry` starts in the --devices lane of GPU `lane_gpu`, beside the other lanes' entries;
    // -1: it runs alone. finished() tells which ended by its plugin, size and params.
    virtual void begin(const SweepEntry &entry, int lane_gpu) { (void)entry, (void)lane_gpu; }
    // About 10 times a second while the sweep runs (from a thread of its own, never at the
    // same time as the other calls): a progress line moves during a long entry.
    virtual void tick() {}
    // `entry`, begun, is put back to begin again later (sweep_budget.hpp).
    virtual void put_back(const SweepEntry &entry) { (void)entry; }
    // `params`: the entry's setting ("key=value,...", "" = none).
    virtual void finished(const EntryResult &entry, const std::string &params) { (void)entry, (void)params; }
};

// How a sweep runs: in worker processes or in-process, how workers start, when it started, the
// default sweep's run limit, the wall-time budget and the planner of each lane's share.
struct SweepSetup {
    bool isolated = true;  // false: --in-process (for a debugger; a crash ends the sweep)
    WorkerLaunch launch;   // with isolated; its `interrupted` is polled in both modes
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    // An entry whose run() is predicted (RunBudget) to take longer is skipped. 0: no limit.
    double predicted_run_limit_s = 0;
    // --budget: the wall time to end within (sweep_budget.hpp). 0: none.
    double budget_s = 0;
    // Each lane's share of the host, one per GPU; unset: plan_host_shares. Tests set it.
    std::function<std::vector<HostShare>(const std::vector<GpuInfo> &)> plan_host_shares;
};

// The parameter settings `plugin` is swept over: the cartesian product of the axes it reads
// (its param_names, every axis when it declares none: another key would only repeat its
// entries), "key=value,..." in axis order, the last varying fastest; {""} when it reads none.
// "*" is every value of its declared choice.
std::vector<std::string> param_settings(const ParamAxes &axes, const PluginInfo &plugin);

// What is wrong with --param's values for the plugins that read each key, or "": a value
// outside a plugin's declaration of it (refused before anything is measured), or KEY=* where
// a plugin that reads KEY declares no choice of values for it.
std::string param_values_problem(const std::vector<const PluginInfo *> &plugins, const ParamAxes &axes);

// One entry of a sweep: a plugin at a size with one parameter setting ("" = none). Its size is
// checked against the plugin's range here, once: an entry outside it is recorded as skipped
// with this reason, and nothing downstream (budget, work queries, workers) asks the plugin.
struct SweepEntry {
    SweepEntry() = default;
    SweepEntry(const PluginInfo *plugin, uint64_t size, std::string params)
        : plugin(plugin), size(size), params(std::move(params)),
          out_of_range(size_range_problem(*plugin, size)) {}
    const PluginInfo *plugin = nullptr;
    uint64_t size = 0;
    std::string params;
    std::string out_of_range;  // why the size is outside the plugin's range; "" when inside
    bool counted = true;       // --counters reads its counters (count_series_ends_only)
    bool late = false;         // put back by the lanes: their spare time, not the schedule, decides
    // The entry measured with `seed` (the sweep's --seed); without, in any run.
    EntryIdentity identity(std::optional<uint64_t> seed = std::nullopt) const {
        return {plugin->name, size, params, seed};
    }
};
using SweepEntries = std::vector<SweepEntry>;

// The entries of a sweep, in order: per plugin, per setting (param_settings), `sizes` or the
// plugin's default sizes.
SweepEntries sweep_entries(const std::vector<const PluginInfo *> &plugins,
                           const std::optional<std::vector<uint64_t>> &sizes, const ParamAxes &axes = {});

// Under a budget, --counters counts each series (plugin and params) at its smallest size in
// range, which the budget always measures, and its largest, whose declared bytes stand out most
// against the counted cycle's own traffic (profiling.md).
void count_series_ends_only(SweepEntries &entries);

// Measures `entries` (those the results file does not hold yet: --resume) and adds each to
// `results` as it finishes, with `options` but its own params. `gpus`: the devices it runs on,
// the first options.cuda_device's; CUDA entries where it is unavailable are skipped with why.
// `pool` may already hold a worker for the first entry (WorkerPool::prestart).
//
// With several `gpus` (--devices) and workers, the entries that take one GPU run in lanes, one
// worker per GPU, in LaneQueue's order; CPU entries, which GPU workers beside them would slow
// down, run alone before, and plugins across several GPUs alone after. A lane's worker is bound
// to its share of the host, its cpu_threads at most the share's; every entry of such a sweep
// records its share (host_share).
SweepTally run_sweep(const SweepEntries &entries, const MeasureOptions &options,
                     const std::vector<GpuInfo> &gpus, ResultsFile &results, WorkerPool &pool,
                     const SweepSetup &setup, SweepObserver &observer);

}  // namespace gpubench
