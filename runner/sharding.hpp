// Which entries a run measures when sweeps are sharded: this shard's part of the command
// line's sweep (--shard, --shard-costs), or, resuming a shard's or a merged file, the
// entries that file was planned to hold.
#pragma once

#include "cli.hpp"
#include "host_share.hpp"
#include "plugin_info.hpp"
#include "results.hpp"
#include "shard_barrier.hpp"
#include "shard_plan.hpp"
#include "sweep.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>
#include <memory>
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

// A shard's file (one with a "shard" record; nothing for others): its actual wall time, this
// process's `seconds` (from its start to its last entry's end) added to what the processes
// before it recorded (--resume). Throws std::runtime_error when the file cannot be written.
void record_shard_wall_time(ResultsFile &results, double seconds);

// Shards launched at once as ranks (ShardSpec::launched_ranks), more than one: the barrier that
// holds a failing rank's exit until the other ranks have finished (shard_barrier.hpp), met
// beside `results_file`, its times from `environment`; nullptr for other shards. `planned`:
// the whole sweep's plan (ShardRecord::planned), alike on every rank. Problems are warnings on
// `warnings`. `kind`: what its messages call a rank ("shard"; "rank" in a world of ranks that
// measure the same sweep, rank_world.hpp).
std::unique_ptr<ShardBarrier> start_shard_barrier(const ShardSpec &shard, const nlohmann::json &planned,
                                                  const std::filesystem::path &results_file,
                                                  const EnvironmentLookup &environment, std::ostream &warnings,
                                                  const std::string &kind = "shard");

// Ranks of one launch on one host (mpirun -np 2 on a host of two GPUs) share it as --devices'
// lanes do: when the launcher left each rank the whole host (mpirun --bind-to none), local
// rank R of L takes the R-th of L equal parts of its CPUs, by whole cores. The local rank and
// count come from OMPI_COMM_WORLD_LOCAL_RANK/_LOCAL_SIZE (Open MPI), MPI_LOCALRANKID/
// MPI_LOCALNRANKS (MPICH's hydra) or SLURM_LOCALID/SLURM_NTASKS_PER_NODE (srun). nullopt when
// there is one rank here, or the launcher already bound it to fewer CPUs than the host has.
std::optional<HostShare> local_rank_share(const EnvironmentLookup &environment);

}  // namespace gpubench
