// Which entries a run measures when sweeps are sharded: this shard's part of the command
// line's sweep (--shard, --shard-costs), or, resuming a shard's or a merged file, the
// entries that file was planned to hold.
#pragma once

#include "cli.hpp"
#include "plugin_info.hpp"
#include "shard_plan.hpp"
#include "sweep.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct ResumedPlan {
    std::vector<EntryIdentity> entries;  // in sweep order
    bool default_sweep = false;     // the file was written by the default sweep
    nlohmann::json planned;         // a shard's file: the whole sweep's plan; else null
};

// Resuming `file` (--resume) as shard `shard` (--shard, or none): when the file records a plan
// and the command line names no --plugin or --sizes, the entries it was planned to hold (a
// shard's own, or a merged file's whole sweep); nullopt when the command line's sweep is to be
// run. Throws std::runtime_error, one line, when the file cannot be read, or `shard`, --param
// or --seed contradict it (its options' param_axes, or params in a file written before them).
std::optional<ResumedPlan> resumed_plan(const std::string &file, const std::optional<ShardSpec> &shard,
                                        const CommandLine &cli);

// The plugins of `entries`, each named once, in order.
std::vector<std::string> plugin_names(const std::vector<EntryIdentity> &entries);

// `entries` with their plugins among `plugins`, each with its planned params; throws
// std::runtime_error naming a plugin that is not among them.
SweepEntries entries_with_plugins(const std::vector<const PluginInfo *> &plugins,
                                  const std::vector<EntryIdentity> &entries);

struct ShardedSweep {
    SweepEntries own;                // this shard's entries, in sweep order
    ShardRecord record;              // the results file's "shard"
    std::vector<std::string> notes;  // entries whose cost could not be estimated, and why
};

// Shard `shard`'s part of `entries`, measured with `options`, balanced by `costs_file`
// (--shard-costs: a results file or a history database; the entries it lacks predicted) when
// given, else by the plugins' declared work, asked of helper processes started from `runner`
// (each within `scan_timeout_s`). The record holds this shard's predicted wall time. Throws
// std::runtime_error, one line, when the costs file cannot be read or is neither a results
// file nor a history.
ShardedSweep shard_sweep(const SweepEntries &entries, const ShardSpec &shard, const std::string &costs_file,
                         const MeasureOptions &options, const std::filesystem::path &runner, double scan_timeout_s);

}  // namespace gpubench
