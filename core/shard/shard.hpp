// Splitting one sweep over several processes or machines (--shard I/N): which shard this
// process is, from the command line or from the variables a job launcher sets, and a
// partition of the sweep's entries that every shard computes alike, on any machine.
#pragma once

#include "entry_identity.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// One shard of a sweep: index is 0-based, 0 <= index < count.
struct ShardSpec {
    uint32_t index = 0, count = 1;
    std::string source;  // where it came from: "--shard 1/4", "SLURM_ARRAY_TASK_ID=5 (...)"
    // From a task's rank (SLURM_PROCID, OMPI_COMM_WORLD_*, PMI_*): the shards run at once under
    // a launcher that may stop them all when one exits with a failure (shard_barrier.hpp).
    bool launched_ranks = false;
};

// "1/4": shard `index` of `count`, as messages name it.
std::string shard_text(uint32_t index, uint32_t count);

// Reads an environment variable: its value, or nullopt when it is not set. Injected so that
// tests can resolve "auto" without touching the process's environment.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string &name)>;
EnvironmentLookup process_environment();

// --shard's value: "I/N" (decimal, 0 <= I < N), or "auto": a Slurm array task
// (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT or _MAX, and
// SLURM_ARRAY_TASK_STEP), else launched_rank with `agree`. Throws std::invalid_argument with
// one line on junk, an index out of range, no variable set, or values that contradict.
ShardSpec parse_shard_option(const std::string &text, const EnvironmentLookup &environment);

// A task's rank among the processes its launcher started together, from
// SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE or PMI_RANK/PMI_SIZE
// (index = the rank, count = the world's size, launched_ranks set); nullopt when none is set.
// With `agree` every family present must say the same; without, the innermost launcher's is
// taken: Open MPI's, else MPICH's, else a Slurm step's (SLURM_PROCID with SLURM_STEP_NUM_TASKS,
// which srun sets and a batch script lacks). Throws std::invalid_argument, one line starting
// with `what`, on half a pair, a value not a number, a rank beyond the size, or disagreement.
std::optional<ShardSpec> launched_rank(const EnvironmentLookup &environment, const std::string &what, bool agree);

// Whether the innermost launcher puts all its ranks on this host: OMPI_COMM_WORLD_LOCAL_SIZE =
// OMPI_COMM_WORLD_SIZE, MPI_LOCALNRANKS = PMI_SIZE (MPICH), or SLURM_STEP_NUM_NODES = 1.
bool ranks_on_one_host(const EnvironmentLookup &environment);

}  // namespace gpubench
