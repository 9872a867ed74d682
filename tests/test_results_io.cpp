// Results files are written safely (core/base/results_io.hpp): never onto something that is not a
// regular file, never through a planted temporary, through a symlink to its target, by one
// runner at a time, and a failed write leaves the last complete file and no temporary.
#include "results_model.hpp"
#include "runner_process.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace runner_process;
namespace fs = std::filesystem;

namespace {

// Temporary files of the writer (<name>.partial-<pid>-<random>) left next to `path`.
bool temporaries_beside(const fs::path &path) {
    for (const auto &item : fs::directory_iterator(path.parent_path()))
        if (item.path().filename().string().rfind(path.filename().string() + ".partial-", 0) == 0)
            return true;
    return false;
}

}  // namespace

TEST_CASE("a results path that is not a regular file is refused in one line", "[results-io]") {
    const fs::path dir = temp_results("a_folder");
    fs::create_directories(dir);
    Outcome folder = run_runner(fixtures() + " --plugin fixture_good --sizes 5" + quick + "-o " + dir.string());
    CHECK(folder.status == 2);
    CHECK_THAT(folder.output, Catch::Contains("is not a regular file"));
    CHECK(fs::is_directory(dir));
    fs::remove_all(dir);
    const fs::path fifo = temp_results("a_fifo");
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    Outcome pipe = run_runner(fixtures() + " --plugin fixture_good --sizes 5" + quick + "-o " + fifo.string());
    CHECK(pipe.status == 2);
    CHECK_THAT(pipe.output, Catch::Contains("is not a regular file"));
    CHECK(fs::is_fifo(fifo));
    fs::remove(fifo);
}

TEST_CASE("a planted <output>.partial link is never followed, and --resume through a link updates its target",
          "[results-io]") {
    const fs::path out = temp_results("planted"), victim = temp_results("victim");
    { std::ofstream(victim) << "precious"; }
    fs::path planted = out;
    planted += ".partial";
    fs::create_symlink(victim, planted);
    Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 5" + quick + "-o " + out.string());
    CHECK(o.status == 0);
    CHECK(slurp(victim) == "precious");
    CHECK(read_json(out)["entries"].size() == 1);

    const fs::path link = temp_results("link_to_results");
    fs::create_symlink(out, link);
    Outcome resumed = run_runner(fixtures() + " --plugin fixture_good --sizes 5,6" + quick + "--resume " + link.string());
    INFO(resumed.output);
    CHECK(resumed.status == 0);
    CHECK(fs::is_symlink(link));
    CHECK(read_json(out)["entries"].size() == 2);
    CHECK_FALSE(temporaries_beside(out));
    for (const fs::path &p : {out, victim, planted, link}) fs::remove(p);
}

TEST_CASE("a second runner on the same results file is refused, naming the first", "[results-io]") {
    const fs::path out = temp_results("locked"), first_log = temp_results("locked_first_log");
    // The first runner: a sweep of about 30 s (fixture_misbehave from size 100 on sleeps 20 ms
    // per run), longer than any start-up of the second (its GPU probe, on a busy machine).
    const std::string first = std::string(GPUBENCH_RUNNER) + " " + fixtures() +
                              " --plugin fixture_misbehave --sizes 100..400:+1 --warmup 0 --min-samples 5 "
                              "--max-samples 5 --min-time 0 -q -o " + out.string() +
                              " >" + first_log.string() + " 2>&1 & echo $!";
    FILE *started = popen(first.c_str(), "r");
    REQUIRE(started);
    long pid = 0;
    REQUIRE(fscanf(started, "%ld", &pid) == 1);
    pclose(started);
    // The file shows it holds the lock.
    for (int i = 0; i < 3000 && !fs::exists(out); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(fs::exists(out));
    Outcome second = run_runner(fixtures() + " --plugin fixture_good --sizes 5" + quick + "-o " + out.string());
    const bool first_still_running = kill(static_cast<pid_t>(pid), 0) == 0;
    kill(static_cast<pid_t>(pid), SIGTERM);  // it stops, keeping what it finished
    for (int i = 0; i < 1000 && kill(static_cast<pid_t>(pid), 0) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    INFO("the first runner said: " << slurp(first_log));
    REQUIRE(first_still_running);
    CHECK(second.status == 2);
    CHECK_THAT(second.output, Catch::Contains("is being written by another runner (pid " + std::to_string(pid) + ")"));
    // The file is the first runner's alone: nothing of the second is in it.
    const nlohmann::json kept = read_json(out);
    for (const auto &entry : kept["entries"]) CHECK(entry["plugin"] == "fixture_misbehave");
    fs::remove(out);
    fs::remove(first_log);
}

TEST_CASE("a write that fails (file too large) is one line, the last complete file stays, no temporary",
          "[results-io]") {
    const fs::path out = temp_results("too_large");
    // The header's size depends on the machine (its GPU, its cores): measure it and an
    // entry's, then allow (ulimit -f counts 1024-byte blocks) about three entries.
    const auto file_size_with = [&](const std::string &sizes) {
        fs::remove(out);
        REQUIRE(run_runner(fixtures() + " --plugin fixture_good --sizes " + sizes + quick + "-o " +
                           out.string()).status == 0);
        return fs::file_size(out);
    };
    const uintmax_t one = file_size_with("1"), two = file_size_with("1,2");
    fs::remove(out);
    const uintmax_t blocks = (two + 2 * (two - one)) / 1024;
    Outcome o = run_runner_shell("ulimit -f " + std::to_string(blocks) + "; exec " + std::string(GPUBENCH_RUNNER) +
                                 " " + fixtures() + " --plugin fixture_good --sizes 1..40:+1" + quick + "-o " +
                                 out.string());
    INFO(o.output);
    CHECK(o.status == 1);
    // The journal, appended to after each entry, meets the limit first.
    CHECK_THAT(o.output, Catch::Contains("runner: error: cannot append to the journal") &&
                             Catch::Contains("File too large"));
    const nlohmann::json kept = gpubench::read_results_json(out);  // with its journal, if one is left
    CHECK(kept["entries"].size() >= 1);
    CHECK(kept["entries"].size() < 40);
    CHECK_FALSE(temporaries_beside(out));
    fs::remove(out);
}
