// Shards launched together as ranks (mpirun, srun, MPICH's hydra) finish together. A launcher
// that aborts the job when one rank exits with a failure would stop the others mid-sweep, so a
// rank about to exit with a non-zero status first waits until every other rank has finished.
// The ranks meet in .gpubench-shards/<id>/ beside the results file: each rewrites <index>.alive
// every few seconds (a heartbeat), then writes <index>.done with its exit status. A waiting
// rank gives up on one whose heartbeat stopped without a .done (it died) or that never appeared
// (on a host that does not share the folder). Nothing here fails a sweep: a folder that
// cannot be written is one warning, and no waiting.
#pragma once

#include "shard.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace gpubench {

using BarrierClock = std::chrono::steady_clock;

// The barrier's times; tests shorten them.
struct BarrierTimes {
    std::chrono::milliseconds heartbeat{2000};  // how often a rank rewrites its .alive
    std::chrono::milliseconds poll{200};        // how often a waiting rank looks at the folder
    std::chrono::milliseconds silent{30000};    // a heartbeat unchanged this long, no .done: died
    std::chrono::milliseconds absent{60000};    // no .alive this long after the waiter's start
};

// The variable that shortens (or lengthens) the barrier's times: seconds, see below.
inline constexpr const char *shard_grace_variable = "GPUBENCH_SHARD_GRACE_S";

// The default times, or with GPUBENCH_SHARD_GRACE_S=S (seconds, above 0): a rank that never
// appears is waited for S, a silent heartbeat S/2, the heartbeat at most every S/8. A bad value
// leaves the defaults, and `warning` says so in one line.
BarrierTimes shard_barrier_times(const EnvironmentLookup &environment, std::string &warning);

// The launcher's identity of this job, alike in all its ranks and unlike in the next job:
// "NAME=value" lines of those set among SLURM_JOB_ID, SLURM_STEP_ID, OMPI_MCA_ess_base_jobid,
// PMIX_NAMESPACE, PMI_JOBID and PMI_KVSNAME; "" when none is.
std::string launcher_job_identity(const EnvironmentLookup &environment);

// The barrier folder's name: a short hash (16 hex digits) of the job identity, the shard count
// and the whole sweep's plan (ShardRecord::planned, which every shard computes alike).
std::string shard_barrier_id(const std::string &job_identity, uint32_t count, const nlohmann::json &planned);

// <folder of results_file>/.gpubench-shards/<id>
std::filesystem::path shard_barrier_folder(const std::filesystem::path &results_file, const std::string &id);

// What a waiting rank knows of the others, one look at the folder at a time. Pure: the caller
// reads the folder and gives the time, so that tests run it on a fake clock.
class PeerWatch {
public:
    enum class State { waiting, done, silent, absent };
    struct Sight {                              // one index, one look
        bool done = false;                      // its .done is there
        std::optional<std::string> heartbeat;   // its .alive's content, when there
    };
    // `started`: when this rank's barrier started (the clock of the absent rule).
    PeerWatch(uint32_t self, uint32_t count, BarrierClock::time_point started, const BarrierTimes &times);
    // Takes in one look (sights[i]: index i; this rank's own is ignored), and returns the
    // indices it stopped waiting for as silent or absent.
    std::vector<uint32_t> look(const std::vector<Sight> &sights, BarrierClock::time_point now);
    State state(uint32_t index) const { return peers_.at(index).state; }
    bool settled() const;  // no index is waited for any more

private:
    struct Peer {
        State state = State::waiting;
        std::optional<std::string> heartbeat;  // as last seen
        BarrierClock::time_point changed;      // when it was last seen to change
    };
    BarrierClock::time_point started_;
    BarrierTimes times_;
    std::vector<Peer> peers_;
};

class ShardBarrier {
public:
    struct Place {
        std::filesystem::path folder;  // shard_barrier_folder
        uint32_t index = 0, count = 1;
        // No job identity: a .done left by an earlier job of the same sweep may be there, so
        // one counts only when its rank started at most `absent` before this one.
        bool check_done_times = false;
        std::string kind = "shard";  // what its messages call a rank: "shard", or "rank"
    };
    // Starts the barrier: the folder made, stale sibling folders removed (rank_world.hpp), this
    // rank's .alive written and the heartbeat started. A problem is one warning line on
    // `warnings`, and a barrier that does nothing.
    ShardBarrier(Place place, BarrierTimes times, std::ostream &warnings);
    ShardBarrier(const ShardBarrier &) = delete;
    ShardBarrier &operator=(const ShardBarrier &) = delete;

    bool active() const { return active_; }
    // Ends it: the heartbeat stopped and .done written with `status`. With a status other than
    // 0, waits first (one line on `out` saying so) until every other rank is done, silent or
    // absent (one line each for those), or `stop` says so. Returns `status`.
    int finish(int status, const std::function<bool()> &stop, std::ostream &out);

private:
    std::filesystem::path file(uint32_t index, const char *suffix) const;
    void write_heartbeat(uint64_t beat) const;
    void beat(std::stop_token stop);  // the heartbeat thread
    std::vector<PeerWatch::Sight> look() const;
    void wait_for_others(int status, const std::function<bool()> &stop, std::ostream &out);

    Place place_;
    BarrierTimes times_;
    std::ostream &warnings_;
    bool active_ = false;
    BarrierClock::time_point started_;
    int64_t started_unix_ms_ = 0;
    std::jthread heartbeat_;  // last: stopped and joined before the members it reads go
};

}  // namespace gpubench
