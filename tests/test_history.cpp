// runner history add / show / regressions, through the runner binary as a user runs it: runs
// from a real small sweep (vecadd_naive), copied with scaled timings, distinct dates and
// commits; bad files and bad databases refused with nothing lost; eight concurrent writers.
#include "runner_process.hpp"
#include "sqlite_file.hpp"
#include "test_support.hpp"
#include "text_format.hpp"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

using namespace runner_process;
using gpubench::format_seconds;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// One real sweep per test process, written once: vecadd_naive at size 1000.
const json &real_sweep() {
    static const json document = [] {
        const fs::path plugin = fs::path(GPUBENCH_PLUGIN_DIR) / "vecadd_naive.so";
        if (!fs::exists(plugin)) test_support::skip_test("vecadd_naive is not built (" + plugin.string() + ")");
        const fs::path file = temp_results("history_sweep");
        const Outcome o = run_runner(std::string("--plugin-dir ") + GPUBENCH_PLUGIN_DIR +
                                     " --plugin vecadd_naive --sizes 1000 --max-time 0.05 --quiet -o " + file.string());
        INFO(o.output);
        REQUIRE(o.status == 0);
        const json read = read_json(file);
        fs::remove(file);
        return read;
    }();
    return document;
}

void scale_timing(json &timing, double factor) {
    for (const char *key : {"median", "mean", "min", "max", "stddev"})
        if (timing["run"].contains(key)) timing["run"][key] = timing["run"][key].get<double>() * factor;
    for (json &sample : timing["samples"]["run"]) sample = sample.get<double>() * factor;
    if (timing.contains("compute")) timing["compute"]["median"] = timing["compute"]["median"].get<double>() * factor;
    if (timing.contains("per_launch"))
        for (json &sample : timing["per_launch"]["samples"]) sample = sample.get<double>() * factor;
}

// A copy of the real sweep, its timings `factor` times as long, created on day `day`.
fs::path run_file(const fs::path &folder, int day, double factor) {
    json document = real_sweep();
    document["created"] = "2026-01-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T12:00:00Z";
    for (json &entry : document["entries"])
        if (entry.contains("timing")) scale_timing(entry["timing"], factor);
    const fs::path file = folder / ("run-" + std::to_string(day) + ".json");
    write(file, document.dump());
    return file;
}

std::string db_option(const fs::path &db) { return " --db " + db.string(); }

