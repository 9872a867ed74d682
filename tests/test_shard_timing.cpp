// A shard's predicted and actual wall time: recorded in its results file (also when it is
// interrupted, and summed when it is resumed), and printed per shard by runner merge with the
// spread of the actual ones; files written before them merge with n/a.
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

using namespace runner_process;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// What the plan predicts for `shard`: its entries' costs, and each plugin's start once.
double predicted_from_plan(const json &record, uint32_t shard) {
    double seconds = 0;
    std::set<std::string> plugins;
    for (const json &p : record["planned"])
        if (p["shard"] == shard) {
            seconds += p["cost"].get<double>();
            if (plugins.insert(p["plugin"].get<std::string>()).second)
                seconds += record["start_costs"].value(p["plugin"].get<std::string>(), 0.0);
        }
    return seconds;
}

double last_finished(const json &document) {
    double last = 0;
    for (const json &entry : document["entries"])
        last = std::max(last, entry["harness"]["finished_after_s"].get<double>());
    return last;
}

// runner merge's line for `shard`, split into words: index, entries, predicted, actual, ratio
// ("12.3 s" is two words).
std::vector<std::string> shard_line(const std::string &output, uint32_t shard) {
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> split;
        for (std::string word; words >> word;) split.push_back(word);
        if (split.size() >= 5 && split[0] == std::to_string(shard) && split[1] != "of") return split;
    }
    FAIL("no line for shard " << shard << " in:\n" << output);
    return {};
}

std::string fixed(double value, int decimals) {
    std::ostringstream text;
    text.setf(std::ios::fixed);
    text.precision(decimals);
    text << value;
    return text.str();
}

}  // namespace

TEST_CASE("a shard records its predicted and actual wall time, and runner merge prints them per shard",
          "[shard]") {
    const test_support::TempFolder folder;
    std::vector<fs::path> shards = run_shards(folder.path(), 3);
    for (uint32_t i = 0; i < 3; ++i) {
        const json document = read_json(shards[i]);
        INFO("shard " << i);
        CHECK(document["shard"]["predicted_s"].get<double>() == Approx(predicted_from_plan(document["shard"], i)));
        CHECK(document["shard"]["actual_s"].get<double>() == Approx(last_finished(document)));
        CHECK(document["shard"]["actual_s"].get<double>() > 0);
    }
    const fs::path merged = folder.path() / "merged.json";
    Outcome o = run_runner("merge" + std::string(" ") + shards[0].string() + " " + shards[1].string() + " " +
                           shards[2].string() + " -o " + merged.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("SHARD  ENTRIES  PREDICTED     ACTUAL  ACTUAL/PREDICTED"));
    std::vector<double> actual;
    for (uint32_t i = 0; i < 3; ++i) {
        const json record = read_json(shards[i])["shard"];
        const std::vector<std::string> line = shard_line(o.output, i);
        REQUIRE(line.size() == 7);
        CHECK(line[1] == std::to_string(read_json(shards[i])["entries"].size()));
        // Three significant digits.
        CHECK(std::stod(line[2]) == Approx(record["predicted_s"].get<double>()).epsilon(0.005).margin(0.0005));
        CHECK(std::stod(line[4]) == Approx(record["actual_s"].get<double>()).epsilon(0.005).margin(0.0005));
        CHECK((line[3] == "s" && line[5] == "s"));
        CHECK(line[6] == fixed(record["actual_s"].get<double>() / record["predicted_s"].get<double>(), 2));
        actual.push_back(record["actual_s"].get<double>());
    }
    const double spread = *std::max_element(actual.begin(), actual.end()) / *std::min_element(actual.begin(), actual.end());
    CHECK_THAT(o.output, Catch::Contains("spread of the shards' actual wall times (slowest/fastest): " +
                                         fixed(spread, 2) + "\n"));
    // The merged file keeps each shard's figures.
    const json merged_document = read_json(merged);
    for (const json &context : merged_document["merged"]["shards"]) {
        const json record = read_json(shards.at(context["index"].get<size_t>()))["shard"];
        CHECK(context["predicted_s"] == record["predicted_s"]);
        CHECK(context["actual_s"] == record["actual_s"]);
        CHECK(context["entries"] == read_json(shards.at(context["index"].get<size_t>()))["entries"].size());
    }

    // Files written before these fields merge all the same, their figures n/a.
    for (size_t i : {1, 2}) {
        json old = read_json(shards[i]);
        old["shard"].erase("predicted_s");
        old["shard"].erase("actual_s");
        write(shards[i], old.dump());
    }
    o = run_runner("merge " + shards[0].string() + " " + shards[1].string() + " " + shards[2].string() + " -o " +
                   merged.string());
    INFO(o.output);
    CHECK(o.status == 0);
    for (uint32_t i : {1u, 2u}) {
        const std::vector<std::string> line = shard_line(o.output, i);
        CHECK(std::vector<std::string>(line.begin() + 2, line.end()) == std::vector<std::string>{"n/a", "n/a", "n/a"});
    }
    CHECK_THAT(o.output, Catch::Contains("spread of the shards' actual wall times (slowest/fastest): n/a (fewer than "
                                         "two shards record one)"));
    CHECK_FALSE(read_json(merged)["merged"]["shards"][1].contains("actual_s"));
}

TEST_CASE("an interrupted shard records its actual wall time to its last entry, and --resume adds its own",
          "[shard]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "shard.json";
    // Entries of at least 0.2 s each, so that it is interrupted midway.
    const std::string slow = " --seed 5 --warmup 0 --min-samples 2 --max-samples 1000000 --min-time 0.2 "
                             "--max-noise 0 --max-time 0.2";
    CHECK(interrupt_runner(fixtures() + " --plugin fixture_good --sizes 1..12:+1" + slow + " --shard 0/1 -o " +
                               file.string(),
                           file, 2) == 130);
    const json interrupted = read_json(file);
    REQUIRE(interrupted["entries"].size() < 12);
    const double first_part = interrupted["shard"]["actual_s"].get<double>();
    CHECK(first_part == Approx(last_finished(interrupted)));

    // The plan says what is left: resumed without --plugin and --sizes.
    const Outcome resumed = run_runner(fixtures() + slow + " --resume " + file.string());
    INFO(resumed.output);
    CHECK(resumed.status == 0);
    const json completed = read_json(file);
    CHECK(completed["entries"].size() == 12);
    double second_part = 0;  // the resuming process's entries' ends, since its own start
    for (size_t i = interrupted["entries"].size(); i < 12; ++i)
        second_part = std::max(second_part, completed["entries"][i]["harness"]["finished_after_s"].get<double>());
    CHECK(completed["shard"]["actual_s"].get<double>() == Approx(first_part + second_part));
}
