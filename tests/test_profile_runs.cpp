// Runs made for profilers: --profile's fixed count of run() calls with nothing around them,
// its entries kept out of comparisons, and the NVTX ranges' names (nvtx_range.hpp).
#include "nvtx_range.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace gpubench;
using namespace runner_process;
namespace fs = std::filesystem;

namespace {

// "<size> <runs>" lines fixture_common's destroy() appends: how often each instance ran.
std::map<uint64_t, uint64_t> run_calls(const fs::path &log) {
    std::map<uint64_t, uint64_t> calls;
    std::ifstream in(log);
    for (uint64_t size, runs; in >> size >> runs;) calls[size] += runs;
    return calls;
}

}  // namespace

TEST_CASE("runner --profile: one warm-up, then exactly --runs calls of run(), nothing else", "[cli][profile]") {
    test_support::TempFolder folder;
    const fs::path results = folder.path() / "profile.json", log = folder.path() / "runs.log";
    Outcome o = run_command("FIXTURE_RUN_LOG=" + log.string() + " " GPUBENCH_RUNNER " " + fixtures() +
                            " --plugin fixture_good --sizes 10,1000 --profile --runs 7 -o " + results.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    // The plugin's own count: the warm-up and the 7, no audited, traced or per-launch call.
    CHECK(run_calls(log) == std::map<uint64_t, uint64_t>{{10, 8}, {1000, 8}});
    const nlohmann::json doc = read_json(results);
    const nlohmann::json &options = doc["options"];
    CHECK(options["profile_runs"] == 7);
    CHECK(options["min_samples"] == 7);
    CHECK(options["max_samples"] == 7);
    CHECK(options["hold_stream"] == false);
    CHECK(options["audit_streams"] == false);
    CHECK(options["audit_threads"] == false);
    CHECK(options["trace_device"] == false);
    REQUIRE(doc["entries"].size() == 2);
    for (const nlohmann::json &entry : doc["entries"]) {
        CHECK(entry["status"] == "ok");
        CHECK(entry["timing"]["samples"]["run"].size() == 7);
        CHECK(entry["timing"]["warmup_runs"] == 1);
        CHECK(entry["timing"]["profile_runs"] == 7);
        CHECK(entry["timing"]["stop_reason"] == "a profile run (--profile): exactly 7 calls of run() (--runs)");
        // "profile", and no flag of the run's own making; a busy or throttled host may add its own.
        const std::set<std::string> host_conditions = {"contended", "throttled", "gpu_shared", "noisy"};
        bool profile_flag = false;
        for (const std::string flag : entry["flags"]) {
            INFO("flag " << flag);
            profile_flag = profile_flag || flag == "profile";
            CHECK((flag == "profile" || host_conditions.count(flag) == 1));
        }
        CHECK(profile_flag);
    }
    CHECK_THAT(o.output, Catch::Contains("profile"));

    // A measured sweep of the same entries: its count is the sampling rule's, and no flag.
    const fs::path measured = folder.path() / "measured.json";
    fs::remove(log);
    Outcome m = run_command("FIXTURE_RUN_LOG=" + log.string() + " " GPUBENCH_RUNNER " " + fixtures() +
                            " --plugin fixture_good --sizes 10,1000 --min-samples 20 --max-samples 20 --max-noise 0 -o " +
                            measured.string());
    REQUIRE(m.status == 0);
    CHECK(run_calls(log).at(10) > 20);  // the warm-up, 20 samples and the thread audit's calls
    const nlohmann::json measured_doc = read_json(measured);  // kept: the loop reads into it
    for (const nlohmann::json &flag : measured_doc["entries"][0]["flags"]) CHECK(flag != "profile");

    // Neither compare nor the history takes a profile run, in either place, and nothing is left
    // behind by the refusal.
    for (const std::string &pair : {measured.string() + " " + results.string(), results.string() + " " + measured.string()}) {
        Outcome refused = run_runner("compare " + pair);
        CHECK(refused.status == 2);
        CHECK_THAT(refused.output, Catch::StartsWith("runner compare: error: " + results.string() +
                                                     ": entry fixture_good 10 is a profile run (--profile): its "
                                                     "times are not a measurement, and runner compare takes none"));
    }
    CHECK(run_runner("compare " + measured.string() + " " + measured.string()).status == 0);
    const fs::path db = folder.path() / "history.sqlite";
    Outcome history = run_runner("history add " + results.string() + " --db " + db.string());
    CHECK(history.status == 2);
    CHECK_THAT(history.output, Catch::Contains("is a profile run (--profile)"));
    CHECK_FALSE(fs::exists(db));
    CHECK(run_runner("history add " + measured.string() + " --db " + db.string()).status == 0);
}

TEST_CASE("runner --profile: the options it replaces are refused beside it, --runs needs it", "[cli][profile]") {
    const std::string plugin = fixtures() + " --plugin fixture_good --sizes 10 ";
    for (const char *option : {"--min-samples 5", "--max-samples 5", "--min-time 1", "--max-time 1",
                               "--max-noise 0.01", "--budget 10"}) {
        Outcome o = run_runner(plugin + "--profile " + option);
        INFO(option << ": " << o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::StartsWith("runner: error: --profile makes exactly --runs calls of run(): " +
                                               std::string(option).substr(0, std::string(option).find(' ')) +
                                               " has no place beside it"));
    }
    Outcome alone = run_runner(plugin + "--runs 3");
    CHECK(alone.status == 2);
    CHECK_THAT(alone.output, Catch::StartsWith("runner: error: --runs counts the run() calls of --profile: it needs --profile"));
    Outcome zero = run_runner(plugin + "--profile --runs 0");
    CHECK(zero.status == 2);
    CHECK_THAT(zero.output, Catch::StartsWith("runner: error: --runs must be at least 1"));
    // What a profiler may still want is accepted: --cold, --warmup, --no-nvtx.
    test_support::TempFolder folder;
    const fs::path results = folder.path() / "cold.json";
    Outcome kept = run_runner(plugin + "--profile --runs 2 --warmup 0 --cold --no-nvtx -o " + results.string());
    INFO(kept.output);
    CHECK(kept.status == 0);
    const nlohmann::json doc = read_json(results);
    CHECK(doc["options"]["cold"] == true);
    CHECK(doc["options"]["nvtx"] == false);
    CHECK(doc["entries"][0]["timing"]["warmup_runs"] == 0);
    CHECK(doc["entries"][0]["timing"]["samples"]["run"].size() == 2);
}

TEST_CASE("NVTX ranges are named after the entry and the phase, once each", "[profile]") {
    CHECK(nvtx_entry_label("vecadd_cuda", 100000000, "") == "vecadd_cuda 1e+08");
    CHECK(nvtx_entry_label("matmul_cuda", 4096, "dtype=float64") == "matmul_cuda 4096 dtype=float64");
    EntryRanges ranges(nvtx_entry_label("vecadd_cuda", 1000, ""));
    const char *run = ranges.name("run");
    CHECK(std::string(run) == "vecadd_cuda 1000 run");
    for (const char *phase : {"setup", "upload", "reset", "download", "verify", "metrics", "teardown"})
        CHECK(std::string(ranges.name(phase)) == std::string("vecadd_cuda 1000 ") + phase);
    CHECK(ranges.name("run") == run);  // made once, and where it was after the others
    CHECK(std::string(run) == "vecadd_cuda 1000 run");
    ranges.set_warm_up(true);  // the warm-up's own names: a filter on "... run" leaves them out
    CHECK(std::string(ranges.name("run")) == "vecadd_cuda 1000 warmup run");
    CHECK(std::string(ranges.name("upload")) == "vecadd_cuda 1000 warmup upload");
    ranges.set_warm_up(false);
    CHECK(ranges.name("run") == run);
    EntryRanges short_label("a 1");  // names short enough to sit inside their strings
    const char *a = short_label.name("run");
    for (const char *phase : {"setup", "upload", "reset", "download", "verify", "metrics", "teardown"})
        short_label.name(phase);
    CHECK(short_label.name("run") == a);
    CHECK(std::string(a) == "a 1 run");
    EntryRanges none("");  // --no-nvtx
    CHECK(none.name("run") == nullptr);
    const NvtxRange nothing(nullptr);  // pushes nothing, pops nothing
}
