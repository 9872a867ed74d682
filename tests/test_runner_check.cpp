// runner check, an author's conformance test: shipped plugins pass it, and each broken
// fixture of the corpus is named for the rule it breaks, with exit status 1; bad input is one
// line and exit 2; a stopped check stops its sweep. (tests/CMakeLists.txt runs it over every
// shipped plugin as a test of its own.)
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using namespace runner_process;

namespace {

Outcome check(const std::string &arguments) { return run_runner("check " + arguments); }

const std::string fixture_dir = std::string("--plugin-dir ") + GPUBENCH_FIXTURE_DIR + " ";

}  // namespace

TEST_CASE("runner check: shipped CPU plugins pass, with their declared values swept", "[check]") {
    const Outcome o = check("matmul_naive sort_omp");
    INFO(o.output);
    CHECK(o.status == 0);
    // Each plugin's line says what it is swept over: sizes in its range, each choice's values.
    CHECK_THAT(o.output, Catch::Contains("checking matmul_naive at sizes 1,7,33,1000, dtype=float32,float64...") &&
                             Catch::Contains("checking sort_omp at sizes 1,7,33,1000, keys=") &&
                             Catch::EndsWith("runner check: 2 plugins, 0 findings (notes do not fail it)\n"));
}

TEST_CASE("runner check: each broken fixture is named for its rule", "[check]") {
    const Outcome mistakes = check(fixture_dir + "--sizes 1,3,5 fixture_mistakes");
    INFO(mistakes.output);
    CHECK(mistakes.status == 1);
    CHECK_THAT(mistakes.output, Catch::Contains("fixture_mistakes: faster_than_hardware: ") &&
                                    Catch::Contains("(size 1)") && Catch::Contains("fixture_mistakes: leak: ") &&
                                    Catch::Contains("(see measurement.md#checks-on-every-entry)"));
    CHECK_THAT(mistakes.output, !Catch::Contains("(size 5)"));  // its control passes

    const Outcome wrong = check(fixture_dir + "fixture_bad_verify");
    CHECK(wrong.status == 1);
    CHECK_THAT(wrong.output, Catch::Contains("fixture_bad_verify: wrong_result: wrong result: error"));

    // "Passed", with nothing compared: the sweep records it as verified; the check does not.
    const Outcome nothing = check(fixture_dir + "--sizes 7 fixture_verifies_nothing");
    INFO(nothing.output);
    CHECK(nothing.status == 1);
    CHECK_THAT(nothing.output, Catch::Contains("fixture_verifies_nothing: verified_nothing: verify() passed without "
                                               "checking an element of the result (size 7)"));

    // Every declared value of escape= is swept: each way out of run() is named.
    const Outcome escapes = check(fixture_dir + "--sizes 1000000 fixture_cpu_escapes");
    INFO(escapes.output);
    CHECK(escapes.status == 1);
    CHECK_THAT(escapes.output, Catch::Contains("fixture_cpu_escapes: thread_audit: work outside run(): ") &&
                                   Catch::Contains("escape=async"));

    const Outcome refused = check(fixture_dir + "fixture_wrong_major");
    CHECK(refused.status == 1);
    CHECK_THAT(refused.output, Catch::Contains("fixture_wrong_major.so: descriptor: ABI"));
}

TEST_CASE("runner check: bad input is one line, exit 2", "[check]") {
    CHECK(check("").status == 2);
    const Outcome none = check("no_such_plugin_anywhere");
    CHECK(none.status == 2);
    CHECK_THAT(none.output, Catch::StartsWith("runner check: error: no plugin matches 'no_such_plugin_anywhere'"));
    CHECK(check("--sizes 0 vecadd_naive").status == 2);
}

TEST_CASE("runner check: stopped by SIGTERM, it stops its sweep, which keeps what it measured", "[check]") {
    // fixture_spin's run() takes 60 ms: its sweep is under way when the stop arrives.
    const pid_t pid = start_runner({"check", "--plugin-dir", GPUBENCH_FIXTURE_DIR, "--sizes", "1,2,3,4,5,6",
                                    "fixture_spin", "fixture_status"});
    const std::filesystem::path folder = std::filesystem::temp_directory_path() / ("gpubench-check-" + std::to_string(pid));
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (entries_now(folder / "fixture_spin.json") < 1 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK((WIFEXITED(status) ? WEXITSTATUS(status) : -1) == 130);
    // The sweep ended before the check did: its results file is whole, its journal gone.
    const int kept = entries_now(folder / "fixture_spin.json");
    CHECK(kept >= 1);
    CHECK(kept < 6);
    CHECK_FALSE(std::filesystem::exists(folder / "fixture_spin.json.journal"));
    CHECK_FALSE(std::filesystem::exists(folder / "fixture_status.json"));  // nothing checked after the stop
    std::filesystem::remove_all(folder);
}
