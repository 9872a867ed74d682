// --shard-costs FILE through the runner: an earlier results file or a history database
// (runner history add), each entry's recorded wall time less its worker's start, the entries
// it lacks predicted; anything else refused in one line. And without it, ranks on one host
// plan by an earlier sweep of that host that they find beside their results.
#include "runner_process.hpp"
#include "sqlite_file.hpp"
#include "system_info.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <map>

using namespace runner_process;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// What the plan takes of a recorded entry (recorded_costs, core/results/results_model.hpp): its wall time,
// less its worker's start where the worker was started for it: the load and the first run's
// excess over the median run.
std::pair<double, double> cost_and_start(const json &entry) {
    const double wall = entry["harness"]["entry_wall_s"].get<double>();
    if (!entry["harness"]["worker_started"].get<bool>()) return {wall, 0.0};
    const json &timing = entry["timing"];
    // The plan's rule (recorded_costs, results_model.cpp): a worker's start costs at most the entry it came with.
    const double start = std::min(
        wall, timing["load"].get<double>() +
                  std::max(0.0, timing["first_run"].get<double>() - timing["run"]["median"].get<double>()));
    return {wall - start, start};
}

std::map<uint64_t, double> planned_costs(const json &document) {
    std::map<uint64_t, double> costs;
    for (const json &p : document["shard"]["planned"]) costs[p["size"].get<uint64_t>()] = p["cost"].get<double>();
    return costs;
}

// An earlier sweep of `sizes`, created at `created`, its wall times `factor` times as long.
fs::path earlier_sweep(const fs::path &folder, const std::string &name, const std::string &sizes,
                       const std::string &created, double factor) {
    const fs::path file = folder / (name + ".json");
    const Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes " + sizes + " --seed 5 --warmup 0" +
                                 std::string(quick) + " -o " + file.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    json document = read_json(file);
    document["created"] = created;
    for (json &entry : document["entries"])
        entry["harness"]["entry_wall_s"] = entry["harness"]["entry_wall_s"].get<double>() * factor;
    write(file, document.dump());
    return file;
}

}  // namespace

TEST_CASE("shard costs balance by an earlier sweep's wall times, read as untrusted input", "[shard]") {
    const test_support::TempFolder folder;
    const fs::path earlier = folder.path() / "earlier.json", file = folder.path() / "shard.json";
    REQUIRE(run_runner(fixtures() + eight_entry_sweep + " -o " + earlier.string()).status == 0);
    const Outcome o = run_runner(fixtures() + eight_entry_sweep + " --shard 0/3 --shard-costs " + earlier.string() +
                                 " -o " + file.string());
    INFO(o.output);
    CHECK(o.status == 0);
    const json document = read_json(file), recorded = read_json(earlier);
    CHECK(document["shard"]["costs"] == "from earlier results: " + earlier.string());
    // The plugin's start (its worker's load and first compilation) is a cost of its own, out
    // of its first entry's.
    const json &first = recorded["entries"][0];
    CHECK(document["shard"]["start_costs"]["fixture_good"].get<double>() == Approx(cost_and_start(first).second));
    const std::map<uint64_t, double> planned = planned_costs(document);
    for (const json &entry : recorded["entries"])
        CHECK(planned.at(entry["size"].get<uint64_t>()) == Approx(cost_and_start(entry).first));
    write(earlier, "{\"schema_version\": 1}");
    const Outcome bad = run_runner(fixtures() + eight_entry_sweep + " --shard 0/3 --shard-costs " + earlier.string());
    CHECK(bad.status == 2);
    CHECK_THAT(bad.output, Catch::StartsWith("runner: error: --shard-costs: " + earlier.string() +
                                             ": the document: required field 'created' missing"));
}

