// Parameter axes end to end, through the runner: --param key=v1,v2 sweeps the cartesian
// product of the values of the keys each plugin reads into one results file; bad lists are
// refused with one line; resume, shards and merge, and the report handle the settings.
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <tuple>

using namespace runner_process;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// fixture_status reads reject_odd and fail_run (odd sizes skipped with reject_odd=1, run()
// failing with fail_run=1); fixture_good reads no key, so it runs once per size.
const std::string product_options = " --seed 7 --warmup 0" + std::string(quick);
const std::string product = " --plugin fixture_good,fixture_status --sizes 2,3"
                            " --param reject_odd=0,1 --param fail_run=0,1" + product_options;

using Key = std::tuple<std::string, uint64_t, std::string>;

std::set<Key> keys_of(const json &entries) {
    std::set<Key> keys;
    for (const json &entry : entries)
        keys.insert(Key(entry["plugin"].get<std::string>(), entry["size"].get<uint64_t>(),
                        entry["params"].get<std::string>()));
    return keys;
}

// What the product sweep must hold: fixture_good at each size, fixture_status at each size
// and each of the four settings.
std::set<Key> expected_keys() {
    std::set<Key> keys;
    for (uint64_t size : {2, 3}) {
        keys.insert({"fixture_good", size, ""});
        for (const char *setting : {"reject_odd=0,fail_run=0", "reject_odd=0,fail_run=1",
                                    "reject_odd=1,fail_run=0", "reject_odd=1,fail_run=1"})
            keys.insert({"fixture_status", size, setting});
    }
    return keys;
}

}  // namespace

TEST_CASE("parameter value lists: the product is swept into one file, one entry per plugin, size and setting",
          "[params]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "product.json";
    const Outcome o = run_runner(fixtures() + product + " -o " + file.string());
    INFO(o.output);
    CHECK(o.status == 1);  // the fail_run=1 entries fail on purpose
    const json document = read_json(file);
    CHECK(document["entries"].size() == 10);
    CHECK(keys_of(document["entries"]) == expected_keys());
    // The axes recorded; params keeps the keys of one value (none here).
    CHECK(document["options"]["param_axes"] ==
          json::parse(R"({"reject_odd": ["0", "1"], "fail_run": ["0", "1"]})"));
    CHECK(document["options"]["params"] == "");
    // Each setting reached the plugin: skipped odd sizes and failed runs where asked only.
    for (const json &entry : document["entries"]) {
        const std::string params = entry["params"];
        const bool fails = params.find("fail_run=1") != std::string::npos;
        const bool rejects = params.find("reject_odd=1") != std::string::npos && entry["size"] == 3;
        INFO(entry["plugin"] << " " << entry["size"] << " " << params);
        CHECK(entry["status"] == (rejects ? "skipped" : fails ? "error" : "ok"));
    }
    // The table shows each row's setting.
    CHECK_THAT(o.output, Catch::Contains("PARAMS") && Catch::Contains("reject_odd=1,fail_run=0"));

    // runner report: one table per setting of the workload.
    const Outcome report = run_runner("report " + file.string());
    INFO(report.output);
    CHECK_THAT(report.output, Catch::Contains("## fixture\n") &&
                                  Catch::Contains("## fixture [reject_odd=0,fail_run=0]") &&
                                  Catch::Contains("## fixture [reject_odd=1,fail_run=0]"));
}

TEST_CASE("parameter lists with an empty item, a value or key given twice, or an unread key are refused",
          "[params]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "refused.json";
    const std::pair<std::string, std::string> refused[] = {
        {"--param reject_odd=0,,1", "--param 'reject_odd=0,,1': an empty value"},
        {"--param reject_odd=0,", "--param 'reject_odd=0,': an empty value"},
        {"--param reject_odd=", "--param 'reject_odd=': an empty value"},
        {"--param reject_odd=1,1", "--param 'reject_odd=1,1': the value '1' is listed twice"},
        {"--param reject_odd=0 --param reject_odd=1", "--param reject_odd is given twice"},
        {"--param fail_rum=0,1", "--param fail_rum: no selected plugin reads it"}};
    for (const auto &[arguments, says] : refused) {
        const Outcome o = run_runner(fixtures() + " --plugin fixture_good,fixture_status --sizes 2 " +
                                     arguments + product_options + "-o " + file.string());
        INFO(arguments << ": " << o.output);
        CHECK(o.status == 2);
        CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
        CHECK_THAT(o.output, Catch::StartsWith("runner: error: ") && Catch::Contains(says));
        CHECK_FALSE(fs::exists(file));
    }
}

TEST_CASE("resuming a half-done product sweep measures only the entries it lacks", "[params]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "half.json";
    REQUIRE(run_runner(fixtures() + product + " -o " + file.string()).status == 1);
    json half = read_json(file);
    json kept = json::array();
    for (size_t i = 0; i < half["entries"].size(); ++i)
        if (i % 2 == 0) kept.push_back(half["entries"][i]);
    half["entries"] = kept;
    write(file, half.dump());
    const Outcome resumed = run_runner(fixtures() + product + " --resume " + file.string());
    INFO(resumed.output);
    CHECK(resumed.status == 1);
    CHECK_THAT(resumed.output, Catch::Contains("(5 of them already in the file)"));
    const json document = read_json(file);
    CHECK(document["entries"].size() == 10);
    CHECK(keys_of(document["entries"]) == expected_keys());
}

TEST_CASE("the shards of a product sweep merge to the same entries, and the merge resumes with the same --param only",
          "[params][shard]") {
    const test_support::TempFolder folder;
    std::string shards;
    for (int i = 0; i < 3; ++i) {
        const fs::path shard = folder.path() / ("shard-" + std::to_string(i) + ".json");
        const Outcome o = run_runner(fixtures() + product + " --shard " + std::to_string(i) + "/3 -o " +
                                     shard.string());
        INFO(o.output);
        REQUIRE((o.status == 0 || o.status == 1 || o.status == 3));
        CHECK(read_json(shard)["shard"]["planned"].size() == 10);
        shards += " " + shard.string();
    }
    const fs::path merged = folder.path() / "merged.json";
    const Outcome merge = run_runner("merge" + shards + " -o " + merged.string());
    INFO(merge.output);
    REQUIRE(merge.status == 1);  // the whole sweep's, as one process's: fail_run=1's entries are errors
    CHECK(keys_of(read_json(merged)["entries"]) == expected_keys());
    CHECK(read_json(merged)["merged"]["missing"].empty());
    // The plan was made with these axes: another list is another sweep.
    const Outcome other = run_runner(fixtures() + product_options + " --param reject_odd=0 --param fail_run=0,1 --resume " +
                                     merged.string());
    INFO(other.output);
    CHECK(other.status == 2);
    CHECK_THAT(other.output, Catch::Contains("planned its entries with --param fail_run=0,1 --param "
                                             "reject_odd=0,1: resume it with the same (this run has "
                                             "--param fail_run=0,1 --param reject_odd=0)"));
}

TEST_CASE("runner --list shows the --param keys each plugin reads", "[params]") {
    const Outcome o = run_runner("--list " + fixtures());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("PARAMS") && Catch::Contains("reject_odd,fail_run"));
}
