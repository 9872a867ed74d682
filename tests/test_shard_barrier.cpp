// The barrier of shards launched together as ranks (core/shard/shard_barrier.hpp): its folder's
// name, its times, its decisions on a fake clock, the barrier itself on a temporary folder
// with short times, and the runner's ranks under an mpirun-like start (two processes with
// Open MPI's variables): a failing rank exits only once the other has finished.
#include "runner_process.hpp"
#include "shard_barrier.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <thread>

using namespace gpubench;
using namespace std::chrono_literals;
using nlohmann::json;
using test_support::environment;
namespace fs = std::filesystem;

namespace {

BarrierTimes short_times() {
    BarrierTimes times;
    times.heartbeat = 20ms;
    times.poll = 10ms;
    times.silent = 200ms;
    times.absent = 400ms;
    return times;
}

BarrierClock::time_point at(std::chrono::milliseconds time) { return BarrierClock::time_point{} + time; }

PeerWatch::Sight beating(const std::string &beat) { return {false, beat}; }
const PeerWatch::Sight nothing{}, finished{true, std::string("pid 1 beat 3")};

double seconds_since(BarrierClock::time_point start) {
    return std::chrono::duration<double>(BarrierClock::now() - start).count();
}

// No launcher's variables but those a test gives, and the barrier's default times.
const std::string clean_barrier_environment =
    "env -u SLURM_ARRAY_TASK_ID -u SLURM_PROCID -u SLURM_NTASKS -u SLURM_JOB_ID -u SLURM_STEP_ID "
    "-u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u OMPI_MCA_ess_base_jobid -u PMIX_NAMESPACE "
    "-u PMI_RANK -u PMI_SIZE -u PMI_JOBID -u PMI_KVSNAME -u GPUBENCH_SHARD_GRACE_S ";

// Rank `rank` of 2 as Open MPI's mpirun starts it, in the background: its output in
// rank-R.log and, once it has exited, "STATUS NANOSECONDS_SINCE_1970" in rank-R.end.
std::string background_rank(int rank, const std::string &variables, const std::string &arguments,
                            const fs::path &folder) {
    const std::string stem = (folder / ("rank-" + std::to_string(rank))).string();
    return "( " + clean_barrier_environment + variables + " OMPI_COMM_WORLD_RANK=" + std::to_string(rank) +
           " OMPI_COMM_WORLD_SIZE=2 " + GPUBENCH_RUNNER + " " + runner_process::fixtures() + arguments +
           " -o " + stem + ".json >" + stem + ".log 2>&1; echo $? $(date +%s%N) >" + stem + ".end ) & ";
}

struct RankEnd {
    int status = -1;
    double at_s = 0;  // seconds since 1970
};

RankEnd rank_end(const fs::path &folder, int rank) {
    std::istringstream in(runner_process::slurp(folder / ("rank-" + std::to_string(rank) + ".end")));
    RankEnd end;
    long long ns = 0;
    in >> end.status >> ns;
    end.at_s = double(ns) / 1e9;
    return end;
}

double unix_now_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A unique job for each run, as mpirun gives each of its jobs.
std::string open_mpi_job() {
    static int jobs = 0;
    return "OMPI_MCA_ess_base_jobid=" + std::to_string(getpid()) + "0" + std::to_string(++jobs);
}

}  // namespace

TEST_CASE("only a task's rank is a launched rank: not a typed shard, not a Slurm array task", "[shard]") {
    CHECK(parse_shard_option("auto", environment({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}}))
              .launched_ranks);
    CHECK(parse_shard_option("auto", environment({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}})).launched_ranks);
    CHECK(parse_shard_option("auto", environment({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}})).launched_ranks);
    CHECK_FALSE(parse_shard_option("1/2", environment({})).launched_ranks);
    CHECK_FALSE(parse_shard_option("auto", environment({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                                                        {"SLURM_ARRAY_TASK_COUNT", "2"}, {"SLURM_PROCID", "0"},
                                                        {"SLURM_NTASKS", "1"}}))
                    .launched_ranks);
}