TEST_CASE("shard costs from a history database: each entry's most recent wall time, the rest predicted",
          "[shard]") {
    const test_support::TempFolder folder;
    const fs::path db = folder.path() / "history.sqlite";
    // Added in this order, dated the other way: the most recent is the one dated last.
    const fs::path recent = earlier_sweep(folder.path(), "recent", "1..6:+1", "2026-02-02T00:00:00Z", 3.0);
    const fs::path older = earlier_sweep(folder.path(), "older", "1..8:+1", "2026-01-01T00:00:00Z", 1.0);
    for (const fs::path &results : {recent, older}) {
        const Outcome added = run_runner("history add " + results.string() + " --db " + db.string());
        INFO(added.output);
        REQUIRE(added.status == 0);
    }
    const fs::path file = folder.path() / "shard.json", predicted = folder.path() / "predicted.json";
    const Outcome o =
        run_runner(fixtures() + eight_entry_sweep + " --shard 0/3 --shard-costs " + db.string() + " -o " + file.string());
    INFO(o.output);
    CHECK(o.status == 0);
    const json document = read_json(file);
    CHECK(document["shard"]["costs"] == "from the history: " + db.string());
    const std::map<uint64_t, double> planned = planned_costs(document);
    // Held in names: a range-for over a temporary's member would read freed memory.
    const json recent_sweep = read_json(recent), older_sweep = read_json(older);
    for (const json &entry : recent_sweep["entries"])
        CHECK(planned.at(entry["size"].get<uint64_t>()) == Approx(cost_and_start(entry).first));
    CHECK(document["shard"]["start_costs"]["fixture_good"].get<double>() ==
          Approx(cost_and_start(recent_sweep["entries"][0]).second));
    // 7 and 8: the older run has them, and they are planned from it.
    for (const json &entry : older_sweep["entries"])
        if (entry["size"].get<uint64_t>() > 6)
            CHECK(planned.at(entry["size"].get<uint64_t>()) == Approx(cost_and_start(entry).first));

    // A sweep beyond the history: the entries it lacks are predicted from declared work, as
    // without --shard-costs, not given the median of the recorded ones.
    const std::string wider = " --plugin fixture_good --sizes 1..10:+1 --seed 5 --warmup 0" + std::string(quick);
    REQUIRE(run_runner(fixtures() + wider + " --shard 0/3 --shard-costs " + db.string() + " -o " + file.string())
                .status == 0);
    REQUIRE(run_runner(fixtures() + wider + " --shard 0/3 -o " + predicted.string()).status == 0);
    const json partly = read_json(file);
    CHECK(partly["shard"]["costs"] == "from the history: " + db.string() +
                                          ", 2 of 10 entries predicted from declared work (not recorded there)");
    for (uint64_t size : {9, 10})
        CHECK(planned_costs(partly).at(size) == Approx(planned_costs(read_json(predicted)).at(size)));

    // A history written before wall times were kept: every entry predicted; adding to it
    // again gives it the columns.
    sql(db, "ALTER TABLE points DROP COLUMN wall_s");
    sql(db, "ALTER TABLE points DROP COLUMN start_s");
    REQUIRE(run_runner(fixtures() + eight_entry_sweep + " --shard 0/3 --shard-costs " + db.string() + " -o " + file.string())
                .status == 0);
    CHECK(read_json(file)["shard"]["costs"] == "from the history: " + db.string() +
                                                   ", 8 of 8 entries predicted from declared work (not recorded there)");
    const fs::path again = earlier_sweep(folder.path(), "again", "1..8:+1", "2026-03-03T00:00:00Z", 2.0);
    REQUIRE(run_runner("history add " + again.string() + " --db " + db.string()).status == 0);
    REQUIRE(run_runner(fixtures() + eight_entry_sweep + " --shard 0/3 --shard-costs " + db.string() + " -o " + file.string())
                .status == 0);
    CHECK(read_json(file)["shard"]["costs"] == "from the history: " + db.string());
}

