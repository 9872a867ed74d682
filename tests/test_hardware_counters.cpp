// --counters: a counting pass after the samples whose hardware counters become the runner's
// measured metrics, tested through the fake source (GPUBENCH_FAKE_COUNTERS) with no GPU and
// no PMU, and through perf_event_open wherever the test runs: read, or the reason it is not.
#include "work_mismatch.hpp"
#include "entry_figures.hpp"
#include "hardware_counters.hpp"
#include "runner_process.hpp"
#include "sweep.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

using namespace gpubench;
using namespace runner_process;
namespace fs = std::filesystem;

namespace {

// The sweep of fixture_good at 10 with --counters (and `more`), under `environment`.
nlohmann::json counted_sweep(const fs::path &folder, const std::string &environment, const std::string &more = "",
                             int status = 0) {
    const fs::path results = folder / "counted.json";
    Outcome o = run_command(environment + " " GPUBENCH_RUNNER " " + fixtures() +
                            " --plugin fixture_good --sizes 10 --counters " + more + " -o " + results.string());
    INFO(o.output);
    CHECK(o.status == status);
    return read_json(results);
}

std::map<std::string, nlohmann::json> metrics_by_name(const nlohmann::json &entry) {
    std::map<std::string, nlohmann::json> metrics;
    for (const nlohmann::json &m : entry["metrics"]) metrics[m["name"]] = m;
    return metrics;
}

}  // namespace

TEST_CASE("runner --counters: the fake source's counters are the entry's measured metrics, read in one more run()",
          "[counters]") {
    test_support::TempFolder folder;
    const fs::path fake = folder.path() / "fake.json", log = folder.path() / "runs.log";
    write(fake, R"({"dram_read_bytes_per_run": 8e8, "dram_write_bytes_per_run": 4e8, "sm_throughput": 12.5})");
    const std::string environment = "GPUBENCH_FAKE_COUNTERS=" + fake.string() + " FIXTURE_RUN_LOG=" + log.string();
    const nlohmann::json doc = counted_sweep(folder.path(), environment, "--profile --runs 3");
    CHECK(doc["options"]["counters"] == true);
    const nlohmann::json &entry = doc["entries"][0];
    CHECK(entry["status"] == "ok");
    CHECK(entry["counters"] == "GPUBENCH_FAKE_COUNTERS");
    auto metrics = metrics_by_name(entry);
    REQUIRE(metrics.count("dram_read_bytes_per_run"));
    CHECK(metrics["dram_read_bytes_per_run"]["value"] == 8e8);
    CHECK(metrics["dram_read_bytes_per_run"]["unit"] == "B");
    CHECK(metrics["dram_read_bytes_per_run"]["measured"] == true);
    CHECK(metrics["sm_throughput"]["unit"] == "%");
    CHECK(metrics["dram_write_bytes_per_run"]["value"] == 4e8);
    // The warm-up, the 3 samples and the counted run: one more than the samples, never a sample.
    std::ifstream runs(log);
    uint64_t size = 0, calls = 0;
    REQUIRE(runs >> size >> calls);
    CHECK(calls == 5);
    CHECK(entry["timing"]["samples"]["run"].size() == 3);

    // Measured values are shown by compare, never judged: twice the bytes is no regression
    // (times within any threshold: only the counters are in question here).
    write(fake, R"({"dram_read_bytes_per_run": 8e8})");
    const fs::path baseline = folder.path() / "baseline.json";
    counted_sweep(folder.path(), "GPUBENCH_FAKE_COUNTERS=" + fake.string());
    fs::rename(folder.path() / "counted.json", baseline);
    write(fake, R"({"dram_read_bytes_per_run": 1.6e9})");
    counted_sweep(folder.path(), "GPUBENCH_FAKE_COUNTERS=" + fake.string());
    Outcome compared = run_runner("compare --threshold 1000 " + baseline.string() + " " +
                                  (folder.path() / "counted.json").string());
    INFO(compared.output);
    CHECK(compared.status == 0);
    CHECK_THAT(compared.output, Catch::Contains("0 metrics worse"));
}