TEST_CASE("the barrier's folder: beside the results, named by the job, the shard count and the plan", "[shard]") {
    const json plan = json::parse(R"([{"plugin": "a", "size": 1, "params": "", "seed": 42, "shard": 0, "cost": 1}])");
    const std::string job = launcher_job_identity(
        environment({{"OMPI_MCA_ess_base_jobid", "77"}, {"SLURM_JOB_ID", "5"}, {"OMPI_COMM_WORLD_RANK", "1"}}));
    CHECK(job == "SLURM_JOB_ID=5\nOMPI_MCA_ess_base_jobid=77\n");  // the rank is not the job's
    CHECK(launcher_job_identity(environment({})).empty());
    const std::string id = shard_barrier_id(job, 2, plan);
    CHECK(id.size() == 16);
    CHECK(id == shard_barrier_id(job, 2, plan));  // every rank computes the same
    CHECK(id != shard_barrier_id("OMPI_MCA_ess_base_jobid=78\n", 2, plan));
    CHECK(id != shard_barrier_id(job, 3, plan));
    json other = plan;
    other[0]["size"] = 2;
    CHECK(id != shard_barrier_id(job, 2, other));
    CHECK(shard_barrier_folder("results/shard-0.json", id) == fs::path("results/.gpubench-shards") / id);
    CHECK(shard_barrier_folder("shard-0.json", id) == fs::path("./.gpubench-shards") / id);
}

TEST_CASE("the barrier's times: the defaults, GPUBENCH_SHARD_GRACE_S, and a bad value warned of", "[shard]") {
    std::string warning;
    const BarrierTimes defaults = shard_barrier_times(environment({}), warning);
    CHECK(warning.empty());
    CHECK(defaults.absent == 60s);
    CHECK(defaults.silent == 30s);
    CHECK(defaults.heartbeat == 2s);
    const BarrierTimes shortened = shard_barrier_times(environment({{shard_grace_variable, "4"}}), warning);
    CHECK(warning.empty());
    CHECK(shortened.absent == 4s);
    CHECK(shortened.silent == 2s);
    CHECK(shortened.heartbeat == 500ms);  // several beats within `silent`
    for (const char *bad : {"", "soon", "0", "-3", "nan", "1e9"}) {
        warning.clear();
        INFO(bad);
        CHECK(shard_barrier_times(environment({{shard_grace_variable, bad}}), warning).absent == 60s);
        CHECK_THAT(warning, Catch::StartsWith("GPUBENCH_SHARD_GRACE_S='") &&
                                Catch::Contains("the shard barrier's default times stand"));
    }
}

TEST_CASE("a waiting rank waits for beating ranks, and gives up on the silent and the absent", "[shard]") {
    BarrierTimes times;  // the defaults: silent 30 s, absent 60 s
    PeerWatch watch(1, 4, at(0s), times);
    CHECK(watch.state(1) == PeerWatch::State::done);  // its own index is never waited for
    // 0 beats on, 2 beats once and stops, 3 never appears.
    CHECK(watch.look({beating("0"), nothing, beating("0"), nothing}, at(0s)).empty());
    CHECK(watch.look({beating("1"), nothing, beating("0"), nothing}, at(29s)).empty());
    CHECK(watch.look({beating("2"), nothing, beating("0"), nothing}, at(30s)) == std::vector<uint32_t>{2});
    CHECK(watch.state(2) == PeerWatch::State::silent);
    CHECK(watch.look({beating("3"), nothing, nothing, nothing}, at(59s)).empty());
    CHECK_FALSE(watch.settled());
    CHECK(watch.look({beating("4"), nothing, nothing, nothing}, at(60s)) == std::vector<uint32_t>{3});
    CHECK(watch.state(3) == PeerWatch::State::absent);
    CHECK(watch.state(0) == PeerWatch::State::waiting);  // beating for a minute: still running
    CHECK_FALSE(watch.settled());
    CHECK(watch.look({finished, nothing, nothing, nothing}, at(3600s)).empty());
    CHECK(watch.state(0) == PeerWatch::State::done);
    CHECK(watch.settled());

    // A rank that appears late, within the grace, is waited for; one whose .alive vanished
    // without a .done is silent from its last beat.
    PeerWatch late(0, 2, at(0s), times);
    CHECK(late.look({nothing, beating("0")}, at(50s)).empty());
    CHECK(late.look({nothing, nothing}, at(79s)).empty());
    CHECK(late.look({nothing, nothing}, at(80s)) == std::vector<uint32_t>{1});
    CHECK(late.state(1) == PeerWatch::State::silent);
}

