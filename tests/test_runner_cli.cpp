// End-to-end: the runner executable as a user calls it.
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <ctime>
#include <fstream>
#include <string>

using namespace runner_process;

TEST_CASE("runner --list shows plugins and refused files with reasons", "[cli]") {
    Outcome o = run_runner("--list " + fixtures());
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("fixture_good") && Catch::Contains("available"));
    CHECK_THAT(o.output, Catch::Contains("Refused:") && Catch::Contains("fixture_no_entry.so: no entry symbol"));
    CHECK_THAT(o.output, Catch::Contains("fixture_wrong_major.so: ABI"));
}

TEST_CASE("runner --list --format markdown: a table of the plugins' descriptors, nothing of this machine",
          "[cli]") {
    Outcome o = run_runner("--list --format markdown " + fixtures());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::StartsWith("| plugin | language | device | sizes | what it is |\n"
                                           "| --- | --- | --- | --- | --- |\n"));
    CHECK_THAT(o.output, Catch::Contains("| `fixture_good` | - | cpu | "));
    // No status, no file: the refused files are only counted, on stderr.
    CHECK_THAT(o.output, !Catch::Contains("available") && !Catch::Contains(GPUBENCH_FIXTURE_DIR) &&
                             Catch::Contains("refused as plugins and left out of the table"));
    Outcome text = run_runner("--list --format text " + fixtures());
    CHECK(text.status == 0);
    CHECK_THAT(text.output, Catch::Contains("STATUS") && Catch::Contains("Refused:"));
    Outcome bad_format = run_runner("--list --format html");
    CHECK(bad_format.status == 2);
    CHECK_THAT(bad_format.output, Catch::StartsWith("runner: error: --format 'html' is not text or markdown"));
    Outcome without_list = run_runner(fixtures() + " --plugin fixture_good --format markdown");
    CHECK(without_list.status == 2);
    CHECK_THAT(without_list.output, Catch::StartsWith("runner: error: --format chooses the form of --list"));
}