TEST_CASE("runner --counters: perf_event_open reads a CPU entry's counters, or the entry says why not", "[counters]") {
    test_support::TempFolder folder;
    const nlohmann::json doc = counted_sweep(folder.path(), "");
    const nlohmann::json &entry = doc["entries"][0];
    CHECK(entry["status"] == "ok");
    auto metrics = metrics_by_name(entry);
    const std::string source = entry["counters"];
    INFO(source);
    if (source == "perf_event_open") {  // a machine whose PMU user space may read
        for (const char *name : {"cycles_per_run", "instructions_per_run", "llc_misses_per_run"}) {
            REQUIRE(metrics.count(name));
            CHECK(metrics[name]["measured"] == true);
        }
        CHECK(metrics["instructions_per_run"]["value"].get<double>() > 10);  // 10 elements, at least
    } else {  // a VM without counters, or a kernel that does not allow them
        CHECK_THAT(source, Catch::StartsWith("not read: perf_event_open: "));
        CHECK(metrics.count("cycles_per_run") == 0);
    }
    // Without --counters: no pass, no field.
    const fs::path plain = folder.path() / "plain.json";
    REQUIRE(run_runner(fixtures() + " --plugin fixture_good --sizes 10 -o " + plain.string()).status == 0);
    CHECK_FALSE(read_json(plain)["entries"][0].contains("counters"));
    CHECK(read_json(plain)["options"]["counters"] == false);
}

TEST_CASE("runner --counters: under a budget each series is counted at its smallest and largest size alone",
          "[counters]") {
    test_support::TempFolder folder;
    const fs::path fake = folder.path() / "fake.json", results = folder.path() / "budgeted.json";
    write(fake, R"({"dram_read_bytes_per_run": 8e8})");
    for (const std::string budget : {"", "--budget 600"}) {
        INFO("with '" << budget << "'");
        const Outcome o = run_command("GPUBENCH_FAKE_COUNTERS=" + fake.string() + " " GPUBENCH_RUNNER " " + fixtures() +
                                      " --plugin fixture_good --sizes 1,4,7,10 --counters " + budget + quick + " -o " +
                                      results.string());
        INFO(o.output);
        REQUIRE(o.status == 0);
        const nlohmann::json doc = read_json(results);  // kept: a range over a temporary's member dangles
        for (const nlohmann::json &entry : doc["entries"]) {
            INFO("size " << entry["size"]);
            CHECK(entry.contains("counters") == (budget.empty() || entry["size"] == 1 || entry["size"] == 10));
        }
    }
}

TEST_CASE("a budgeted count's series ends are those in the plugin's range, per setting", "[counters]") {
    PluginInfo small, large;
    small.name = "small";
    small.min_size = 1;
    small.max_size = 5;
    large.name = "large";
    large.min_size = 1;
    large.max_size = 100;
    SweepEntries entries = {{&small, 1, ""}, {&small, 3, ""}, {&small, 5, ""}, {&small, 10, ""},
                            {&large, 10, "a=1"}, {&large, 50, "a=1"}, {&large, 10, "a=2"}};
    count_series_ends_only(entries);
    std::vector<bool> counted;
    for (const SweepEntry &e : entries) counted.push_back(e.counted);
    // small: 1 and 5 (10 is out of its range); large a=1: 10 and 50; a=2: its one size.
    CHECK(counted == std::vector<bool>{true, false, true, false, true, true, true});
}

TEST_CASE("runner --counters: a fake source naming no counter fails the entry, naming it", "[counters]") {
    test_support::TempFolder folder;
    const fs::path fake = folder.path() / "fake.json";
    for (const auto &[text, problem] : std::map<std::string, std::string>{
             {R"({"bogus": 1})", "'bogus' is no counter"},
             {R"({"cycles_per_run": "many"})", "'cycles_per_run' is not a number"},
             {R"([1, 2])", "not a JSON object of counters"}}) {
        write(fake, text);
        const nlohmann::json doc = counted_sweep(folder.path(), "GPUBENCH_FAKE_COUNTERS=" + fake.string(), "", 1);
        const nlohmann::json &entry = doc["entries"][0];
        CHECK(entry["status"] == "error");
        CHECK_THAT(entry["message"].get<std::string>(), Catch::Contains(problem));
    }
}

TEST_CASE("every counter has a name and a unit of its own", "[counters]") {
    std::map<std::string, std::string> seen;
    for (const CounterKind &kind : counter_kinds()) CHECK(seen.emplace(kind.name, kind.unit).second);
    CHECK(seen.at("dram_read_bytes_per_run") == "B");
    CHECK(seen.at("instructions_per_run").empty());
}

namespace {

// An entry as the check sees it: its declared work, the level it is held to, its counters.
EntryResult counted_entry(bool gpu, const std::string &level, double declared_bytes, double declared_flops,
                          std::map<std::string, double> counters) {
    EntryResult e;
    if (gpu) e.cuda_devices = {0};
    e.ceiling.level = level;
    e.ceiling.flops = 60e12;  // a ridge of 20 flops per byte
    e.ceiling.bytes_per_s = 3e12;
    e.work.bytes = declared_bytes;
    e.work.flops = declared_flops;
    e.metrics.push_back({{"page_faults_per_run", 0, "", "", GPUBENCH_BETTER_LOWER}, true});
    for (const auto &[name, value] : counters) e.metrics.push_back({{name, value, "", "", GPUBENCH_BETTER_UNSTATED}, true});
    return e;
}

}  // namespace