TEST_CASE("the barrier holds a failing rank until the others are done, and neither success nor a stop waits", "[shard]") {
    const test_support::TempFolder temp;
    const fs::path folder = temp.path() / ".gpubench-shards" / "job";
    std::ostringstream warnings, out0, out1;
    ShardBarrier rank0({folder, 0, 2}, short_times(), warnings), rank1({folder, 1, 2}, short_times(), warnings);
    REQUIRE(rank0.active());
    CHECK(fs::exists(folder / "0.alive"));
    const auto start = BarrierClock::now();
    std::thread later([&] {
        std::this_thread::sleep_for(600ms);  // longer than `silent` and `absent`: its heartbeat counts
        rank1.finish(0, [] { return false; }, out1);
    });
    CHECK(rank0.finish(1, [] { return false; }, out0) == 1);
    const double waited = seconds_since(start);
    later.join();
    CHECK(waited >= 0.6);
    CHECK(out1.str().empty());  // status 0: no waiting, nothing said
    CHECK_THAT(out0.str(), Catch::Contains("shard 0/2: waiting for the other shards to finish before exiting "
                                           "with status 1, so that the launcher does not stop them") &&
                               !Catch::Contains("not waiting for it"));
    CHECK(runner_process::slurp(folder / "0.done").rfind("1 ", 0) == 0);
    CHECK(runner_process::slurp(folder / "1.done").rfind("0 ", 0) == 0);
    CHECK(warnings.str().empty());

    // A stop request (SIGINT, SIGTERM) ends the wait at once.
    const fs::path other = temp.path() / ".gpubench-shards" / "other";
    std::ostringstream out;
    ShardBarrier alone({other, 0, 3}, BarrierTimes{}, warnings);
    const auto stopped_at = BarrierClock::now();
    CHECK(alone.finish(130, [] { return true; }, out) == 130);
    CHECK(seconds_since(stopped_at) < 1);
    CHECK_THAT(out.str(), Catch::Contains("shard 0/3: stopped: exiting with status 130 without waiting"));
}

TEST_CASE("the barrier gives up on a rank that died or never came, and cleans up old jobs' folders", "[shard]") {
    const test_support::TempFolder temp;
    const fs::path shards = temp.path() / ".gpubench-shards", folder = shards / "job";
    const fs::path old = shards / "yesterday", recent = shards / "earlier-today";
    for (const fs::path &path : {old, recent}) {
        fs::create_directories(path);
        runner_process::write(path / "0.done", "0 1\n");
    }
    const auto two_days_ago = fs::file_time_type::clock::now() - 48h;
    fs::last_write_time(old / "0.done", two_days_ago);
    fs::last_write_time(old, two_days_ago);
    // Rank 1 beat once and died; rank 2 never came.
    fs::create_directories(folder);
    runner_process::write(folder / "1.alive", "pid 1 beat 0\n");
    std::ostringstream warnings, out;
    // Before the barrier: it counts rank 2's absence from its own start.
    const auto start = BarrierClock::now();
    ShardBarrier rank0({folder, 0, 3}, short_times(), warnings);
    CHECK_FALSE(fs::exists(old));
    CHECK(fs::exists(recent));
    CHECK(rank0.finish(1, [] { return false; }, out) == 1);
    CHECK(seconds_since(start) >= 0.4);
    CHECK_THAT(out.str(), Catch::Contains("shard 0/3: shard 1's heartbeat in " + folder.string() +
                                          " stopped 0.2 s ago without its end (did it die?): not waiting for it") &&
                              Catch::Contains("shard 0/3: shard 2 did not appear in " + folder.string() +
                                              " within 0.4 s (on a host that does not share this folder?)"));
    CHECK(warnings.str().empty());
}

TEST_CASE("without a job identity, a .done of an earlier job is not taken for this one's", "[shard]") {
    const test_support::TempFolder temp;
    const fs::path folder = temp.path() / "job";
    fs::create_directories(folder);
    runner_process::write(folder / "1.done", "0 1000\n");  // its rank started in 1970
    std::ostringstream warnings, out;
    ShardBarrier rank0({folder, 0, 2, true}, short_times(), warnings);
    rank0.finish(1, [] { return false; }, out);
    CHECK_THAT(out.str(), Catch::Contains("shard 1 did not appear"));
}

TEST_CASE("a barrier folder that cannot be made is one warning, and no waiting", "[shard]") {
    const test_support::TempFolder temp;
    runner_process::write(temp.path() / ".gpubench-shards", "a file in the way");
    std::ostringstream warnings, out;
    ShardBarrier rank0({temp.path() / ".gpubench-shards" / "job", 0, 2}, BarrierTimes{}, warnings);
    CHECK_FALSE(rank0.active());
    CHECK(rank0.finish(1, [] { return false; }, out) == 1);
    CHECK(out.str().empty());
    const std::string warned = warnings.str();
    CHECK_THAT(warned, Catch::StartsWith("runner: warning: the shard barrier cannot use ") &&
                           Catch::EndsWith("this shard will not wait for the others before exiting\n"));
    CHECK(std::count(warned.begin(), warned.end(), '\n') == 1);
}

