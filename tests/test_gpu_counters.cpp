// --counters on a GPU: CUPTI's range profiler reads what vecadd_cuda's run() moved and
// computed, and a sum whose work() claims too much (fixture_reduction declare=overclaim) is
// flagged at every size, while an honest one on a grid larger than the data, and one that
// claims too little, are not, and show by how much they move or compute beyond the declared;
// runner check holds a CUDA plugin to the same counts. Skipped, with the reason, where no GPU can be
// used or where this machine does not let the user profile.
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

using namespace runner_process;
namespace fs = std::filesystem;

namespace {

std::map<std::string, double> counted(const nlohmann::json &entry) {
    std::map<std::string, double> values;
    for (const nlohmann::json &m : entry["metrics"])
        if (m.value("measured", false)) values[m["name"]] = m["value"];
    return values;
}

bool flagged(const nlohmann::json &entry, const char *flag) {
    const nlohmann::json flags = entry.value("flags", nlohmann::json::array());
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// The sweep's entries, or the test skipped where the counters cannot be read here.
nlohmann::json counted_entries(const fs::path &folder, const std::string &plugins, const std::string &sizes,
                               const std::string &max_time = "1") {
    const fs::path results = folder / "counted.json";
    Outcome o = run_runner(fixtures() + " --plugin " + plugins + " --sizes " + sizes +
                           " --counters --max-time " + max_time + " -q -o " + results.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const nlohmann::json entries = read_json(results)["entries"];
    const std::string source = entries[0]["counters"];
    if (source.rfind("not read: ", 0) == 0) test_support::skip_test("the GPU's counters cannot be read here: " + source);
    return entries;
}

}  // namespace

TEST_CASE("GPU counters (--counters): vecadd_cuda's bytes and flops as the hardware counts them", "[gpu][counters]") {
    test_support::require_gpu();
    test_support::TempFolder folder;
    const nlohmann::json entry = counted_entries(folder.path(), "vecadd_cuda", "1e8")[0];
    INFO(entry.dump(1));
    CHECK(entry["status"] == "ok");
    CHECK_THAT(entry["counters"].get<std::string>(), Catch::Contains("range profiler"));
    std::map<std::string, double> values = counted(entry);
    // 1e8 floats: a and b read (8e8 B), c written (4e8 B, of which the L2 may still hold a
    // part when the kernel ends), one fp32 add each.
    CHECK(values["dram_read_bytes_per_run"] == Approx(8e8).epsilon(0.02));
    CHECK(values["dram_write_bytes_per_run"] > 0.9 * 4e8);
    CHECK(values["dram_write_bytes_per_run"] < 1.02 * 4e8);
    CHECK(values["fp32_flops_per_run"] == Approx(1e8).epsilon(0.01));
    CHECK(values["fp64_flops_per_run"] == 0);
    CHECK(values["memory_throughput"] > 10);
    CHECK(values["memory_throughput"] <= 100);
    CHECK_FALSE(flagged(entry, "work_mismatch"));
    // The counters keep CUPTI in the process: where the device trace ran too, the entry says so.
    if (entry.contains("stream_audit") && entry["stream_audit"].contains("traced")) {
        CHECK_THAT(entry["stream_audit"]["traced"]["stays_attached"].get<std::string>(),
                   Catch::StartsWith("--counters"));
        CHECK(flagged(entry, "cupti_attached"));
    }
}

TEST_CASE("GPU counters (--counters): an entry whose traced cycles were all dropped still says CUPTI stayed",
          "[gpu][counters]") {
    test_support::require_gpu();
    test_support::TempFolder folder;
    // 1e8 floats: a cycle moves 1.2 GB through the host, far more than 2.5 x 50 ms allows a traced one.
    const nlohmann::json entry = counted_entries(folder.path(), "vecadd_cuda", "1e8", "0.05")[0];
    INFO(entry.dump(1));
    REQUIRE(entry["status"] == "ok");
    const nlohmann::json &audit = entry["stream_audit"];
    REQUIRE(audit.contains("untraced"));  // no cycle fits: never traced
    const std::string untraced = audit["untraced"];
    if (untraced.rfind("not traced: ", 0) != 0) test_support::skip_test("no tracer loads here: " + untraced);
    CHECK_THAT(untraced, Catch::StartsWith("not traced: a traced cycle"));
    CHECK_THAT(audit["traced"]["stays_attached"].get<std::string>(), Catch::StartsWith("--counters"));
    CHECK(flagged(entry, "cupti_attached"));
}

TEST_CASE("GPU counters (--counters): work claimed beyond what is done is flagged at every size, and only it",
          "[gpu][counters]") {
    test_support::require_gpu();
    test_support::TempFolder folder;
    const nlohmann::json entries = counted_entries(folder.path(), "fixture_reduction", "1e3,1e6,1e8 --param 'declare=*'");
    REQUIRE(entries.size() == 9);
    for (const nlohmann::json &entry : entries) {
        INFO(entry.dump(1));
        CHECK(entry["status"] == "ok");
        const std::string declare = entry["params"].get<std::string>().substr(std::string("declare=").size());
        CHECK(flagged(entry, "work_mismatch") == (declare == "overclaim"));
        const std::map<std::string, double> values = counted(entry);
        // Honest: the trees add flops beyond n (a few times at 10^3), never fewer than declared.
        if (declare != "overclaim") CHECK(values.at("flops_over_declared") >= 0.99);
        // Claiming a quarter of the bytes it reads: about 4 times them, where bytes compare.
        if (declare == "underclaim" && entry["size"] == 100000000) CHECK(values.at("bytes_over_declared") > 3.5);
    }
}

TEST_CASE("GPU counters (--counters): kernels replayed from a CUDA graph leave the pipes' flops out, and say so", "[gpu][counters]") {
    test_support::require_gpu();
    test_support::TempFolder folder;
    // solvebak_cuda captures one iteration as a graph in its set-up (graph=1), before the
    // counting; graph=0 launches the same kernels one by one.
    const nlohmann::json entries = counted_entries(folder.path(), "solvebak_cuda", "1e4 --param graph=0,1");
    REQUIRE(entries.size() == 2);
    for (const nlohmann::json &entry : entries) {
        INFO(entry.dump(1));
        CHECK(entry["status"] == "ok");
        const std::map<std::string, double> values = counted(entry);
        CHECK(values.count("dram_read_bytes_per_run") == 1);
        if (entry["params"] == "graph=0") {
            CHECK(values.count("fp64_flops_per_run") == 1);
            CHECK(values.at("fp64_flops_per_run") > 0);
            CHECK_THAT(entry["counters"].get<std::string>(), !Catch::Contains("not counted"));
        } else {
            CHECK(values.count("fp64_flops_per_run") == 0);
            CHECK_THAT(entry["counters"].get<std::string>(), Catch::Contains("flops not counted"));
        }
    }
}

TEST_CASE("GPU counters: runner check holds a CUDA plugin's declared work to them", "[gpu][counters][check]") {
    test_support::require_gpu();
    // Each declared value of fixture_reduction, counted at the larger size: the overclaiming
    // entry alone is a finding.
    const Outcome o = run_runner("check " + fixtures() + " --sizes 1000,1000000 fixture_reduction");
    INFO(o.output);
    if (o.output.find("not_counted") != std::string::npos) test_support::skip_test("the GPU's counters cannot be read here");
    CHECK(o.status == 1);
    CHECK_THAT(o.output, Catch::Contains("fixture_reduction: work_mismatch: ") &&
                             Catch::Contains("(size 1000000, declare=overclaim)") && !Catch::Contains(" times]") &&
                             Catch::Contains("runner check: 1 plugin, 1 finding (notes do not fail it)\n"));
}
