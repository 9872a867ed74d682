// The progress line moves while an entry runs: the sweep ticks its observer from a thread of
// its own (a worker's entry that hangs until its time-out included), and the runner's Progress
// redraws a terminal's line each second and tells a log every so often that the entry runs on.
#include "console.hpp"
#include "plugin_catalog.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "sweep.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <thread>

using namespace gpubench;
using namespace runner_process;

namespace {

// What a Progress wrote to its file so far.
std::string written(std::FILE *file) {
    std::fflush(file);
    std::rewind(file);
    std::string text;
    for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
    return text;
}

// Counts the ticks that arrive while an entry is under way.
struct TickCounter final : SweepObserver {
    bool in_entry = false;
    size_t ticks_in_entry = 0, ticks_between = 0;
    void begin(const SweepEntry &, int) override { in_entry = true; }
    void tick() override { ++(in_entry ? ticks_in_entry : ticks_between); }
    void finished(const EntryResult &, const std::string &) override { in_entry = false; }
};

}  // namespace

TEST_CASE("a sweep ticks its observer while a worker's entry runs, a hanging one until its time-out",
          "[progress]") {
    PluginCatalog catalog =
        discover_plugins(test_support::search_in({GPUBENCH_FIXTURE_DIR}), {"fixture_misbehave"});
    REQUIRE(catalog.plugins.size() == 1);
    // fixture_misbehave hangs in run() at size 4: the entry lasts until the time-out.
    const SweepEntries entries{{&catalog.plugins.front(), 4, ""}};
    std::vector<GpuInfo> gpus(1);
    const MeasureOptions options = test_support::sampled(1, 1);
    SweepSetup mode;
    mode.launch.runner = GPUBENCH_RUNNER;
    mode.launch.timeout_s = 1.5;
    const test_support::TempFolder folder;
    ResultsFile results(folder.path() / "ticks.json",
                        results_header({"runner"}, gpus[0], nlohmann::json(options), std::nullopt));
    WorkerPool pool(mode.launch);
    TickCounter counter;
    const auto began = std::chrono::steady_clock::now();
    const SweepTally tally = run_sweep(entries, options, gpus, results, pool, mode, counter);
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    CHECK(tally.errors == 1);  // timed out
    INFO("the sweep took " << took_s << " s");
    REQUIRE(took_s >= 1.5);
    // About 10 a second; a loaded machine may delay some, not most.
    CHECK(counter.ticks_in_entry >= 5);
}

TEST_CASE("Progress redraws a terminal's line each second while an entry runs, and nothing between entries",
          "[progress]") {
    std::FILE *out = std::tmpfile();
    REQUIRE(out);
    Progress progress(Progress::Style::terminal, 2, out);
    progress.begin("sort_cuda", 1000);
    CHECK(written(out) == "\r[1/2] sort_cuda 1000, 0s in; 0s elapsed\033[K");
    progress.tick();  // within the second: not drawn again
    CHECK(written(out) == "\r[1/2] sort_cuda 1000, 0s in; 0s elapsed\033[K");
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    progress.tick();
    CHECK_THAT(written(out), Catch::EndsWith("\r[1/2] sort_cuda 1000, 1s in; 1s elapsed\033[K"));
    progress.clear();
    progress.end("sort_cuda", 1000);
    const std::string after_end = written(out);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    progress.tick();
    CHECK(written(out) == after_end);
    std::fclose(out);
}