TEST_CASE("ranks started together: a failing rank exits only once the other has finished its share", "[shard]") {
    const test_support::TempFolder folder;
    // Two entries, one a shard: one fails verification at once, the other takes 2.5 s.
    const std::string sweep = " --plugin fixture_bad_verify,fixture_misbehave --sizes 100 --warmup 0 --min-samples 2"
                              " --max-samples 1000 --min-time 2.5 --max-time 3 --max-noise 0 --quiet --shard auto";
    const std::string job = open_mpi_job();
    const double started = unix_now_s();
    runner_process::run_command(background_rank(0, job, sweep, folder.path()) +
                                background_rank(1, job, sweep, folder.path()) + "wait");
    std::map<std::string, int> rank_of;  // by plugin
    for (int rank = 0; rank < 2; ++rank) {
        const json document = runner_process::read_json(folder.path() / ("rank-" + std::to_string(rank) + ".json"));
        INFO(runner_process::slurp(folder.path() / ("rank-" + std::to_string(rank) + ".log")));
        REQUIRE(document["entries"].size() == 1);
        const json &entry = document["entries"][0];
        rank_of[entry["plugin"]] = rank;
        CHECK(entry["status"] == (entry["plugin"] == "fixture_misbehave" ? "ok" : "verification_failed"));
    }
    REQUIRE(rank_of.size() == 2);
    const int failing = rank_of["fixture_bad_verify"], slow = rank_of["fixture_misbehave"];
    const std::string failing_log = runner_process::slurp(folder.path() / ("rank-" + std::to_string(failing) + ".log"));
    const std::string slow_log = runner_process::slurp(folder.path() / ("rank-" + std::to_string(slow) + ".log"));
    INFO(failing_log << "\n" << slow_log);
    const RankEnd failed = rank_end(folder.path(), failing), finished = rank_end(folder.path(), slow);
    CHECK(failed.status == 1);
    CHECK(finished.status == 0);  // undisturbed
    CHECK(finished.at_s - started >= 2.5);
    CHECK(failed.at_s >= finished.at_s - 1);  // without the barrier, 2.5 s before
    CHECK_THAT(failing_log, Catch::Contains("shard " + std::to_string(failing) +
                                            "/2: waiting for the other shards to finish before exiting with status 1"));
    CHECK_THAT(slow_log, !Catch::Contains("waiting"));
}

TEST_CASE("a failing rank whose peer never starts waits for it only the grace time, and SIGTERM ends the wait",
          "[shard]") {
    const test_support::TempFolder folder;
    const std::string failing = " --plugin fixture_bad_verify --sizes 1,2 --warmup 0" + std::string(runner_process::quick);
    const fs::path file = folder.path() / "rank-0.json";
    const auto started = BarrierClock::now();
    const runner_process::Outcome alone = runner_process::run_command(
        clean_barrier_environment + open_mpi_job() +
        " GPUBENCH_SHARD_GRACE_S=1.5 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 " + GPUBENCH_RUNNER + " " + runner_process::fixtures() + failing + " --shard auto -o " + file.string());
    const double took = seconds_since(started);
    INFO(alone.output);
    CHECK(alone.status == 1);
    CHECK(took >= 1.5);
    CHECK(took < 30);
    CHECK_THAT(alone.output, Catch::Contains("shard 0/2: shard 1 did not appear in " + folder.path().string() +
                                             "/.gpubench-shards/") &&
                                 Catch::Contains("within 1.5 s (on a host that does not share this folder?): "
                                                 "not waiting for it"));

    // A typed shard is not one of ranks started together: it never waits.
    const fs::path typed = folder.path() / "typed" / "shard-0.json";
    fs::create_directories(typed.parent_path());
    const runner_process::Outcome own = runner_process::run_runner(runner_process::fixtures() + failing +
                                                                   " --shard 0/2 -o " + typed.string());
    CHECK(own.status == 1);
    CHECK_THAT(own.output, !Catch::Contains("waiting"));
    CHECK_FALSE(fs::exists(typed.parent_path() / ".gpubench-shards"));

    // With the default grace (a minute), SIGTERM ends the wait at once.
    const std::string log = (folder.path() / "stopped.log").string();
    const runner_process::Outcome stopped = runner_process::run_command(
        clean_barrier_environment + open_mpi_job() + " OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 " + GPUBENCH_RUNNER +
        " " + runner_process::fixtures() + failing + " --shard auto -o " + (folder.path() / "stopped.json").string() +
        " >" + log + " 2>&1 & pid=$!; i=0; until grep -q 'waiting for the other shards' " + log +
        "; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.1; done; t=$(date +%s%N); kill -TERM $pid; wait $pid; "
        "echo \"status $? after $(( ($(date +%s%N) - t) / 1000000 )) ms\"");
    const std::string said = runner_process::slurp(log);
    INFO(stopped.output << "\n" << said);
    int ms = -1;
    REQUIRE(std::sscanf(stopped.output.c_str(), "status 1 after %d ms", &ms) == 1);
    CHECK(ms < 2000);
    CHECK_THAT(said, Catch::Contains("shard 0/2: stopped: exiting with status 1 without waiting for the other shards"));
}
