// Ranks launched together (mpirun, srun) that measure the same sweep, each on its own GPU: a
// plugin whose run() is one collective across them (GPUBENCH_WORK_RUN_ACROSS_RANKS) measures
// each entry with every rank at once. Not under --shard, where each rank measures entries of
// its own. The ranks meet in a folder they all reach, .gpubench-ranks/<id>/ beside the results
// file (or --rank-dir); there each entry across ranks gets a fresh folder, where its plugin
// shares what its ranks need (gpubench/rendezvous.hpp).
#pragma once

#include "shard.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace gpubench {

struct RankWorld {
    uint32_t rank = 0, ranks = 1;
    std::string source;      // the launcher's variables: "OMPI_COMM_WORLD_RANK=1, ..."
    std::string folder;      // where the ranks meet (rank_meeting_folder); "" when alone
    double timeout_s = 60;   // how long a rank waits for the others (--rank-timeout)
    bool together() const { return ranks > 1; }
};

// The world this run is a rank of: from the launcher's variables (launched_rank, the innermost
// launcher's) when they give more than one rank and `sharded` is false; nullopt otherwise,
// also where they are half set or not numbers (a batch script's leftovers, say: this run is
// then alone, as without them).
std::optional<RankWorld> launched_world(const EnvironmentLookup &environment, bool sharded);

// <base>/.gpubench-ranks/<16 hex digits>: a hash of the launcher's job identity
// (launcher_job_identity) and the number of ranks, alike on every rank of one job.
std::filesystem::path rank_meeting_folder(const std::filesystem::path &base, const std::string &job_identity,
                                          uint32_t ranks);

// The folder of one entry's measurement in the meeting folder: <the entry's hash_hex()>-
// <occurrence> (the occurrence counts that entry's measurements in this sweep, from 1),
// so that every communicator gets a folder no earlier one used.
std::filesystem::path entry_rendezvous(const std::filesystem::path &meeting, const EntryIdentity &entry,
                                       unsigned occurrence);

// Folders that ranks meet in (these, and the shard barrier's) stay after their job, as no rank
// knows that it is the last to read them: each job removes those beside `folder` untouched for
// a day (their files' times counted). Never throws: what another rank removed, or what is not
// ours to remove, is left alone.
void remove_stale_siblings(const std::filesystem::path &folder);

}  // namespace gpubench
