// The results journal (core/results/results.hpp): a runner killed at any point loses
// nothing it recorded, --resume completes the sweep from the journal, and a journal is read as
// untrusted input.
#include "results.hpp"
#include "results_model.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fcntl.h>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace runner_process;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string sweep_options =
    " --plugin fixture_good,fixture_misbehave --sizes 100..139:+1 --warmup 0 --min-samples 1 --max-samples 1 --min-time 0";

// (plugin, size) of each entry, with how often it is there.
std::map<std::pair<std::string, uint64_t>, int> entry_counts(const json &document) {
    std::map<std::pair<std::string, uint64_t>, int> counts;
    for (const json &entry : document.at("entries"))
        ++counts[{entry.at("plugin").get<std::string>(), entry.at("size").get<uint64_t>()}];
    return counts;
}

// The rows of the table the runner printed: each is printed only once its entry is recorded.
size_t printed_rows(const std::string &table) {
    size_t rows = 0;
    for (size_t at = table.find("\nfixture_"); at != std::string::npos; at = table.find("\nfixture_", at + 1)) ++rows;
    return rows;
}

// Runs the runner with `arguments` (split at spaces), its stdout into `table`, and kills it
// with SIGKILL after `delay` unless it ends first: true when it was killed.
bool run_and_kill(const std::string &arguments, const fs::path &table, std::chrono::microseconds delay) {
    std::vector<std::string> words{GPUBENCH_RUNNER};
    std::istringstream split(arguments);
    for (std::string word; split >> word;) words.push_back(word);
    std::vector<char *> argv;
    for (std::string &word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t out;
    posix_spawn_file_actions_init(&out);
    posix_spawn_file_actions_addopen(&out, STDOUT_FILENO, table.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&out, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, argv[0], &out, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&out);
    const auto deadline = std::chrono::steady_clock::now() + delay;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        if (waitpid(pid, &status, WNOHANG) == pid) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status);
}

}  // namespace

TEST_CASE("a runner killed at random points loses nothing it recorded, and --resume completes the sweep",
          "[journal]") {
    const test_support::TempFolder folder;
    const fs::path whole = folder.path() / "whole.json", part = folder.path() / "part.json",
                   table = folder.path() / "table.txt";
    const auto began = std::chrono::steady_clock::now();
    const Outcome uninterrupted = run_runner(fixtures() + sweep_options + " -o " + whole.string());
    INFO(uninterrupted.output);
    REQUIRE(uninterrupted.status == 0);  // fixture_misbehave behaves at these sizes
    const auto sweep_time = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - began);
    const auto planned = entry_counts(read_json(whole));
    REQUIRE(planned.size() == 80);
    CHECK_FALSE(fs::exists(gpubench::journal_path(whole)));  // a finished sweep leaves none

    const unsigned seed = std::random_device{}();
    INFO("kill points drawn with seed " << seed);
    std::mt19937 random(seed);
    std::uniform_int_distribution<long> point(0, sweep_time.count() / 3);
    int kills = 0;
    for (int attempt = 0; attempt < 12; ++attempt) {
        const bool started = fs::exists(part) || fs::exists(gpubench::journal_path(part));
        const std::string how = started ? " --resume " : " -o ";
        const std::chrono::microseconds delay(point(random));
        INFO("attempt " << attempt << ": killed after " << delay.count() << " us," << how << part);
        if (!run_and_kill(fixtures() + sweep_options + how + part.string(), table, delay)) break;
        ++kills;
        const std::string printed = slurp(table);
        if (!fs::exists(part) && !fs::exists(gpubench::journal_path(part))) {
            CHECK(printed_rows(printed) == 0);  // killed before it opened its results
            continue;
        }
        // Every reader sees what the killed runner had recorded, and each entry once.
        json recorded;
        REQUIRE_NOTHROW(recorded = gpubench::read_results_json(part));
        const auto counts = entry_counts(recorded);
        size_t entries = 0;
        for (const auto &[key, count] : counts) {
            CHECK(planned.count(key) == 1);
            CHECK(count == 1);
            entries += count;
        }
        CHECK(entries >= printed_rows(printed));  // this run's rows; earlier runs' entries come on top
    }
    // Each run gets at most a third of the sweep's time: it takes at least three.
    CHECK(kills >= 2);
    const Outcome completed = run_runner(fixtures() + sweep_options + " --resume " + part.string());
    INFO(completed.output);
    CHECK(completed.status == 0);
    CHECK_FALSE(fs::exists(gpubench::journal_path(part)));
    // The file itself, read without the journal's help, is whole.
    const json document = read_json(part);
    CHECK(entry_counts(document) == planned);
    CHECK(document["resumed"].size() >= 1);
}

