// The table of checks (core/measure/checks/): one entry per check, from which the flags of an
// entry, the refusals of its record, the reports' glossary and `runner checks` are made.
#include "check.hpp"
#include "runner_process.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace gpubench;
using runner_process::run_runner;

TEST_CASE("the table of checks: unique snake_case names, every flag judged from the record", "[checks]") {
    std::set<std::string> names;
    for (const Check *check : check_table()) {
        INFO(check->name);
        CHECK(names.insert(check->name).second);
        CHECK(std::string(check->name).find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos);
        CHECK(std::string(check->meaning).size() > 10);
        if (check->verdict == CheckVerdict::flag) CHECK(check->finding != nullptr);
        else CHECK(std::string(check->example).size() > 0);  // the docs show what it looks like
        CHECK(&check_named(check->name) == check);
    }
    CHECK_THROWS_AS(check_named("no_such_check"), std::out_of_range);
    std::vector<std::string> glossary;
    for (const auto &[flag, meaning] : flag_glossary()) glossary.push_back(flag);
    std::vector<std::string> flags;
    for (const Check *check : check_table())
        if (check->verdict == CheckVerdict::flag) flags.push_back(check->name);
    CHECK(glossary == flags);
}

TEST_CASE("an entry's flags and refusals come from the table, both ways", "[checks]") {
    EntryResult clean;
    clean.status = EntryStatus::ok;
    clean.verification.passed = true;
    clean.timing.samples.run = {1e-3, 1e-3};
    clean.timing.noise.converged = true;
    CHECK(entry_flags(clean).empty());
    CHECK(record_refusals(clean).empty());

    EntryResult marked = clean;
    marked.timing.noise.converged = false;  // asked for (max_noise 0.005 by default) and not met
    marked.timing.cache = "cold";
    marked.persisting_l2_left = "1 MiB of device 0's L2 set aside (cudaLimitPersistingL2CacheSize)";
    marked.stream_audit.traced.stays_attached = "--counters: the GPU counters' profiler ...";
    CHECK(entry_flags(marked) ==
          std::vector<std::string>{"noisy", "cold", "cupti_attached", "persisting_l2_left"});
    CHECK(record_refusals(marked).empty());  // flags never refuse

    EntryResult wrong = clean;
    wrong.verification.passed = false;
    wrong.verification.max_error = 0.5;
    wrong.verification.tolerance = 1e-5;
    wrong.thread_audit.problem = "work outside run(): 1 thread ...";
    CHECK(record_refusals(wrong) == "wrong result: error 0.5 exceeds tolerance 1e-05; work outside run(): 1 thread ...");
}

TEST_CASE("a finding made while measuring ends the entry with its check's status", "[checks]") {
    try {
        refuse(check_named("leak"), "leaks 1 MiB");
        FAIL("refuse returned");
    } catch (const EntryProblem &problem) {
        CHECK(problem.status == EntryStatus::error);
        CHECK(problem.message == "leaks 1 MiB");
    }
    EntryResult escaped;
    escaped.stream_audit.problem = "work outside the runner's stream in run(): ...";
    CHECK_THROWS_AS(refuse_if_found(check_named("stream_audit"), escaped), EntryProblem);
    CHECK_NOTHROW(refuse_if_found(check_named("stream_audit"), EntryResult{}));
    CHECK(check_named("footprint").status() == EntryStatus::skipped);
    CHECK(check_named("wrong_result").status() == EntryStatus::verification_failed);
}

TEST_CASE("runner checks lists every check, and its Markdown is the docs' tables", "[checks][cli]") {
    const auto text = run_runner("checks");
    CHECK(text.status == 0);
    for (const Check *check : check_table()) CHECK_THAT(text.output, Catch::Contains(check->name));
    const auto flags = run_runner("checks --format markdown --kind flags");
    CHECK(flags.status == 0);
    CHECK_THAT(flags.output, Catch::StartsWith("| flag | meaning | how it is decided |") &&
                                 Catch::Contains("| `persisting_l2_left` |") && !Catch::Contains("`leak`"));
    const auto refusals = run_runner("checks --format markdown --kind refusals");
    CHECK_THAT(refusals.output, Catch::Contains("| `leak`: ") && !Catch::Contains("| `noisy` |"));
    const auto bad = run_runner("checks --format markdown");
    CHECK(bad.status == 2);
    CHECK(bad.output == "runner checks: error: --format markdown takes --kind flags or --kind refusals\n");
}