// What SQLite holds, read from the database directly, not through the runner: each row of
// `query`'s answer, its columns as text.
std::vector<std::vector<std::string>> rows_of(const fs::path &db, const std::string &query) {
    sqlite3 *handle = nullptr;
    REQUIRE(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt *statement = nullptr;
    REQUIRE(sqlite3_prepare_v2(handle, query.c_str(), -1, &statement, nullptr) == SQLITE_OK);
    std::vector<std::vector<std::string>> rows;
    while (sqlite3_step(statement) == SQLITE_ROW) {
        rows.emplace_back();
        for (int column = 0; column < sqlite3_column_count(statement); ++column) {
            const unsigned char *text = sqlite3_column_text(statement, column);
            rows.back().push_back(text ? reinterpret_cast<const char *>(text) : "");
        }
    }
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return rows;
}

int64_t count_rows(const fs::path &db, const std::string &table) {
    return std::stoll(rows_of(db, "SELECT count(*) FROM " + table).at(0).at(0));
}

// The medians stored for `plugin` at `size`, oldest run first, as the doubles SQLite holds:
// its text form has 15 digits, which can round a median at a printed digit's boundary (0.935 us)
// the other way than the runner's own reading does.
std::vector<double> stored_medians(const fs::path &db, const std::string &plugin, uint64_t size) {
    sqlite3 *handle = nullptr;
    REQUIRE(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    const std::string query = "SELECT median FROM points WHERE plugin = '" + plugin +
                              "' AND size = " + std::to_string(size) + " ORDER BY run_id";
    sqlite3_stmt *statement = nullptr;
    REQUIRE(sqlite3_prepare_v2(handle, query.c_str(), -1, &statement, nullptr) == SQLITE_OK);
    std::vector<double> medians;
    while (sqlite3_step(statement) == SQLITE_ROW) medians.push_back(sqlite3_column_double(statement, 0));
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return medians;
}

// `runner history show`'s trend of one series, read back: its heading's label and a row per run.
struct TrendRow {
    std::string date, commit, median, spread, note;
};
struct Trend {
    std::string label;  // the heading's first field ("vecadd_naive 1000")
    std::vector<TrendRow> rows;
};

// The columns of a row are separated by two spaces or more; a step's note is the last.
Trend parse_trend(const std::string &output) {
    std::istringstream in(output);
    std::string line;
    Trend trend;
    REQUIRE(std::getline(in, line));
    trend.label = line.substr(0, line.find(" | "));
    REQUIRE(std::getline(in, line));
    CHECK(std::regex_match(line, std::regex(" +date +commit +median +spread \\(quartiles\\)")));
    while (std::getline(in, line) && !line.empty()) {
        std::vector<std::string> fields;
        const std::regex gap(" {2,}");
        for (std::sregex_token_iterator it(line.begin() + 2, line.end(), gap, -1), end; it != end; ++it)
            fields.push_back(*it);
        REQUIRE(fields.size() >= 4);
        trend.rows.push_back({fields[0], fields[1], fields[2], fields[3], fields.size() > 4 ? fields[4] : ""});
    }
    return trend;
}

}  // namespace

TEST_CASE("history add stores a run once, and show prints its trend", "[history]") {
    test_support::TempFolder folder;
    const fs::path db = folder.path() / "deep" / "history.sqlite";  // its folder is created
    const fs::path first = run_file(folder.path(), 1, 1.0), second = run_file(folder.path(), 2, 1.0);

    Outcome added = run_runner("history add " + first.string() + " --commit c1" + db_option(db));
    INFO(added.output);
    REQUIRE(added.status == 0);
    CHECK(added.output == first.string() + ": added as run 1: 1 verified entries, commit c1, 2026-01-01T12:00:00Z\n");
    Outcome again = run_runner("history add " + first.string() + " " + second.string() + " --commit c2" + db_option(db));
    INFO(again.output);
    REQUIRE(again.status == 0);
    CHECK(again.output == first.string() + ": already stored (run 1); not added again\n" + second.string() +
                              ": added as run 2: 1 verified entries, commit c2, 2026-01-02T12:00:00Z\n");
    // Each run once, with its commit and date; one point each, the entry's recorded median.
    CHECK(rows_of(db, "SELECT id, commit_id, created FROM runs ORDER BY id") ==
          std::vector<std::vector<std::string>>{{"1", "c1", "2026-01-01T12:00:00Z"}, {"2", "c2", "2026-01-02T12:00:00Z"}});
    const std::vector<double> medians = stored_medians(db, "vecadd_naive", 1000);
    REQUIRE(medians.size() == 2);
    const double recorded = real_sweep()["entries"][0]["timing"]["run"]["median"].get<double>();
    CHECK(medians[0] == Approx(recorded));
    CHECK(medians[1] == Approx(recorded));

    Outcome shown = run_runner("history show --plugin 'vecadd_*' --size 1000" + db_option(db));
    INFO(shown.output);
    REQUIRE(shown.status == 0);
    const Trend trend = parse_trend(shown.output);
    CHECK(trend.label == "vecadd_naive 1000");
    REQUIRE(trend.rows.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        CHECK(trend.rows[i].date == "2026-01-0" + std::to_string(i + 1) + "T12:00:00Z");
        CHECK(trend.rows[i].commit == "c" + std::to_string(i + 1));
        CHECK(trend.rows[i].median == format_seconds(medians[i]));
        CHECK(trend.rows[i].note.empty());  // no step
    }
    Outcome none = run_runner("history show --plugin 'matmul_*'" + db_option(db));
    CHECK(none.status == 0);
    CHECK(none.output == "no series in " + db.string() + " matches\n");
}

TEST_CASE("history regressions: a 2x step in the last 2 of 6 commits exits 1", "[history]") {
    test_support::TempFolder folder;
    const fs::path db = folder.path() / "history.sqlite";
    const std::regex summary("(\\d+) series, (\\d+) change points; (\\d+) regressed at the newest commits "
                             "\\(threshold (\\d+)%\\)\n");
    std::smatch counts;
    for (int day = 1; day <= 6; ++day) {
        const fs::path file = run_file(folder.path(), day, day >= 5 ? 2.0 : 1.0);
        REQUIRE(run_runner("history add " + file.string() + " --commit c" + std::to_string(day) + db_option(db)).status == 0);
        if (day == 4) {  // flat so far: nothing regressed
            Outcome flat = run_runner("history regressions" + db_option(db));
            INFO(flat.output);
            CHECK(flat.status == 0);
            REQUIRE(std::regex_match(flat.output, counts, summary));
            CHECK(counts[1] == "2");  // the time's series and the runner's page_faults_per_run
            CHECK(counts[2] == "0");
            CHECK(counts[3] == "0");
        }
    }
    const std::vector<double> medians = stored_medians(db, "vecadd_naive", 1000);
    REQUIRE(medians.size() == 6);
    CHECK(medians[4] == Approx(2 * medians[0]));  // the files' 2x, as stored

    Outcome regressed = run_runner("history regressions" + db_option(db));
    INFO(regressed.output);
    CHECK(regressed.status == 1);
    std::smatch step;
    REQUIRE(std::regex_search(regressed.output, step,
                              std::regex("REGRESSION: (.+?) \\| .* (\\d+)% (slower|faster) from commit (\\S+) "
                                         "\\((\\S+)\\): (.+) -> (.+) \\((\\d+) runs? since\\)\n")));
    CHECK(step[1] == "vecadd_naive 1000");
    CHECK(step[2] == "100");
    CHECK(step[3] == "slower");
    CHECK(step[4] == "c5");
    CHECK(step[5] == "2026-01-05T12:00:00Z");
    CHECK(step[6] == format_seconds(medians[0]));
    CHECK(step[7] == format_seconds(medians[4]));
    CHECK(step[8] == "2");
    const std::string after_step = step.suffix();
    REQUIRE(std::regex_match(after_step, counts, summary));
    CHECK(counts[1] == "2");
    CHECK(counts[2] == "1");
    CHECK(counts[3] == "1");
    // A step of 100% is not one above a threshold of 150%.
    CHECK(run_runner("history regressions --threshold 1.5" + db_option(db)).status == 0);

    Outcome shown = run_runner("history show" + db_option(db));
    INFO(shown.output);
    const Trend trend = parse_trend(shown.output);
    REQUIRE(trend.rows.size() == 6);
    for (size_t i = 0; i < 6; ++i) {
        CHECK(trend.rows[i].commit == "c" + std::to_string(i + 1));
        CHECK(trend.rows[i].median == format_seconds(medians[i]));
        CHECK(trend.rows[i].note == (i == 4 ? "<- step +100% (slower)" : ""));  // marked where it began
    }
    CHECK(run_runner("history regressions --threshold -1" + db_option(db)).status == 2);
    CHECK(run_runner("history regressions extra" + db_option(db)).status == 2);
    CHECK(run_runner("history frobnicate").status == 2);
}

TEST_CASE("history add refuses a bad file in one line and keeps the files before it", "[history]") {
    test_support::TempFolder folder;
    const fs::path db = folder.path() / "history.sqlite";
    const fs::path good = run_file(folder.path(), 1, 1.0), next = run_file(folder.path(), 2, 1.0);
    const fs::path after = run_file(folder.path(), 3, 1.0);
    const fs::path not_json = folder.path() / "notes.json", broken = folder.path() / "broken.json";
    write(not_json, "these are my notes\n");
    json document = real_sweep();
    document["entries"][0].erase("plugin");  // a schema violation
    write(broken, document.dump());

    for (const fs::path &bad : {not_json, broken}) {
        Outcome o = run_runner("history add " + good.string() + " " + next.string() + " " + bad.string() + " " +
                               after.string() + db_option(db));
        INFO(o.output);
        CHECK(o.status == 2);
        const size_t error = o.output.find("runner history add: error: " + bad.string());
        REQUIRE(error != std::string::npos);
        CHECK(test_support::line_count(o.output.substr(error)) == 1);
        CHECK(count_rows(db, "runs") == 2);  // good and next (once), never `after`
        CHECK(count_rows(db, "points") == 2);
    }
    CHECK(run_runner("history add" + db_option(db)).status == 2);  // no file
}

TEST_CASE("history refuses a database that is not a gpubench history, and leaves it alone", "[history]") {
    test_support::TempFolder folder;
    const fs::path good = run_file(folder.path(), 1, 1.0);
    const fs::path random_file = folder.path() / "random.sqlite", other = folder.path() / "other.sqlite";
    write(random_file, std::string(4096, 'x'));
    sql(other, "CREATE TABLE customers (name TEXT); INSERT INTO customers VALUES ('ada')");
    const std::string other_before = slurp(other);

    for (const fs::path &db : {random_file, other})
        for (const std::string &command : {"history add " + good.string(), std::string("history show"),
                                           std::string("history regressions")}) {
            Outcome o = run_runner(command + db_option(db));
            INFO(command << db_option(db) << "\n" << o.output);
            CHECK(o.status == 2);
            CHECK(o.output.find(db.string() + " is not a gpubench history database") != std::string::npos);
            CHECK(test_support::line_count(o.output) == 1);
        }
    CHECK(slurp(random_file) == std::string(4096, 'x'));
    CHECK(slurp(other) == other_before);

    // A history of a newer schema: refused, not misread.
    const fs::path newer = folder.path() / "newer.sqlite";
    REQUIRE(run_runner("history add " + good.string() + db_option(newer)).status == 0);
    sql(newer, "PRAGMA user_version = 99");
    Outcome o = run_runner("history show" + db_option(newer));
    CHECK(o.status == 2);
    CHECK(o.output.find("written by a newer gpubench (history schema 99") != std::string::npos);
    Outcome missing = run_runner("history show" + db_option(folder.path() / "none.sqlite"));
    CHECK(missing.status == 2);
    CHECK(missing.output.find("no history database") != std::string::npos);
}

TEST_CASE("eight history add processes started at once on one database lose nothing", "[history]") {
    test_support::TempFolder folder;
    const fs::path db = folder.path() / "history.sqlite";  // created by whichever comes first
    std::string script = "pids=; ";
    for (int process = 0; process < 8; ++process) {
        std::string files;
        for (int k = 1; k <= 3; ++k) files += " " + run_file(folder.path(), process * 3 + k, 1.0 + 0.01 * k).string();
        script += std::string(GPUBENCH_RUNNER) + " history add" + files + db_option(db) + " >/dev/null & pids=\"$pids $!\"; ";
    }
    script += "failed=0; for p in $pids; do wait $p; s=$?; [ $s = 0 ] || { failed=$((failed + 1)); echo status=$s; }; done; echo failed=$failed";
    Outcome o = run_runner_shell(script);
    INFO(o.output);
    CHECK(o.output.find("failed=0") != std::string::npos);
    CHECK(count_rows(db, "runs") == 24);
    CHECK(count_rows(db, "points") == 24);
    Outcome shown = run_runner("history show" + db_option(db));
    CHECK(shown.status == 0);
    // Heading, column names, 24 runs, blank line: the time's series, then the runner's
    // page_faults_per_run metric's.
    CHECK(test_support::line_count(shown.output) == 2 * (24 + 3));
}
