// Which entries a run measures when sweeps are sharded: this shard's part of the command
// line's sweep (--shard, --shard-costs: plan_entries, sweep_plan.hpp, defined in sharding.cpp),
// or, resuming a shard's or a merged file, the entries that file was planned to hold.
#pragma once

#include "cli.hpp"
#include "entry_identity.hpp"

#include <nlohmann/json.hpp>

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

}  // namespace gpubench
