// Ranks launched together, end to end: two runner processes with Open MPI's variables (as
// mpirun starts them, without MPI) measure a plugin that works across ranks in lock-step and
// one that does not, each rank alone; the options that go with ranks, refused in one line
// where they make no sense, and noted where the run is alone; and allreduce_nccl on one GPU, skipped with the reason (reachable
// without a GPU: its work() says so before anything runs).
#include "measure.hpp"
#include "plugin_instance.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <string>

using namespace runner_process;
using test_support::metric;
namespace fs = std::filesystem;

namespace {

// No launcher's variables but those a test gives.
const std::string clean_rank_environment =
    "env -u SLURM_ARRAY_TASK_ID -u SLURM_PROCID -u SLURM_NTASKS -u SLURM_STEP_NUM_TASKS -u SLURM_JOB_ID "
    "-u SLURM_STEP_ID -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u OMPI_MCA_ess_base_jobid "
    "-u PMIX_NAMESPACE -u PMI_RANK -u PMI_SIZE -u PMI_JOBID -u PMI_KVSNAME ";

// Rank `rank` of 2, in a job of its own (this test process's).
std::string rank_of_two(int rank) {
    return clean_rank_environment + "OMPI_MCA_ess_base_jobid=gpubench-test-" + std::to_string(getpid()) +
           " OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + " OMPI_COMM_WORLD_SIZE=2 ";
}

const nlohmann::json &entry_of(const nlohmann::json &document, const std::string &plugin, uint64_t size) {
    for (const nlohmann::json &entry : document["entries"])
        if (entry["plugin"] == plugin && entry["size"] == size) return entry;
    FAIL("no entry " << plugin << " " << size);
    return document;
}

}  // namespace

TEST_CASE("two ranks measure a collective plugin in lock-step and the others each alone", "[ranks][cli]") {
    const test_support::TempFolder folder;
    const std::string sweep = " " + fixtures() + " --plugin fixture_ranks,fixture_good --sizes 10,20 --warmup 1 "
                              "--min-samples 4 --max-samples 50 --min-time 0.05 --max-time 0.2 --rank-timeout 20 ";
    std::string launch;
    for (int rank : {0, 1})
        launch += "( " + rank_of_two(rank) + GPUBENCH_RUNNER + sweep + "-o " +
                  (folder.path() / ("rank-" + std::to_string(rank) + ".json")).string() + " > " +
                  (folder.path() / ("rank-" + std::to_string(rank) + ".log")).string() + " 2>&1; echo $? > " +
                  (folder.path() / ("rank-" + std::to_string(rank) + ".end")).string() + " ) & ";
    run_command(launch + "wait");
    for (int rank : {0, 1}) {
        const std::string stem = "rank-" + std::to_string(rank);
        INFO(slurp(folder.path() / (stem + ".log")));
        CHECK(slurp(folder.path() / (stem + ".end")) == "0\n");
        CHECK_THAT(slurp(folder.path() / (stem + ".log")),
                   Catch::Contains("rank " + std::to_string(rank) + " of 2 (OMPI_COMM_WORLD_RANK=" +
                                   std::to_string(rank) + ", OMPI_COMM_WORLD_SIZE=2): plugins that work across "
                                   "ranks measure each entry with all of them; they meet in " +
                                   (folder.path() / ".gpubench-ranks").string()));
        const nlohmann::json document = read_json(folder.path() / (stem + ".json"));
        const nlohmann::json &world = document["options"]["world"];
        CHECK(world["rank"] == rank);
        CHECK(world["ranks"] == 2);
        CHECK(world["timeout_s"] == 20);
        CHECK_THAT(world["folder"].get<std::string>(), Catch::StartsWith((folder.path() / ".gpubench-ranks/").string()));
        CHECK_FALSE(document["options"].contains("rendezvous"));
        for (uint64_t size : {10, 20}) {
            const nlohmann::json &together = entry_of(document, "fixture_ranks", size);
            CHECK(together["status"] == "ok");
            CHECK(together["ranks"] == nlohmann::json({{"rank", rank}, {"ranks", 2}}));
            CHECK(together["timing"]["samples"]["run"].size() == 4);
            CHECK(metric(together, "runs") == 1 + 4);
            const nlohmann::json &alone = entry_of(document, "fixture_good", size);
            CHECK(alone["status"] == "ok");
            CHECK_FALSE(alone.contains("ranks"));
        }
    }
    // Every entry measured across the ranks had a folder of its own in the job's.
    size_t entry_folders = 0;
    for (const fs::directory_entry &job : fs::directory_iterator(folder.path() / ".gpubench-ranks"))
        for (const fs::directory_entry &entry : fs::directory_iterator(job.path()))
            entry_folders += entry.is_directory() ? 1 : 0;
    CHECK(entry_folders == 2);
}