TEST_CASE("counted work against declared: less than 1/1.5 is flagged, more is an efficiency figure",
          "[counters]") {
    // A GPU vecadd at 1e8 held to HBM: 1.2e9 B declared, the counters' read + write compared.
    const EntryResult vecadd = counted_entry(true, "HBM", 1.2e9, 1e8, {{"dram_read_bytes_per_run", 8e8},
                                                                          {"dram_write_bytes_per_run", 3.86e8}});
    CHECK(counted_work_mismatch(vecadd).empty());
    CHECK(counted_work(vecadd).bytes_ratio == Approx(0.988).epsilon(0.001));
    CHECK(counted_work(vecadd).level == "HBM");
    // The same kernel declaring half its bytes moves 2.4 times them: a figure, not a flag.
    const EntryResult half = counted_entry(true, "HBM", 5e8, 1e8, {{"dram_read_bytes_per_run", 8e8},
                                                                      {"dram_write_bytes_per_run", 4e8}});
    CHECK(counted_work_mismatch(half).empty());
    const std::vector<Metric> figures = counted_work_figures(half);
    REQUIRE(figures.size() == 1);  // the pipes' flops were not read: no flops figure
    CHECK(figures[0].name == "bytes_over_declared");
    CHECK(figures[0].value == Approx(2.4));
    CHECK(figures[0].unit == "x");
    CHECK(figures[0].better == GPUBENCH_BETTER_LOWER);
    // Twice and more the bytes it moves: a rate that reads as faster than it is.
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 3e9, 0, {{"dram_read_bytes_per_run", 1.2e9}})) ==
          "declares 3e+09 B a run(), the counters 1.2e+09 B (HBM)");
    // 1.5 times is the margin: a little over is flagged, a little under is not.
    CHECK_FALSE(counted_work_mismatch(counted_entry(true, "L2", 1.6e8, 0, {{"l2_bytes_per_run", 1.0e8}})).empty());
    CHECK(counted_work_mismatch(counted_entry(true, "L2", 1.4e8, 0, {{"l2_bytes_per_run", 1.0e8}})).empty());
    // Held to the L2: its L2 traffic is compared, not HBM's (which a hot L2 spares).
    CHECK(counted_work_mismatch(counted_entry(true, "L2", 1.2e7, 0, {{"l2_bytes_per_run", 1.25e7},
                                                                      {"dram_read_bytes_per_run", 0}}))
              .empty());
    CHECK(counted_work(counted_entry(true, "L2", 1.2e7, 0, {{"l2_bytes_per_run", 3e7}})).bytes_ratio == Approx(2.5));
    // A CPU entry: its LLC misses x 64 B at DRAM only; in a cache, nothing the PMU counts compares.
    CHECK(counted_work_mismatch(counted_entry(false, "DRAM", 8e8, 0, {{"llc_misses_per_run", 1.3e7}})).empty());
    CHECK(counted_work_mismatch(counted_entry(false, "DRAM", 8e8, 0, {{"llc_misses_per_run", 5e6}})) ==
          "declares 8e+08 B a run(), the counters 3.2e+08 B (DRAM)");
    CHECK_FALSE(counted_work(counted_entry(false, "L3", 8e6, 0, {{"llc_misses_per_run", 1e6}})).bytes_ratio);
    // A compute-bound matmul (4096: 1.4e11 flops over 2e8 B, above the ridge): its bytes are
    // the least it moves, tiling re-reads more by design; its flops compare, both ways.
    const EntryResult matmul = counted_entry(true, "HBM", 2e8, 1.37e11, {{"dram_read_bytes_per_run", 1e9},
                                                                            {"fp32_flops_per_run", 1.37e11}});
    CHECK(counted_work_mismatch(matmul).empty());
    CHECK_FALSE(counted_work(matmul).bytes_ratio);
    CHECK(counted_work(matmul).flops_ratio == Approx(1));
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 2e8, 1.37e11, {{"fp32_flops_per_run", 2.75e11}})).empty());
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 2e8, 1.37e11, {{"fp32_flops_per_run", 6e10}})) ==
          "declares 1.37e+11 flops a run(), the counters 6e+10 flops");
    // A reduction's tree on a grid larger than the data: 4.9 times its declared flops at 10^3,
    // a figure; the same kernel claiming 16 times its flops is flagged.
    CHECK(counted_work_mismatch(counted_entry(true, "L2", 4e3, 1e3, {{"fp32_flops_per_run", 4.9e3}})).empty());
    CHECK(counted_work(counted_entry(true, "L2", 4e3, 1e3, {{"fp32_flops_per_run", 4.9e3}})).flops_ratio ==
          Approx(4.9));
    CHECK(counted_work_mismatch(counted_entry(true, "L2", 4e3, 1.6e4, {{"fp32_flops_per_run", 4.9e3}})) ==
          "declares 1.6e+04 flops a run(), the counters 4.9e+03 flops");
    // A GPU entry is compared by its L2 traffic where it was counted: a --cold copy of a
    // working set the L2 holds reads 4e6 B from HBM, and its writes stay in the L2.
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 8e6, 0, {{"l2_bytes_per_run", 1.06e7},
                                                                     {"dram_read_bytes_per_run", 4e6},
                                                                     {"dram_write_bytes_per_run", 5.6e3}}))
              .empty());
    // A run() that declares less than 4 MiB: what the counted cycle moves besides weighs as much,
    // so neither a flag nor a figure (1.9e6 B counted for 1.2e4 declared would read 158x).
    CHECK(counted_work_mismatch(counted_entry(true, "L2", 1.2e4, 0, {{"l2_bytes_per_run", 1.9e6}})).empty());
    CHECK(counted_work_figures(counted_entry(true, "L2", 1.2e4, 0, {{"l2_bytes_per_run", 1.9e6}})).empty());
    // FP16 "flops" beside FP32 ones: the compiler's HFMA2 constant loads (CuPy's add at 1e8).
    // The flag counts them in (the least a plugin can be said to do); the figure leaves them out.
    const EntryResult cupy_add = counted_entry(true, "HBM", 1.2e9, 1e8, {{"fp32_flops_per_run", 1e8},
                                                                           {"fp16_flops_per_run", 2e8}});
    CHECK(counted_work_mismatch(cupy_add).empty());
    CHECK(counted_work(cupy_add).flops_ratio == Approx(1));
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 1.2e9, 3e8, {{"fp32_flops_per_run", 1e8},
                                                                         {"fp16_flops_per_run", 2e8}}))
              .empty());
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 1.2e9, 1e9, {{"fp32_flops_per_run", 1e8},
                                                                         {"fp16_flops_per_run", 2e8}})) ==
          "declares 1e+09 flops a run(), the counters 3e+08 flops");
    // The pipes' flops left out (a CUDA graph's kernels ran unpatched): the tensor cores'
    // zero is not the run's flops, and the bytes still compare.
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 1.6e8, 4e7, {{"dram_read_bytes_per_run", 1.7e8},
                                                                         {"tensor_flops_per_run", 0}}))
              .empty());
    CHECK_FALSE(counted_work(counted_entry(true, "HBM", 1.6e8, 4e7, {{"tensor_flops_per_run", 0}})).flops_ratio);
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 6e8, 4e7, {{"l2_bytes_per_run", 1.6e8},
                                                                       {"tensor_flops_per_run", 0}})) ==
          "declares 6e+08 B a run(), the counters 1.6e+08 B (L2)");
    // No counters (not read, or no --counters): nothing to compare.
    CHECK(counted_work_mismatch(counted_entry(true, "HBM", 5e8, 0, {})).empty());
    // The flag, and its figure in the results' throughput.
    const EntryResult flagged = counted_entry(true, "HBM", 3e9, 0, {{"dram_read_bytes_per_run", 1.2e9}});
    const EntryFigures f = entry_figures(flagged, this_host_run());
    CHECK(std::count(f.flags.begin(), f.flags.end(), "work_mismatch") == 1);
    CHECK(f.work_mismatch == "declares 3e+09 B a run(), the counters 1.2e+09 B (HBM)");
    const EntryFigures more = entry_figures(half, this_host_run());
    CHECK(std::count(more.flags.begin(), more.flags.end(), "work_mismatch") == 0);
}

TEST_CASE("the counting's time limit: 30 times the entry's --max-time, within 4-30 s", "[counters]") {
    CHECK(counting_time_limit_s(0.05) == 4);  // a sweep behind its budget
    CHECK(counting_time_limit_s(0.5) == 15);
    CHECK(counting_time_limit_s(1) == 30);    // the default sweep's --max-time
    CHECK(counting_time_limit_s(10) == 30);
}