namespace {

// A finished sweep's file, and the journal that a sweep killed after its last entry would have
// left: its header first, then one line per plugin and entry.
struct JournalCase {
    test_support::TempFolder folder;
    fs::path results = folder.path() / "run.json";
    json finished;
    std::vector<std::string> lines;

    JournalCase() {
        const Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 1..3:+1" + quick + "-o " + results.string());
        INFO(o.output);
        REQUIRE(o.status == 0);
        finished = read_json(results);
        json header = finished;
        header["plugins"] = json::array();
        header["entries"] = json::array();
        lines.push_back(json{{"document", header}}.dump());
        for (const json &plugin : finished["plugins"]) lines.push_back(json{{"plugin", plugin}}.dump());
        for (const json &entry : finished["entries"]) lines.push_back(json{{"entry", entry}}.dump());
        write(results, header.dump());  // the file as a killed sweep leaves it: the header alone
    }
    void write_journal(const std::string &tail = "") const {
        std::string text;
        for (const std::string &line : lines) text += line + "\n";
        write(gpubench::journal_path(results), text + tail);
    }
    std::string read_error() const {
        try {
            gpubench::read_results_json(results);
        } catch (const std::exception &e) {
            return e.what();
        }
        return "";
    }
};

}  // namespace

TEST_CASE("a journal replays to the document its sweep would have written, a line cut short left out",
          "[journal]") {
    JournalCase run;
    run.write_journal();
    CHECK(gpubench::read_results_json(run.results) == run.finished);
    // Killed in the middle of its last line: that entry was never recorded.
    run.write_journal("{\"entry\": {\"plugin\": \"fixture_good\", \"si");
    CHECK(gpubench::read_results_json(run.results) == run.finished);
    // Read through a symlink to the file, the target's journal is found.
    const fs::path link = run.folder.path() / "link.json";
    fs::create_symlink(run.results, link);
    CHECK(gpubench::read_results_json(link)["entries"].size() == 3);
    // The typed readers (report, compare) see the same entries.
    CHECK(gpubench::read_results_file(run.results).entries.size() == 3);
    // Without the journal, the file alone is what there is.
    fs::remove(gpubench::journal_path(run.results));
    CHECK(gpubench::read_results_json(run.results)["entries"].empty());
    // A document written whole over that name (runner merge) where a killed sweep left a
    // journal of its own (its header alone): the document is what readers then see.
    write(gpubench::journal_path(run.results), run.lines[0] + "\n");
    CHECK(gpubench::read_results_json(run.results)["entries"].empty());
    gpubench::ResultsFile::write_whole(run.results, run.finished);
    CHECK_FALSE(fs::exists(gpubench::journal_path(run.results)));
    CHECK(gpubench::read_results_json(run.results) == run.finished);
}

TEST_CASE("a hostile or broken journal is refused with one line naming it and the line", "[journal]") {
    JournalCase run;
    const std::string journal = gpubench::journal_path(run.results).string();
    const auto refused = [&](std::vector<std::string> lines, const std::string &why) {
        JournalCase &edited = run;
        const std::vector<std::string> kept = edited.lines;
        edited.lines = std::move(lines);
        edited.write_journal();
        const std::string error = edited.read_error();
        edited.lines = kept;
        INFO(error);
        CHECK(error.find('\n') == std::string::npos);
        CHECK_THAT(error, Catch::Contains(why));
    };
    std::vector<std::string> lines = run.lines;
    lines.insert(lines.begin() + 2, "not json");
    refused(lines, journal + " line 3 is not valid JSON");
    refused({"{\"entry\": {}}"}, journal + " line 1: not a gpubench journal");
    refused({run.lines[0], "{\"launch\": 1}"}, journal + " line 2: not an entry, a plugin or a set field");
    refused({run.lines[0], "{\"entry\": {}, \"plugin\": {}}"}, journal + " line 2: not one change");
    refused({run.lines[0], R"({"set": "/a/b/c/d/e", "value": 1})"}, "a set field deeper than the header's");
    refused({run.lines[0], R"({"set": "", "value": 1})"}, "a set field names the whole document");
    refused({run.lines[0], R"({"set": "no slash", "value": 1})"}, journal + " line 2: parse error at byte 1: JSON pointer must");
    refused({R"({"document": {"entries": 5, "plugins": []}})", run.lines[2]},
            journal + " line 2: cannot use push_back() with number");  // entries that are not a list
    refused({std::string(100, '[') + std::string(100, ']')}, "nests objects or arrays more than 64 deep");
    // An entry the schema refuses: named as the file read with its journal.
    refused({run.lines[0], R"({"entry": {"plugin": "x"}})"}, run.results.string() + " (with its journal)");
    // A journal whose first line was never finished describes nothing.
    write(journal, run.lines[0].substr(0, 20));
    CHECK_THAT(run.read_error(), Catch::Contains("not a gpubench journal (no whole first line)"));
}