TEST_CASE("ranks' options: refused in one line where they make no sense", "[ranks][cli]") {
    const auto refused = [](const std::string &environment, const std::string &options, const std::string &says) {
        const Outcome o = run_command(environment + GPUBENCH_RUNNER + " " + fixtures() + " --plugin fixture_good " + options);
        INFO(options << ": " << o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::StartsWith("runner: error: " + says));
    };
    refused(clean_rank_environment, "--rank-timeout 0", "--rank-timeout must be above 0");
    refused(rank_of_two(0), "--rank-timeout 0", "--rank-timeout must be above 0");
    refused(rank_of_two(0), "--rank-timeout nan", "--rank-timeout must be a finite number");
    refused(rank_of_two(0), "--rank-timeout 2e6", "--rank-timeout must be at most 1e6");
    refused(rank_of_two(0), "--rank-dir ''", "--rank-dir is empty");
    refused(rank_of_two(1), "--budget 30",
            "--budget: ranks launched together (OMPI_COMM_WORLD_RANK=1, OMPI_COMM_WORLD_SIZE=2) measure the same "
            "entries");
}

TEST_CASE("ranks' options in a run that is alone: noted, no effect", "[ranks][cli]") {
    const test_support::TempFolder folder;
    // A script may start ranks or a single run: alone, or a shard (--shard auto takes the same
    // variables as a shard's), the options are checked and noted, never refused.
    for (const std::string &environment : {clean_rank_environment, rank_of_two(0) + " "}) {
        const std::string shard = environment == clean_rank_environment ? "" : " --shard auto";
        const Outcome o = run_command(environment + GPUBENCH_RUNNER + " " + fixtures() +
                                      " --plugin fixture_ranks --sizes 10 --rank-timeout 5 --rank-dir " +
                                      folder.path().string() + quick + shard + " -o " +
                                      (folder.path() / "alone.json").string());
        INFO(o.output);
        CHECK(o.status == 0);
        CHECK_THAT(o.output, Catch::Contains("note: --rank-dir and --rank-timeout are for ranks launched together "
                                             "(mpirun, srun, without --shard); this run is alone, so they have no "
                                             "effect"));
        const nlohmann::json document = read_json(folder.path() / "alone.json");
        CHECK_FALSE(document["options"].contains("world"));
        CHECK_FALSE(document["entries"][0].contains("ranks"));
        CHECK_FALSE(fs::exists(folder.path() / ".gpubench-ranks"));
    }
}

TEST_CASE("allreduce_nccl on one GPU is skipped with the reason, never timed", "[ranks]") {
    const fs::path file = fs::path(GPUBENCH_PLUGIN_DIR) / "allreduce_nccl.so";
    if (!fs::exists(file)) test_support::skip_test("allreduce_nccl was not built (no NCCL found at configure time)");
    const gpubench::Plugin plugin = test_support::load_file(file);
    // work() alone says so: measured on one GPU (here, with no GPU at all), it is skipped.
    gpubench::SteadyClockTimer timer;
    const gpubench::Measurement e = gpubench::measure_entry(plugin, 4096, test_support::sampled(2, 3), timer);
    CHECK(e.status == gpubench::EntryStatus::skipped);
    CHECK_THAT(e.message, Catch::StartsWith("not supported: ") &&
                              Catch::Contains("an all-reduce needs at least 2 GPUs: --devices 0,1 (or all) in one "
                                              "process, or ranks launched together with a GPU each"));
    CHECK(e.timing.samples.run.empty());
    // On 4 GPUs, from one process or as 4 ranks: bus bytes 2(n-1)/n across the interconnect.
    const gpubench::Work one_process = gpubench::query_work(plugin.api(), 1 << 20, "", 4, 1);
    CHECK(one_process.bytes == Approx(1.5 * (1 << 20)));
    CHECK(one_process.items == 1 << 20);
    CHECK(one_process.flags & GPUBENCH_WORK_BYTES_INTERCONNECT);
    CHECK_FALSE(one_process.flags & GPUBENCH_WORK_RUN_ACROSS_RANKS);
    const gpubench::Work ranks = gpubench::query_work(plugin.api(), 1 << 20, "", 1, 4);
    CHECK(ranks.bytes == Approx(1.5 * (1 << 20)));
    CHECK(ranks.host_bytes == 2 * (1 << 20));  // this process's GPU alone
    CHECK(ranks.flags & GPUBENCH_WORK_RUN_ACROSS_RANKS);
    CHECK(gpubench::query_work(plugin.api(), 1 << 20, "", 2, 2).bytes == Approx(1.5 * (1 << 20)));
    // On 8 GPUs 2 x 7/8, however they are split among processes; on 16, 2 x 15/16.
    for (const auto &[devices, ranks] : {std::pair{8, 1}, std::pair{1, 8}, std::pair{2, 4}, std::pair{4, 2}})
        CHECK(gpubench::query_work(plugin.api(), 1 << 20, "", devices, ranks).bytes == Approx(1.75 * (1 << 20)));
    CHECK(gpubench::query_work(plugin.api(), 1 << 20, "", 8, 1).host_bytes == 16 * (1 << 20));  // 8 GPUs' pinned copies
    CHECK(gpubench::query_work(plugin.api(), 1 << 20, "", 16, 1).bytes == Approx(1.875 * (1 << 20)));
}
