// Nothing a plugin does loses the other results: each entry runs in a worker process, the
// results file is complete after every entry, and an interrupted sweep resumes.
#include "plugin_catalog.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"
#include "worker_pool.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <set>
#include <thread>
#include <vector>

using namespace runner_process;

namespace {

std::map<uint64_t, nlohmann::json> entries_by_size(const nlohmann::json &document,
                                                   const std::string &plugin) {
    std::map<uint64_t, nlohmann::json> by_size;
    for (const nlohmann::json &entry : document["entries"])
        if (entry["plugin"] == plugin) by_size[entry["size"].get<uint64_t>()] = entry;
    return by_size;
}

std::set<std::pair<std::string, uint64_t>> entry_keys(const nlohmann::json &document) {
    std::set<std::pair<std::string, uint64_t>> keys;
    for (const nlohmann::json &entry : document["entries"])
        keys.insert({entry["plugin"].get<std::string>(), entry["size"].get<uint64_t>()});
    return keys;
}

}  // namespace

TEST_CASE("every way a plugin can fail is recorded for its entry, and the sweep goes on",
          "[isolation]") {
    auto path = temp_results("misbehave");
    // fixture_misbehave fails one way per size (tests/fixtures/fixture_misbehave.cpp).
    Outcome o = run_runner(fixtures() + " --plugin fixture_misbehave,fixture_good --sizes 1..11:+1" +
                           " --timeout 3" + quick + "-o " + path.string());
    INFO(o.output);
    CHECK(o.status == 1);
    const nlohmann::json document = read_json(path);
    auto bad = entries_by_size(document, "fixture_misbehave");
    REQUIRE(bad.size() == 11);
    const auto message = [&](uint64_t size) { return bad[size]["message"].get<std::string>(); };
    CHECK(bad[1]["status"] == "error");
    if (test_support::sanitized_build) {  // AddressSanitizer reported the crash, and exited
        CHECK_THAT(message(1), Catch::Contains("exited with status 1 in warm-up"));
        CHECK_THAT(o.output, Catch::Contains("ERROR: AddressSanitizer: SEGV"));
    } else {
        CHECK_THAT(message(1), Catch::Contains("crashed in warm-up: SIGSEGV"));
    }
    CHECK_THAT(message(2), Catch::Contains("crashed in warm-up: SIGABRT"));
    CHECK_THAT(message(3), Catch::Contains("exited with status 3 in warm-up without reporting"));
    CHECK_THAT(message(4), Catch::Contains("timed out after 3 s in warm-up"));
    CHECK_THAT(message(5), Catch::Contains("in warm-up: thrown on purpose by fixture_misbehave"));
    CHECK_THAT(message(6), Catch::Contains("exception of unknown type escaped the plugin"));
    CHECK_THAT(message(7), Catch::StartsWith("device error: run: cudaErrorIllegalAddress"));
    CHECK(bad[8]["status"] == "skipped");
    CHECK_THAT(message(8), Catch::StartsWith("out of memory: setup: cannot allocate"));
    CHECK(bad[11]["status"] == "skipped");  // refused up front, from its declared footprint
    CHECK_THAT(message(11), Catch::StartsWith("out of memory: needs ~4.28e+09 GiB of host memory"));
    CHECK(bad[9]["status"] == "verification_failed");
    CHECK(bad[10]["status"] == "ok");
    for (uint64_t size = 1; size <= 7; ++size) CHECK(bad[size]["status"] == "error");
    // The well-behaved plugin of the same sweep, measured after all of that, is intact.
    auto good = entries_by_size(document, "fixture_good");
    REQUIRE(good.size() == 11);
    for (const auto &[size, entry] : good) CHECK(entry["status"] == "ok");
    std::filesystem::remove(path);
}

TEST_CASE("a sweep stopped by SIGINT keeps what it finished, and --resume completes it",
          "[isolation]") {
    const std::string sweep = fixtures() + " --plugin fixture_misbehave,fixture_good" +
                              " --sizes 100..112:+1 --warmup 0 --min-samples 1 --max-samples 1";
    auto whole = temp_results("uninterrupted"), part = temp_results("interrupted");
    std::filesystem::remove(part);
    Outcome uninterrupted = run_runner(sweep + " -o " + whole.string());
    REQUIRE(uninterrupted.status == 0);

    // Start the same sweep, and interrupt it once a few entries are on disk.
    CHECK(interrupt_runner(sweep + " -o " + part.string(), part, 3) == 130);
    const int kept = entries_now(part);
    CHECK(kept >= 3);
    CHECK(kept < 26);  // stopped before the end

    Outcome resumed = run_runner(sweep + " --resume " + part.string());
    INFO(resumed.output);
    CHECK(resumed.status == 0);
    CHECK_THAT(resumed.output, Catch::Contains("already in the file"));
    const nlohmann::json completed = read_json(part);
    CHECK(entry_keys(completed) == entry_keys(read_json(whole)));
    CHECK(completed["entries"].size() == 26);
    CHECK(completed["resumed"].size() == 1);
    std::filesystem::remove(whole);
    std::filesystem::remove(part);
}

