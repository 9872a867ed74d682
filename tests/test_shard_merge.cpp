// Sharded sweeps end to end, through the runner: shards of a sweep, `runner merge` joining
// them or refusing files that are not the shards of one sweep (one line, nothing written),
// and --resume of a merged file measuring exactly what no shard delivered.
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

using SeededKey = std::tuple<std::string, uint64_t, std::string, uint64_t>;

SeededKey seeded_key_of(const json &entry) {
    return {entry["plugin"], entry["size"], entry["params"], entry["seed"]};
}

std::set<SeededKey> seeded_keys_of(const json &entries) {
    std::set<SeededKey> keys;
    for (const json &entry : entries) keys.insert(seeded_key_of(entry));
    return keys;
}

std::string joined(const std::vector<fs::path> &files) {
    std::string text;
    for (const fs::path &file : files) text += " " + file.string();
    return text;
}

void check_merge_refused(const std::string &arguments, const fs::path &output, const std::string &says) {
    const Outcome o = run_runner("merge " + arguments + (output.empty() ? "" : " -o " + output.string()));
    INFO(arguments << "\n" << o.output);
    CHECK(o.status == 2);
    CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
    CHECK_THAT(o.output, Catch::StartsWith("runner merge: error: ") && Catch::Contains(says));
    CHECK_FALSE(fs::exists(output));
}

}  // namespace

TEST_CASE("shards of a sweep are ordinary results files that merge into the whole sweep", "[shard]") {
    const test_support::TempFolder folder;
    const std::vector<fs::path> shards = run_shards(folder.path(), 4);
    const fs::path whole = folder.path() / "whole.json", merged = folder.path() / "merged.json";
    REQUIRE(run_runner(fixtures() + eight_entry_sweep + " -o " + whole.string()).status == 0);
    std::set<SeededKey> seen;
    for (const fs::path &file : shards) {
        const json shard = read_json(file);
        CHECK(shard["shard"]["count"] == 4);
        CHECK(shard["shard"]["planned"].size() == 8);
        for (const json &entry : shard["entries"]) CHECK(seen.insert(seeded_key_of(entry)).second);  // disjoint
        CHECK(run_runner("report " + file.string()).status == 0);
    }
    CHECK(seen == seeded_keys_of(read_json(whole)["entries"]));  // complete

    const Outcome o = run_runner("merge" + joined(shards) + " --output " + merged.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("merged 4 of 4 shards, 8 entries"));
    const json document = read_json(merged);
    CHECK(seeded_keys_of(document["entries"]) == seeded_keys_of(read_json(whole)["entries"]));
    REQUIRE(document["merged"]["shards"].size() == 4);
    for (const json &context : document["merged"]["shards"])
        for (const char *field : {"host", "gpu", "options", "command_line", "source"}) CHECK(context.contains(field));
    CHECK(document["merged"]["missing"].empty());
    CHECK_FALSE(document.contains("shard"));
    for (const json &entry : document["entries"]) {
        const json shard = read_json(shards.at(entry["shard"].get<size_t>()));
        CHECK(seeded_keys_of(shard["entries"]).count(seeded_key_of(entry)) == 1);  // points at the shard that measured it
    }
    CHECK(run_runner("report " + merged.string()).status == 0);
    const Outcome compared = run_runner("compare " + whole.string() + " " + merged.string());
    INFO(compared.output);
    CHECK(compared.status != 2);
    CHECK_THAT(compared.output, Catch::Contains("| fixture_good | 8 |") && !Catch::Contains("only in"));
}