TEST_CASE("a sweep writes a results file with context, entries and raw samples", "[cli]") {
    auto path = temp_results("sweep");
    Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 1,10" + quick + "-o " + path.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("fixture_good") && Catch::Contains("ok (err"));
    nlohmann::json doc = read_json(path);
    CHECK(doc["schema_version"] == 1);
    for (const char *key : {"created", "host", "build", "gpu", "options", "plugins", "entries"})
        CHECK(doc.contains(key));
    CHECK(doc["host"].contains("cpu_model"));
    CHECK(doc["build"].contains("git_revision"));
    REQUIRE(doc["entries"].size() == 2);
    CHECK(doc["entries"][1]["size"] == 10);
    CHECK(doc["entries"][1]["timing"]["samples"]["run"].size() >= 2);
    CHECK(doc["plugins"][0]["file"].get<std::string>().find("fixture_") != std::string::npos);
    std::filesystem::remove(path);
}

TEST_CASE("bad input: one line naming the problem, exit status 2", "[cli]") {
    Outcome bad_size = run_runner(fixtures() + " --plugin fixture_good --sizes 10,abc");
    CHECK(bad_size.status == 2);
    CHECK_THAT(bad_size.output, Catch::StartsWith("runner: error: invalid size 'abc'"));
    Outcome no_match = run_runner(fixtures() + " --plugin nothing_here");
    CHECK(no_match.status == 2);
    CHECK_THAT(no_match.output, Catch::Contains("no plugin matches 'nothing_here'"));
    Outcome bad_dir = run_runner("--plugin-dir /nonexistent/dir --list");
    CHECK(bad_dir.status == 2);
    CHECK_THAT(bad_dir.output, Catch::Contains("'/nonexistent/dir' does not exist"));
    Outcome bad_option = run_runner("--no-such-option");
    CHECK(bad_option.status == 2);
    Outcome bad_param = run_runner(fixtures() + " --plugin fixture_good --param novalue");
    CHECK(bad_param.status == 2);
    // Options are finite, in range and exact, or refused with one line (issue 13, item 5).
    const std::pair<const char *, const char *> refused[] = {
        {"--max-noise nan", "--max-noise must be a finite number"},
        {"--max-time nan", "--max-time must be a finite number"},
        {"--min-time inf", "--min-time must be a finite number"},
        {"--max-noise 1.5", "--max-noise is a fraction below 1"},
        {"--threads 100000", "logical cores of this host (--oversubscribe allows it)"},
        {"--seed -1", "--seed '-1' is not a whole number"},
        {"--seed 18446744073709551616", "is not a whole number from 0 to 2^64-1"},
        {"--sizes 0x10", "invalid size '0x10'"},
        {"--param 'd type=float64'", "a key has no spaces"}};
    for (const auto &[option, says] : refused) {
        Outcome o = run_runner(fixtures() + " --plugin fixture_good " + option);
        INFO(option << ": " << o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::StartsWith("runner: error: ") && Catch::Contains(says));
    }
}

TEST_CASE("a --param key is trimmed: ' reject_odd=1' is reject_odd", "[cli]") {
    auto path = temp_results("trimmed_param");
    Outcome o = run_runner(fixtures() + " --plugin fixture_status --sizes 3 --param ' reject_odd =1 '" +
                           quick + "-o " + path.string());
    INFO(o.output);
    CHECK(o.status == 3);  // odd sizes refused: the parameter reached the plugin
    CHECK(read_json(path)["options"]["params"] == "reject_odd=1");
    std::filesystem::remove(path);
}

TEST_CASE("a failed verification gives exit status 1 and an invalid entry", "[cli]") {
    auto path = temp_results("bad_verify");
    Outcome o = run_runner(fixtures() + " --plugin fixture_bad_verify --sizes 5" + quick + "-o " + path.string());
    CHECK(o.status == 1);
    CHECK_THAT(o.output, Catch::Contains("*** FAILED ***") && Catch::Contains("INVALID"));
    CHECK(read_json(path)["entries"][0]["valid"] == false);
    std::filesystem::remove(path);
}

TEST_CASE("skipped entries keep the measured ones and give exit status 3", "[cli]") {
    auto path = temp_results("skipped");
    Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 5,5000" + quick + "-o " + path.string());
    CHECK(o.status == 3);
    CHECK_THAT(o.output, Catch::Contains("skipped: size 5000 is above fixture_good's maximum 1000"));
    nlohmann::json doc = read_json(path);
    REQUIRE(doc["entries"].size() == 2);
    CHECK(doc["entries"][0]["status"] == "ok");
    CHECK(doc["entries"][1]["status"] == "skipped");
    std::filesystem::remove(path);
}

TEST_CASE("plugin parameters reach the plugin", "[cli]") {
    auto path = temp_results("params");
    Outcome o = run_runner(fixtures() + " --plugin fixture_status --sizes 8 --param fail_run=1" + quick + "-o " + path.string());
    CHECK(o.status == 1);
    CHECK_THAT(o.output, Catch::Contains("run failed on purpose"));
    CHECK(read_json(path)["entries"][0]["params"] == "fail_run=1");
    std::filesystem::remove(path);
}

TEST_CASE("a parameter no selected plugin reads is refused before anything runs", "[cli]") {
    auto path = temp_results("unread_param");
    Outcome typo = run_runner(fixtures() + " --plugin fixture_good,fixture_status --sizes 8 --param fail_rum=1" + quick + "-o " + path.string());
    CHECK(typo.status == 2);
    CHECK_THAT(typo.output, Catch::Contains("runner: error: --param fail_rum: no selected plugin reads it") &&
                                Catch::Contains("fixture_good reads none") &&
                                Catch::Contains("fixture_status reads reject_odd, fail_run"));
    CHECK_FALSE(std::filesystem::exists(path));
    // Read by one of the selected plugins: passed to that one only (test_param_axes.cpp).
    Outcome shared = run_runner(fixtures() + " --plugin fixture_good,fixture_status --sizes 8 --param reject_odd=1" + quick + "-o " + path.string());
    CHECK(shared.status == 0);
    // A plugin that does not declare its keys (ABI 1.0 here) may read any: not refused.
    Outcome undeclared = run_runner(fixtures() + " --plugin fixture_good,fixture_v1_0 --sizes 8 --param anything=1" + quick + "-o " + path.string());
    CHECK(undeclared.status == 0);
    std::filesystem::remove(path);
}

TEST_CASE("progress goes to stderr as plain lines off a terminal, and quiet prints the summary only",
          "[cli]") {
    auto path = temp_results("progress");
    Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 5,6" + quick + "-o " + path.string());
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("[1/2] fixture_good 5") && Catch::Contains("[2/2] fixture_good 6"));
    CHECK_THAT(o.output, Catch::Contains("COMPUTE") && Catch::Contains("%PEAK") &&
                             Catch::Contains("GPU MEM") && Catch::Contains("FLAGS"));
    Outcome quiet = run_runner(fixtures() + " --plugin fixture_good --sizes 5,6 --quiet" + quick + "-o " + path.string());
    CHECK(quiet.status == 0);
    CHECK_THAT(quiet.output, !Catch::Contains("[1/2]") && !Catch::Contains("PLUGIN"));
    CHECK_THAT(quiet.output, Catch::Contains("2 ok, 0 failed verification"));
    CHECK(read_json(path)["entries"].size() == 2);  // the results are the same
    std::filesystem::remove(path);
}