TEST_CASE("resuming refuses a file that is not a results file, naming it", "[isolation]") {
    auto path = temp_results("not_results");
    { std::ofstream(path) << "{\"something\": 1}"; }
    Outcome o = run_runner(fixtures() + " --plugin fixture_good --resume " + path.string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("runner: error: cannot resume: ") &&
                             Catch::Contains("is not a gpubench results file"));
    std::filesystem::remove(path);
}

namespace {

// A process's state letter and parent, from /proc/<pid>/stat; state 0 when it is gone.
std::pair<char, pid_t> state_and_parent(const std::string &pid) {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(stat, line) || line.rfind(')') == std::string::npos) return {0, 0};
    // pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    return {state, parent};
}

std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> children;
    for (const auto &item : std::filesystem::directory_iterator("/proc")) {
        const std::string name = item.path().filename();
        if (name.find_first_not_of("0123456789") == std::string::npos &&
            state_and_parent(name).second == parent)
            children.push_back(std::stoi(name));
    }
    return children;
}

// Running or sleeping: a zombie left for a parent that does not reap is dead all the same.
bool alive(pid_t pid) {
    const char state = state_and_parent(std::to_string(pid)).first;
    return state != 0 && state != 'Z' && state != 'X';
}

}  // namespace

TEST_CASE("a worker dies with its runner: SIGKILL the runner and the hanging worker is gone",
          "[isolation]") {
    // fixture_misbehave hangs in run() at size 4; the time-out is far away.
    const pid_t runner = start_runner({"--plugin-dir", GPUBENCH_FIXTURE_DIR, "--plugin",
                                       "fixture_misbehave", "--sizes", "4", "--timeout", "600",
                                       "-o", temp_results("killed").string()});
    std::vector<pid_t> workers;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (workers.empty() && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        workers = children_of(runner);
    }
    REQUIRE(workers.size() == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // well inside its run()
    kill(runner, SIGKILL);
    waitpid(runner, nullptr, 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (alive(workers[0]) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK_FALSE(alive(workers[0]));
    std::filesystem::remove(temp_results("killed"));
    std::filesystem::remove(temp_results("killed").string() + ".journal");  // the killed runner's
}

TEST_CASE("a worker's report beyond its bound, or not JSON, ends only its entry, saying so", "[isolation]") {
    using namespace gpubench;
    PluginCatalog catalog =
        discover_plugins(test_support::search_in({GPUBENCH_FIXTURE_DIR}), {"fixture_misbehave"});
    REQUIRE(catalog.plugins.size() == 1);
    const PluginInfo &plugin = catalog.plugins.front();
    WorkerLaunch launch;
    launch.runner = GPUBENCH_RUNNER;
    launch.timeout_s = 60;
    launch.max_report_line_bytes = 1 << 20;  // fixture_misbehave writes 2 MiB at size 13
    WorkerPool pool(launch);
    const MeasureOptions options = test_support::sampled(1, 1);
    const std::optional<EntryResult> oversized = pool.measure(plugin, 13, options, std::nullopt);
    REQUIRE(oversized);
    CHECK(oversized->status == EntryStatus::error);
    CHECK(oversized->message ==
          "the worker wrote a line longer than 1048576 bytes (the most a report may be) in warm-up");
    const std::optional<EntryResult> malformed = pool.measure(plugin, 14, options, std::nullopt);
    REQUIRE(malformed);
    CHECK(malformed->status == EntryStatus::error);
    CHECK_THAT(malformed->message, Catch::StartsWith("the worker's report in warm-up did not parse: its line is not valid JSON"));
    const std::optional<EntryResult> good = pool.measure(plugin, 12, options, std::nullopt);
    REQUIRE(good);
    CHECK(good->status == EntryStatus::ok);
}