TEST_CASE("runner merge lists what no shard delivered, and --resume measures exactly that", "[shard]") {
    const test_support::TempFolder folder;
    std::vector<fs::path> shards = run_shards(folder.path(), 4);
    // Shard 1 was interrupted after its first entry; shard 2's file never arrived.
    json interrupted = read_json(shards[1]);
    const json lost = interrupted["entries"][1];
    interrupted["entries"].erase(1);
    write(shards[1], interrupted.dump());
    const json planned_for_2 = read_json(shards[2])["shard"]["planned"];
    shards.erase(shards.begin() + 2);
    const fs::path merged = folder.path() / "merged.json";
    const Outcome o = run_runner("merge" + joined(shards) + " -o " + merged.string());
    INFO(o.output);
    CHECK(o.status == 3);
    CHECK_THAT(o.output, Catch::Contains("missing: 3 planned entries no shard delivered (no file given for shard 2)") &&
                             Catch::Contains("fixture_good " + std::to_string(lost["size"].get<int>()) +
                                             " (params '', seed 5), shard 1"));
    json document = read_json(merged);
    std::set<SeededKey> missing = {seeded_key_of(lost)};
    for (const json &p : planned_for_2)
        if (p["shard"] == 2) missing.insert(seeded_key_of(p));
    CHECK(seeded_keys_of(document["merged"]["missing"]) == missing);
    CHECK(document["merged"]["missing_shards"] == json::array({2}));
    const json delivered = document["entries"];
    CHECK(delivered.size() == 5);

    // No --plugin or --sizes: the merged file's plan says what the sweep is.
    const Outcome resumed = run_runner(fixtures() + eight_entry_options + " --resume " + merged.string());
    INFO(resumed.output);
    CHECK(resumed.status == 0);
    CHECK_THAT(resumed.output, Catch::Contains("8 ok") && Catch::Contains("(5 of them already in the file)"));
    document = read_json(merged);
    REQUIRE(document["entries"].size() == 8);
    std::set<SeededKey> measured;
    for (size_t i = 0; i < document["entries"].size(); ++i)
        if (i < delivered.size())
            CHECK(document["entries"][i] == delivered[i]);  // what was there is untouched
        else
            measured.insert(seeded_key_of(document["entries"][i]));
    CHECK(measured == missing);
    CHECK(document["merged"]["missing"].empty());
    CHECK(document["resumed"].size() == 1);
}

TEST_CASE("a shard's file resumes its own entries, and refuses another shard's options", "[shard]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "shard.json";
    REQUIRE(run_runner(fixtures() + eight_entry_sweep + " --shard 3/4 -o " + file.string()).status == 0);
    json shard = read_json(file);
    const std::set<SeededKey> all = seeded_keys_of(shard["entries"]);
    shard["entries"].erase(0);
    write(file, shard.dump());
    const Outcome resumed = run_runner(fixtures() + eight_entry_options + " --resume " + file.string());
    INFO(resumed.output);
    CHECK(resumed.status == 0);
    CHECK_THAT(resumed.output, Catch::Contains("(1 of them already in the file)"));
    CHECK(seeded_keys_of(read_json(file)["entries"]) == all);
    const std::pair<std::string, std::string> refused[] = {
        {eight_entry_options + " --shard 1/4", "cannot resume: " + file.string() + " is shard 3/4, not 1/4"},
        {eight_entry_sweep, "is shard 3/4: with --plugin or --sizes, give its --shard too"},
        {" --seed 6 --warmup 0" + std::string(quick), "planned its entries with --seed 5: resume it with the same"},
        {" --seed 5 --warmup 0 --param reject_odd=1" + std::string(quick),
         "planned its entries with no --param: resume it with the same (this run has --param reject_odd=1)"}};
    for (const auto &[arguments, says] : refused) {
        const Outcome o = run_runner(fixtures() + arguments + " --resume " + file.string());
        INFO(arguments << ": " << o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::StartsWith("runner: error: ") && Catch::Contains(says));
    }
}

