// Planning a sweep: the command line resolved against this machine (devices, this rank's share
// of the host, --resume), the plugins found and chosen, and the entries to measure. Each step
// prints its notes and throws CommandFailure (cli.hpp) where the sweep cannot go on.
#pragma once

#include "cli.hpp"
#include "gpu.hpp"
#include "host_share.hpp"
#include "plugin_catalog.hpp"
#include "sharding.hpp"
#include "sweep.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <vector>

namespace gpubench {

// What the command line asks for, before any plugin is looked at.
struct SweepRequest {
    std::optional<ResumedPlan> resumed;    // --resume of a file that records its plan
    bool default_sweep = false;            // neither --plugin nor --sizes (nor a resumed one's)
    std::optional<HostShare> rank_share;   // this rank's share of the host, taken
    double budget_s = 0;                   // --budget, or the default sweep's; 0: none
    std::filesystem::path runner_file;     // this executable (plugins are found beside it)
};

// Checks the plugin folders, reads the plan of a resumed file (its plugins become
// cli.plugin_patterns), chooses the devices (cli.measure) and takes this rank's share of
// the host (cli.measure.cpu_threads unless --threads).
SweepRequest read_sweep_request(CommandLine &cli);

// The plugins in the search path (warnings on stderr); with --plugin and without --list,
// only the files named like a pattern are scanned.
PluginCatalog find_plugins(const CommandLine &cli, const std::filesystem::path &runner_file);

struct SweepSelection {
    std::optional<GpuInfo> probed;             // the GPU's answer, when the default sweep asked
    std::vector<const PluginInfo *> plugins;   // into the catalog
};

// --plugin's plugins, or (the default sweep) those that can run here, each left out with a
// note; a --param key that none of them reads is a failure.
SweepSelection select_sweep_plugins(const CommandLine &cli, PluginCatalog &catalog);

struct PlannedEntries {
    SweepEntries entries;        // what this run measures, in order
    nlohmann::json shard_header; // a new --shard's results "shard" record; else null
};

// The selection's entries: a resumed file's plan, else every size and parameter setting of
// the command line, cut to this shard's part under --shard (notes printed).
PlannedEntries plan_entries(const CommandLine &cli, const SweepRequest &request,
                            const std::vector<const PluginInfo *> &plugins);

// The runner's device `device` (its index as --device and --devices name it), probed where
// this process shows it (narrow_own_devices), and recorded with that index.
GpuInfo probe_runner_gpu(int device);

// The sweep's GPUs, probed: cuda_device's first (`probed` when the caller has it already).
std::vector<GpuInfo> probe_gpus(const MeasureOptions &options, const std::optional<GpuInfo> &probed);

}  // namespace gpubench