TEST_CASE("Progress tells a log when each entry starts, and again while it runs on", "[progress]") {
    std::FILE *out = std::tmpfile();
    REQUIRE(out);
    Progress progress(Progress::Style::lines, 3, out, 0.2);
    progress.begin("matmul_naive", 4096);
    CHECK(written(out) == "[1/3] matmul_naive 4096 (0s elapsed)\n");
    progress.tick();
    CHECK(written(out) == "[1/3] matmul_naive 4096 (0s elapsed)\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    progress.tick();
    CHECK(written(out) == "[1/3] matmul_naive 4096 (0s elapsed)\n"
                          "[1/3] matmul_naive 4096, still running: 0s in (0s elapsed)\n");
    progress.end("matmul_naive", 4096);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    progress.tick();
    CHECK_THAT(written(out), Catch::EndsWith("still running: 0s in (0s elapsed)\n"));
    std::fclose(out);
}

TEST_CASE("Progress names every lane's entry with its GPU on one line, \"+N more\" where they do not fit",
          "[progress]") {
    std::FILE *out = std::tmpfile();
    REQUIRE(out);
    Progress progress(Progress::Style::terminal, 20, out, 30, 160);
    progress.begin("sort_cuda", 1000000, 1);
    progress.begin("matmul_torch", 4096, 0);
    // In GPU order, whichever began first.
    CHECK_THAT(written(out), Catch::EndsWith("\r[2/20] matmul_torch 4096 (GPU 0, 0s), sort_cuda 1000000 (GPU 1, 0s); "
                                            "0s elapsed\033[K"));
    for (int gpu = 2; gpu < 8; ++gpu) progress.begin("vecadd_cupy", 1000000, gpu);
    // Eight do not fit in 160 columns: those that do, and how many more run.
    const std::string eight = written(out).substr(written(out).rfind('\r'));
    CHECK(eight == "\r[8/20] matmul_torch 4096 (GPU 0, 0s), sort_cuda 1000000 (GPU 1, 0s), vecadd_cupy 1000000 (GPU 2, "
                   "0s), vecadd_cupy 1000000 (GPU 3, 0s), +4 more; 0s elapsed\033[K");
    CHECK(eight.size() <= 160 + 4);  // "\r" and "\033[K" take no column
    // Narrower: the first entry always, the rest counted.
    Progress narrow(Progress::Style::terminal, 3, out, 30, 40);
    narrow.begin("sort_cuda", 1000000, 0);
    narrow.begin("sort_cuda", 10, 1);
    CHECK_THAT(written(out), Catch::EndsWith("\r[2/3] sort_cuda 1000000 (GPU 0, 0s), +1 more; 0s elapsed\033[K"));
    std::fclose(out);
}

TEST_CASE("Progress tells a log of each lane's entry with its GPU, and of each one that runs on", "[progress]") {
    std::FILE *out = std::tmpfile();
    REQUIRE(out);
    Progress progress(Progress::Style::lines, 16, out, 0.2);
    for (int gpu = 0; gpu < 8; ++gpu) progress.begin("sort_cuda", 1000u << gpu, gpu);
    std::string expected;
    for (int gpu = 0; gpu < 8; ++gpu)
        expected += "[" + std::to_string(gpu + 1) + "/16] sort_cuda " + std::to_string(1000u << gpu) + " on GPU " +
                    std::to_string(gpu) + " (0s elapsed)\n";
    CHECK(written(out) == expected);
    progress.end("sort_cuda", 1000u << 3);  // GPU 3's ends; GPU 3 starts the next
    progress.begin("sort_cuda", 1000u << 8, 3);
    expected += "[9/16] sort_cuda 256000 on GPU 3 (0s elapsed)\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    progress.tick();
    // Each of the eight that run on, numbered as it started.
    for (int gpu = 0; gpu < 8; ++gpu) {
        const int index = gpu == 3 ? 9 : gpu + 1;
        const uint64_t size = gpu == 3 ? 256000 : 1000u << gpu;
        expected += "[" + std::to_string(index) + "/16] sort_cuda " + std::to_string(size) + " on GPU " +
                    std::to_string(gpu) + ", still running: 0s in (0s elapsed)\n";
    }
    CHECK(written(out) == expected);
    std::fclose(out);
}

TEST_CASE("Progress's estimate counts the entries that run at once, told apart by their params", "[progress]") {
    std::FILE *out = std::tmpfile();
    REQUIRE(out);
    Progress progress(Progress::Style::terminal, 10, out, 30, 160);
    progress.begin("vecadd_cupy", 10, 0, "variant=add");
    progress.begin("vecadd_cupy", 10, 1, "variant=increment");
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    progress.end("vecadd_cupy", 10, "variant=increment");  // GPU 1's, not GPU 0's
    progress.begin("vecadd_cupy", 100, 1, "variant=increment");
    const std::string line = written(out).substr(written(out).rfind('\r'));
    CHECK_THAT(line, Catch::StartsWith("\r[3/10] vecadd_cupy 10 (GPU 0, 1s), vecadd_cupy 100 (GPU 1, 0s); "));
    // One entry of about 1.1 s finished, 9 left, 2 at once: about 5 s, not the 10 s of one lane.
    const size_t tilde = line.find('~');
    REQUIRE(tilde != std::string::npos);
    const int left_s = std::stoi(line.substr(tilde + 1));
    CHECK(left_s >= 4);
    CHECK(left_s <= 7);
    CHECK_THAT(line, Catch::EndsWith("s left\033[K"));
    std::fclose(out);
}

TEST_CASE("Progress forgets an entry put back to begin again later, and counts it once when it does", "[progress]") {
    std::FILE *out = std::tmpfile();
    REQUIRE(out);
    Progress progress(Progress::Style::terminal, 20, out, 30, 160);
    progress.begin("sort_cuda", 1000000, 1);
    progress.begin("matmul_torch", 4096, 0);
    progress.put_back("matmul_torch", 4096);
    progress.begin("vecadd_cuda", 10, 0);
    CHECK_THAT(written(out), Catch::EndsWith("\r[2/20] vecadd_cuda 10 (GPU 0, 0s), sort_cuda 1000000 (GPU 1, 0s); "
                                            "0s elapsed\033[K"));
    progress.begin("matmul_torch", 4096, 0);  // taken up late
    CHECK_THAT(written(out), Catch::EndsWith("\r[3/20] vecadd_cuda 10 (GPU 0, 0s), matmul_torch 4096 (GPU 0, 0s), sort_cuda 1000000 (GPU 1, "
                                            "0s); 0s elapsed\033[K"));
    std::fclose(out);
}
