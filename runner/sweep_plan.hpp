// Planning a sweep: the command line, which stays as parsed, resolved against this machine into
// a plan (devices, this rank's share of the host, the shard, --resume, the results file named,
// the options entries are measured with), the plugins found and chosen, and the entries to
// measure. What comes after plan_sweep reads the plan, never the command line's --shard,
// --resume or --output. Each step prints its notes and throws CommandFailure (cli.hpp) where
// the sweep cannot go on. Then measure_sweep (sweep_command.cpp) measures the entries.
#pragma once

#include "cli.hpp"
#include "gpu.hpp"
#include "host_share.hpp"
#include "plugin_catalog.hpp"
#include "shard_plan.hpp"
#include "sharding.hpp"
#include "sweep.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// What the command line asks for, decided against this machine before any plugin is looked at.
struct SweepPlan {
    // The command line's options as entries are measured with them: its devices chosen
    // (cuda_device, cuda_devices), this rank's threads (unless --threads), the default sweep's
    // 1 s max_time_s (unless --max-time), the stream audit and the held stream off under
    // --sanitize, and where ranks launched together meet (world.folder).
    MeasureOptions measure;
    std::vector<std::string> plugin_patterns;  // --plugin's, or the plugins of a resumed file's plan
    std::optional<ShardSpec> shard;        // --shard: this run measures that shard's entries
    std::string shard_costs;               // --shard-costs: earlier results or a history; "" = none
    std::string resume;                    // --resume: the results file continued; "" = none
    std::string output;                    // the results file named: --output, else --resume's;
                                           // "" = the default name (sweep_results.hpp)
    bool all_devices = false;              // every GPU here: --devices all, or the default sweep's
    std::optional<ResumedPlan> resumed;    // --resume of a file that records its plan
    bool default_sweep = false;            // neither --plugin nor --sizes (nor a resumed one's)
    std::optional<HostShare> rank_share;   // this rank's share of the host, taken
    double budget_s = 0;                   // --budget, or the default sweep's; 0: none
    std::filesystem::path runner_file;     // this executable (plugins are found beside it)
};

// Checks the plugin folders, reads the plan of a resumed file, chooses the devices, takes
// this rank's share of the host (binding this process to it) and, for a sweep, starts CUDA
// on the sweep's GPUs alone (narrow_own_devices).
SweepPlan plan_sweep(const CommandLine &cli);

// The runner's plugin search: the folder beside `runner_file`, `plugin_dirs` and
// GPUBENCH_PLUGIN_PATH (its warnings on stderr, after "`who`: warning: "), scanned through the
// scan cache. A sweep and runner check both search so.
PluginSearch runner_plugin_search(const std::filesystem::path &runner_file,
                                  const std::vector<std::string> &plugin_dirs, bool allow_insecure,
                                  const std::string &who);

// The plugins in the search path (warnings on stderr); with --plugin and without --list,
// only the files named like a pattern are scanned.
PluginCatalog find_plugins(const CommandLine &cli, const SweepPlan &plan);

struct SweepSelection {
    std::optional<GpuInfo> probed;             // the GPU's answer, when the default sweep asked
    std::vector<const PluginInfo *> plugins;   // into the catalog
};

// --plugin's plugins, or (the default sweep) those that can run here, each left out with a
// note; a --param key that none of them reads is a failure.
SweepSelection select_sweep_plugins(const CommandLine &cli, const SweepPlan &plan, PluginCatalog &catalog);

struct PlannedEntries {
    SweepEntries entries;              // what this run measures, in order
    std::optional<ShardRecord> shard;  // a new --shard's plan: the results file's "shard" record
};

// The selection's entries: a resumed file's plan, else every size and parameter setting of
// the command line, cut to this shard's part under --shard (notes printed; sharding.cpp).
PlannedEntries plan_entries(const CommandLine &cli, const SweepPlan &plan,
                            const std::vector<const PluginInfo *> &plugins);

// The runner's device `device` (its index as --device and --devices name it), described
// where this process shows it (narrow_own_devices), and recorded with that index: from the
// GPU description cache where it holds the device (never with `reprobe`: --reprobe-gpus),
// else probed through CUDA (gpu_description_cache.hpp).
GpuInfo probe_runner_gpu(int device, bool reprobe);

// `runner [options]` without --list: starts the first worker, opens the results file
// (sweep_results.hpp), prints the table as entries finish and the summary, and returns the
// exit status. `started`: when the runner started (the summary's time). Throws
// CommandFailure for what stops the sweep before its first entry.
int measure_sweep(const CommandLine &cli, const SweepPlan &plan, PluginCatalog &catalog,
                  const std::vector<std::string> &command_line, std::chrono::steady_clock::time_point started);

}  // namespace gpubench