TEST_CASE("runners started in the same second with the default results name get files of their own",
          "[cli]") {
    test_support::TempFolder folder;
    const std::string in_folder = "cd " + folder.path().string() + " && " + GPUBENCH_RUNNER + " " + fixtures() +
                                  " --plugin fixture_good --sizes 1" + quick;
    // "results: results/<host>-<timestamp>.json" on the first line.
    const auto results_path = [](const std::string &output) {
        const size_t at = output.find("results: ");
        return at == std::string::npos ? std::string() : output.substr(at + 9, output.find('\n', at) - at - 9);
    };
    const Outcome first = run_command(in_folder);
    INFO(first.output);
    REQUIRE(first.status == 0);
    const std::string first_path = results_path(first.output);
    const size_t stamp = first_path.rfind('-');
    REQUIRE(stamp != std::string::npos);
    // Every default name of the next 30 seconds taken, as by runners started then.
    const std::time_t now = std::time(nullptr);
    for (int second = 0; second < 30; ++second) {
        const std::time_t then = now + second;
        std::tm utc{};
        gmtime_r(&then, &utc);
        char text[32];
        std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
        std::ofstream(folder.path() / (first_path.substr(0, stamp + 1) + text + ".json")) << "taken\n";
    }
    const Outcome second = run_command(in_folder);
    INFO(second.output);
    REQUIRE(second.status == 0);
    const std::string second_path = results_path(second.output);
    CHECK_THAT(second_path, Catch::EndsWith("-2.json"));
    CHECK(read_json(folder.path() / second_path)["entries"].size() == 1);
    std::ifstream taken(folder.path() / second_path.substr(0, second_path.size() - 7).append(".json"));
    std::string line;
    std::getline(taken, line);
    CHECK(line == "taken");  // the name's holder is untouched
}

TEST_CASE("sizes outside the declared range are skipped in their place with the reason, not clamped",
          "[runner]") {
    for (const std::string mode : {"", " --in-process", " --budget 60"}) {
        INFO("mode:" << mode);
        const auto out = temp_results("out_of_range");
        const Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 5,1001,6 --min-samples 2 "
                                     "--max-samples 2 --min-time 0 -o " + out.string() + mode);
        INFO(o.output);
        CHECK(o.status == 3);  // nothing failed, but a requested entry was skipped
        const nlohmann::json entries = read_json(out)["entries"];
        REQUIRE(entries.size() == 3);
        CHECK(entries[0]["status"] == "ok");
        CHECK(entries[1]["size"] == 1001);
        CHECK(entries[1]["status"] == "skipped");
        CHECK(entries[1]["message"] == "size 1001 is above fixture_good's maximum 1000");
        CHECK_FALSE(entries[1].contains("timing"));
        CHECK(entries[2]["status"] == "ok");
        std::filesystem::remove(out);
    }
}
