// --counters: a counting pass after the samples whose hardware counters become the runner's
// measured metrics, tested through the fake source (GPUBENCH_FAKE_COUNTERS) with no GPU and
// no PMU, and through perf_event_open wherever the test runs: read, or the reason it is not.
#include "hardware_counters.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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