TEST_CASE("runner merge refuses files that are not the shards of one sweep, naming them, and writes nothing",
          "[shard]") {
    const test_support::TempFolder folder;
    const std::vector<fs::path> shards = run_shards(folder.path(), 4);
    const fs::path out = folder.path() / "merged.json", doctored = folder.path() / "doctored.json";
    const std::string s0 = shards[0].string(), s2 = shards[2].string(), d = doctored.string();
    const auto doctor = [&](const std::string &pointer, const json &value) {
        json document = read_json(shards[1]);
        document[json::json_pointer(pointer)] = value;
        write(doctored, document.dump());
    };
    doctor("/build/git_revision", "0000000-other");
    check_merge_refused(s0 + " " + d, out, s0 + " and " + d + " are of different builds: build.git_revision is \"");
    doctor("/options/max_time_s", 99);
    check_merge_refused(s0 + " " + d, out,
                        s0 + " and " + d + " were measured with different options: options.max_time_s is");
    doctor("/shard/count", 5);
    check_merge_refused(s0 + " " + d, out, s0 + " is shard 0/4 and " + d + " is shard 1/5: different shard counts");
    check_merge_refused(s0 + " " + s2 + " " + s0, out, s0 + " and " + s0 + " are both shard 0/4");
    doctor("/shard/index", 4);
    check_merge_refused(s0 + " " + d, out, d + " says it is shard 4 of 4, which does not exist");
    const int first_shard = read_json(shards[1])["shard"]["planned"][0]["shard"].get<int>();
    doctor("/shard/planned/0/shard", (first_shard + 1) % 4);
    check_merge_refused(s0 + " " + d, out, "planned different sweeps: fixture_good 1 (params '', seed 5) is shard " +
                                               std::to_string(first_shard) + "'s in");
    json overlapping = read_json(shards[1]);
    const json taken = read_json(shards[0])["entries"][0];
    overlapping["entries"].push_back(taken);
    write(doctored, overlapping.dump());
    check_merge_refused(s0 + " " + d, out, "entry fixture_good " + std::to_string(taken["size"].get<int>()) +
                                               " (params '', seed 5) is in both " + s0 + " and " + d);
    write(doctored, "{}");
    check_merge_refused(s0 + " " + d, out, d + " is not a gpubench results file");
    doctor("/entries/0/size", "one");
    check_merge_refused(s0 + " " + d, out, d + ": /entries/0/size: expected an integer, got a string");
    REQUIRE(run_runner(fixtures() + eight_entry_sweep + " -o " + d).status == 0);
    check_merge_refused(s0 + " " + d, out, d + " is not a shard of a sweep (no \"shard\"");
    check_merge_refused(s0, fs::path(""), "--output names the merged file");

    // Each machine's own options may differ: threads and the CUDA device.
    doctor("/options/cpu_threads", 64);
    const Outcome o = run_runner("merge " + s0 + " " + d + " -o " + out.string());
    INFO(o.output);
    CHECK(o.status == 3);  // shards 2 and 3 not given
    check_merge_refused(out.string(), folder.path() / "again.json", out.string() + " is a merged file");
}

TEST_CASE("the runner with shard auto: the shard of a Slurm array task, recorded with its source",
          "[shard]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "task.json";
    const std::string clean_environment =
        "env -u SLURM_ARRAY_TASK_ID -u SLURM_PROCID -u SLURM_NTASKS -u OMPI_COMM_WORLD_RANK "
        "-u OMPI_COMM_WORLD_SIZE -u PMI_RANK -u PMI_SIZE ";
    const Outcome o = run_command(clean_environment + "SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=6 "
                                  "SLURM_ARRAY_TASK_MAX=7 " + GPUBENCH_RUNNER + " " + fixtures() + eight_entry_sweep +
                                  " --shard auto -o " + file.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("shard 1/2 (SLURM_ARRAY_TASK_ID=7, SLURM_ARRAY_TASK_MIN=6, "
                                         "SLURM_ARRAY_TASK_MAX=7): 4 of the sweep's 8 entries"));
    const json document = read_json(file);
    CHECK(document["shard"]["index"] == 1);
    CHECK(document["shard"]["count"] == 2);
    CHECK(document["shard"]["costs"] == "declared work at nominal rates, workloads spread over the shards");
    std::set<SeededKey> planned;
    for (const json &p : document["shard"]["planned"])
        if (p["shard"] == 1) planned.insert(seeded_key_of(p));
    CHECK(seeded_keys_of(document["entries"]) == planned);

    const Outcome none =
        run_command(clean_environment + GPUBENCH_RUNNER + " " + fixtures() + eight_entry_sweep + " --shard auto");
    CHECK(none.status == 2);
    CHECK_THAT(none.output, Catch::StartsWith("runner: error: --shard auto: no launcher variables found"));
    const Outcome bad = run_runner(fixtures() + eight_entry_sweep + " --shard 2/2");
    CHECK(bad.status == 2);
    CHECK_THAT(bad.output, Catch::StartsWith("runner: error: --shard '2/2': shard 2 of 2 does not exist"));
}