TEST_CASE("shard costs: a file that is neither a results file nor a history is refused in one line",
          "[shard]") {
    const test_support::TempFolder folder;
    const auto refused = [&](const fs::path &file, const std::string &says) {
        const Outcome o = run_runner(fixtures() + eight_entry_sweep + " --shard 0/2 --shard-costs " + file.string());
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
        CHECK_THAT(o.output, Catch::StartsWith("runner: error: --shard-costs: " + file.string()) &&
                                 Catch::Contains(says));
    };
    const fs::path text = folder.path() / "notes.txt", other = folder.path() / "other.sqlite";
    write(text, "not a results file\n");
    refused(text, "is neither a results file (JSON) nor a history database (SQLite)");
    sql(other, "CREATE TABLE t (x INTEGER)");  // another application's database
    refused(other, "is not a gpubench history database");
    const fs::path missing = folder.path() / "missing.json";
    const Outcome o = run_runner(fixtures() + eight_entry_sweep + " --shard 0/2 --shard-costs " + missing.string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::StartsWith("runner: error: --shard-costs: cannot read " + missing.string()));
}

TEST_CASE("ranks on one host plan by the newest earlier sweep of that host beside their results, when it "
          "records every entry",
          "[shard]") {
    const test_support::TempFolder folder;
    const std::string host = gpubench::host_name(), predicted = "declared work at nominal rates, workloads spread over the shards";
    const fs::path file = folder.path() / "shard.json";
    // Rank 0 of 2 started by Open MPI's mpirun, `local` of them on this host; or `--shard 0/2`.
    const auto shard_costs = [&](const std::string &local, const std::string &shard = "auto") {
        const Outcome o = run_command(
            "env -u SLURM_ARRAY_TASK_ID -u SLURM_PROCID -u SLURM_NTASKS -u SLURM_STEP_NUM_TASKS "
            "-u SLURM_STEP_NUM_NODES -u PMI_RANK -u PMI_SIZE -u MPI_LOCALNRANKS OMPI_MCA_ess_base_jobid=gpubench-test-" +
            std::to_string(getpid()) + " OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=" +
            local + " " + GPUBENCH_RUNNER + " " + fixtures() + eight_entry_sweep + " --shard " + shard + " -o " +
            file.string());
        INFO(o.output);
        REQUIRE(o.status == 0);
        return read_json(file)["shard"]["costs"].get<std::string>();
    };
    CHECK(shard_costs("2") == predicted);  // none there yet
    const fs::path older = earlier_sweep(folder.path(), host + "-20260101T000000Z", "1..8:+1", "2026-01-01T00:00:00Z", 1.0);
    const fs::path newer = earlier_sweep(folder.path(), host + "-20260202T000000Z", "1..8:+1", "2026-02-02T00:00:00Z", 2.0);
    CHECK(shard_costs("2") == "from earlier results on this host: " + newer.string());
    const json newer_sweep = read_json(newer);
    const std::map<uint64_t, double> planned = planned_costs(read_json(file));
    for (const json &entry : newer_sweep["entries"])
        CHECK(planned.at(entry["size"].get<uint64_t>()) == Approx(cost_and_start(entry).first));
    // Ranks on other hosts too, or shards that no launcher started together, might find another
    // file or none: they predict, as every shard can alike.
    CHECK(shard_costs("1") == predicted);
    CHECK(shard_costs("2", "0/2") == predicted);
    // Newer still, but without sizes 7 and 8: not these entries' costs.
    earlier_sweep(folder.path(), host + "-20260303T000000Z", "1..6:+1", "2026-03-03T00:00:00Z", 3.0);
    CHECK(shard_costs("2") == "from earlier results on this host: " + newer.string());
    // Recorded on another host (the name aside), or not a results file: passed over.
    json elsewhere = newer_sweep;
    elsewhere["host"]["host_name"] = host + "-elsewhere";
    write(newer, elsewhere.dump());
    write(folder.path() / (host + "-20260404T000000Z.json"), "{\"schema_version\": 1}");
    CHECK(shard_costs("2") == "from earlier results on this host: " + older.string());
    fs::remove(older);
    CHECK(shard_costs("2") == predicted);
}