TEST_CASE("a shard whose entries were only skipped exits 0, and runner merge exits with the sweep's status",
          "[shard]") {
    const test_support::TempFolder folder;
    // fixture_good's sizes end at 1000: every entry of either shard is skipped.
    std::vector<fs::path> skipped;
    for (int i = 0; i < 2; ++i) {
        skipped.push_back(folder.path() / ("skipped-" + std::to_string(i) + ".json"));
        const Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 2000,3000" + eight_entry_options +
                                     " --shard " + std::to_string(i) + "/2 -o " + skipped.back().string());
        INFO(o.output);
        CHECK(o.status == 0);
        CHECK_THAT(o.output, Catch::Contains("this shard exits with status 0: its skipped entries are recorded in " +
                                             skipped.back().string() + ", and runner merge reports them"));
        const json document = read_json(skipped.back());
        for (const json &entry : document["entries"]) CHECK(entry["status"] == "skipped");
    }
    const fs::path merged = folder.path() / "merged.json";
    Outcome o = run_runner("merge" + joined(skipped) + " -o " + merged.string());
    CHECK(o.status == 3);
    CHECK_THAT(o.output, Catch::Contains("of them: 0 failed verification, 0 errors, 2 skipped"));

    // A failed entry makes it 1, beside skipped and missing ones too; missing ones alone, 3.
    std::vector<fs::path> mixed;
    int failing = -1;
    for (int i = 0; i < 2; ++i) {
        mixed.push_back(folder.path() / ("mixed-" + std::to_string(i) + ".json"));
        const Outcome shard = run_runner(fixtures() + " --plugin fixture_good,fixture_bad_verify --sizes 1,2000" +
                                         eight_entry_options + " --shard " + std::to_string(i) + "/2 -o " +
                                         mixed.back().string());
        INFO(shard.output);
        const json document = read_json(mixed.back());
        for (const json &entry : document["entries"])
            if (entry["status"] == "verification_failed") failing = i;
        CHECK(shard.status == (failing == i ? 1 : 0));
    }
    REQUIRE(failing >= 0);
    o = run_runner("merge" + joined(mixed) + " -o " + merged.string());
    INFO(o.output);
    CHECK(o.status == 1);
    CHECK_THAT(o.output, Catch::Contains("of them: 1 failed verification, 0 errors, 2 skipped"));
    CHECK(run_runner("merge " + mixed[failing].string() + " -o " + merged.string()).status == 1);
    o = run_runner("merge " + mixed[1 - failing].string() + " -o " + merged.string());
    CHECK(o.status == 3);
    CHECK_THAT(o.output, Catch::Contains("missing: "));
}

TEST_CASE("a default sweep's shard resumes under the default sweep's plan: 1 s per entry unless --max-time, "
          "its budget, the command line's own options otherwise",
          "[shard]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "shard.json";
    REQUIRE(run_runner(fixtures() + eight_entry_sweep + " --shard 1/2 -o " + file.string()).status == 0);
    json shard = read_json(file);
    const double given_max_time_s = shard["options"]["max_time_s"].get<double>();
    REQUIRE(given_max_time_s != 1.0);  // the command line's default, not the default sweep's
    CHECK_FALSE(shard["options"].contains("budget_s"));
    // As if the default sweep had planned it: resumed without --plugin or --sizes, it is one.
    shard["options"]["default_sweep"] = "the default sweep";
    write(file, shard.dump());

    const Outcome resumed = run_runner(fixtures() + eight_entry_options + " --resume " + file.string());
    INFO(resumed.output);
    REQUIRE(resumed.status == 0);
    // Each resumption records the options it measured with.
    json recorded = read_json(file)["resumed"].back()["options"];
    CHECK(recorded["max_time_s"] == 1.0);
    CHECK(recorded["budget_s"] == 150);
    CHECK(recorded.contains("default_sweep"));
    CHECK(recorded["seed"] == 5);
    CHECK(recorded["warmup_runs"] == 0);

    const Outcome given =
        run_runner(fixtures() + eight_entry_options + " --max-time 3 --budget 60 --resume " + file.string());
    INFO(given.output);
    REQUIRE(given.status == 0);
    recorded = read_json(file)["resumed"].back()["options"];
    CHECK(recorded["max_time_s"] == 3.0);
    CHECK(recorded["budget_s"] == 60);
}
