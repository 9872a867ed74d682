// The Python bridge, through the runner as a user runs it: the interpreter found at run time,
// started once per worker (its start is the entry's load time), data made and checked in C++,
// and every way a script can fail turned into a one-line entry, never a crash. The fixtures
// (tests/fixtures/python) need NumPy in the interpreter that sdk/python/find-python.sh chooses.
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace runner_process;

namespace {

const std::string python_fixtures = std::string("--plugin-dir ") + GPUBENCH_PYTHON_FIXTURE_DIR;

// A run of pyfixture_misbehave with the given behaviour; the results file's entries.
nlohmann::json misbehave(const std::string &behaviour, const std::string &sizes, Outcome &outcome) {
    const auto results = temp_results("python_" + behaviour);
    std::filesystem::remove(results);
    outcome = run_runner(python_fixtures + " --plugin pyfixture_misbehave --sizes " + sizes + quick +
                         "--param behaviour=" + behaviour + " --output " + results.string());
    INFO(outcome.output);
    REQUIRE(std::filesystem::exists(results));
    nlohmann::json entries = read_json(results).at("entries");
    std::filesystem::remove(results);
    return entries;
}

// pyfixture_standalone's one entry at size 16 with --param mode=<mode>.
nlohmann::json standalone_entry(const std::string &mode) {
    const auto results = temp_results("python_standalone_" + mode);
    const Outcome o = run_runner(python_fixtures + " --plugin pyfixture_standalone --sizes 16" + quick +
                                 "--param mode=" + mode + " --output " + results.string());
    INFO(o.output);
    nlohmann::json entry = read_json(results).at("entries").at(0);
    std::filesystem::remove(results);
    return entry;
}

// Skips the test, with the finder's reason, unless an interpreter has `modules` (space-separated).
void require_modules(const std::string &modules) {
    const Outcome found = find_python(modules);
    if (found.status != 0) test_support::skip_test(found.output);
}

void require_numpy() { require_modules("numpy"); }

// A folder holding a `python3` that runs Debian's without its site-packages (-S), so without
// NumPy; removed with the object.
struct PythonWithoutNumpy {
    std::filesystem::path folder =
        std::filesystem::temp_directory_path() / ("gpubench_no_numpy_" + std::to_string(getpid()));
    std::filesystem::path python = folder / "python3";
    PythonWithoutNumpy() {
        std::filesystem::create_directories(folder);
        std::ofstream(python) << "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n";
        std::filesystem::permissions(python, std::filesystem::perms::owner_all);
    }
    ~PythonWithoutNumpy() { std::filesystem::remove_all(folder); }
};

}  // namespace

TEST_CASE("python: a script's plugin computes in the interpreter found at run time, started once per worker",
          "[python]") {
    require_numpy();
    Outcome outcome;
    const nlohmann::json entries = misbehave("ok", "1,10,1000", outcome);
    INFO(outcome.output);
    CHECK(outcome.status == 0);
    REQUIRE(entries.size() == 3);
    for (size_t i = 0; i < entries.size(); ++i) {
        const nlohmann::json &e = entries[i];
        CHECK(e.at("status") == "ok");
        CHECK(e.at("verification").at("passed") == true);
        // The interpreter starts in prepare() (ABI 1.4): the load time of every entry of the
        // worker, which serves them all.
        CHECK(e.at("timing").at("load").get<double>() > 0.005);
        CHECK(e.at("timing").at("load") == entries[0].at("timing").at("load"));
        CHECK(e.at("harness").at("worker_entries_before") == i);
    }
    // Data went both ways: y[0] = 2 * x[0] = -6 came back, and the interpreter is named.
    bool saw_first_y = false, saw_python = false;
    for (const nlohmann::json &m : entries[0].at("metrics")) {
        if (m.at("name") == "first_y") saw_first_y = m.at("value") == -6.0;
        if (m.at("name") == "python") saw_python = m.at("text").get<std::string>().rfind("python 3.", 0) == 0;
    }
    CHECK(saw_first_y);
    CHECK(saw_python);
}

TEST_CASE("python: the bridge runs the interpreter find-python.sh chooses, the first with the modules",
          "[python]") {
    if (find_python("numpy", "env -u GPUBENCH_PYTHON PATH=/usr/bin").output != "/usr/bin/python3")
        test_support::skip_test("Debian's /usr/bin/python3 has no NumPy (apt-get install python3-numpy)");
    const PythonWithoutNumpy lacking;
    REQUIRE(find_python("numpy", "GPUBENCH_PYTHON=" + lacking.python.string()).status == 1);
    // python3 on PATH lacks NumPy: the plugin runs in /usr/bin/python3, the finder's next.
    const auto results = temp_results("python_path");
    const Outcome passed_over = run_command(
        "env -u GPUBENCH_PYTHON PATH='" + lacking.folder.string() + ":'\"$PATH\" " + GPUBENCH_RUNNER + " " +
        python_fixtures + " --plugin pyfixture_misbehave --sizes 5" + quick + "--output " + results.string());
    INFO(passed_over.output);
    CHECK(passed_over.status == 0);
    const nlohmann::json entry = read_json(results).at("entries").at(0);
    CHECK(entry.at("status") == "ok");
    bool ran_in_debians = false;
    for (const nlohmann::json &m : entry.at("metrics"))
        if (m.at("name") == "python") ran_in_debians = m.at("text").get<std::string>().find("(/usr/bin/python3)") != std::string::npos;
    CHECK(ran_in_debians);
    std::filesystem::remove(results);
    // GPUBENCH_PYTHON is the user's choice: lacking NumPy, the plugin is unavailable, saying
    // so, rather than run in another interpreter.
    const Outcome chosen = run_command("GPUBENCH_PYTHON=" + lacking.python.string() + " " + GPUBENCH_RUNNER + " " +
                                       python_fixtures + " --list");
    INFO(chosen.output);
    CHECK_THAT(chosen.output, Catch::Contains("unavailable: GPUBENCH_PYTHON=" + lacking.python.string() +
                                              " has no module 'numpy': install it there"));
}

TEST_CASE("python: what a script raises becomes the entry's status and a one-line message", "[python]") {
    require_numpy();
    struct Case {
        const char *behaviour, *status, *message;
    };
    const Case cases[] = {
        {"raise", "error", "ValueError: deliberate failure in run() (pyfixture/misbehave.py:"},
        {"exit", "error", "SystemExit: 3 (pyfixture/misbehave.py:"},
        {"notimpl", "skipped", "NotImplementedError: behaviour=notimpl is never supported"},
        {"oom", "skipped", "MemoryError: pretend the host is full"},
        {"wrong", "verification_failed", ""},
    };
    for (const Case &c : cases) {
        DYNAMIC_SECTION("behaviour=" << c.behaviour) {
            Outcome outcome;
            const nlohmann::json entries = misbehave(c.behaviour, "10", outcome);
            INFO(outcome.output);
            REQUIRE(entries.size() == 1);
            CHECK(entries[0].at("status") == c.status);
            CHECK(entries[0].value("message", "").find(c.message) != std::string::npos);
        }
    }
}

TEST_CASE("python: ValueError from setup() or work() is an invalid argument, NotImplementedError a skip",
          "[python]") {
    require_numpy();
    Outcome outcome;
    const nlohmann::json from_setup = misbehave("invalid", "10", outcome).at(0);
    CHECK(from_setup.at("status") == "error");
    CHECK_THAT(from_setup.at("message").get<std::string>(),
               Catch::StartsWith("invalid argument: setup: ValueError: behaviour=invalid is refused by setup()"));
    // In run(), a ValueError is the script's failure, not a refused parameter.
    const nlohmann::json from_run = misbehave("raise", "10", outcome).at(0);
    CHECK_THAT(from_run.at("message").get<std::string>(), !Catch::Contains("invalid argument"));

    const nlohmann::json from_work = standalone_entry("invalid");
    CHECK(from_work.at("status") == "error");
    CHECK_THAT(from_work.at("message").get<std::string>(),
               Catch::StartsWith("invalid argument: work: ValueError: mode=invalid is refused by work()"));
    const nlohmann::json unsupported = standalone_entry("unsupported");
    CHECK(unsupported.at("status") == "skipped");
    CHECK_THAT(unsupported.at("message").get<std::string>(),
               Catch::StartsWith("not supported: work: NotImplementedError: mode=unsupported"));
    // The bridge's own check of work()'s answer raises ValueError too: still an error of the script.
    CHECK_THAT(standalone_entry("math").at("message").get<std::string>(), !Catch::Contains("invalid argument"));
}

TEST_CASE("python: arrays a script keeps past destroy do not crash the worker", "[python]") {
    require_numpy();
    Outcome outcome;
    const nlohmann::json entries = misbehave("keep", "10,20,30", outcome);
    INFO(outcome.output);
    CHECK(outcome.status == 0);
    REQUIRE(entries.size() == 3);
    for (const nlohmann::json &e : entries) {
        CHECK(e.at("status") == "ok");
    }
    for (size_t i = 0; i < entries.size(); ++i)  // one worker served them all
        CHECK(entries[i].at("harness").at("worker_entries_before") == i);
}

TEST_CASE("python: a script that does not compile fails its entries, naming the line", "[python]") {
    require_numpy();
    const Outcome outcome =
        run_runner(python_fixtures + " --plugin pyfixture_broken --sizes 10" + std::string(quick));
    INFO(outcome.output);
    CHECK(outcome.status != 0);
    CHECK(outcome.output.find("SyntaxError") != std::string::npos);
    CHECK(outcome.output.find("(pyfixture/broken.py:6)") != std::string::npos);
}

TEST_CASE("python: a missing module or interpreter makes a plugin unavailable with the reason", "[python]") {
    const Outcome listed = run_runner(python_fixtures + " --list");
    INFO(listed.output);
    // The finder's line, naming the module and what to install (with GPUBENCH_PYTHON set or not).
    CHECK_THAT(listed.output, Catch::Contains("'gpubench_no_such_module'") &&
                                  Catch::Contains("pip install gpubench_no_such_module"));

    const Outcome missing = run_command("GPUBENCH_PYTHON=/nonexistent/python3 " + std::string(GPUBENCH_RUNNER) +
                                        " " + python_fixtures + " --list");
    INFO(missing.output);
    CHECK(missing.output.find("unavailable: GPUBENCH_PYTHON=/nonexistent/python3: cannot run it") !=
          std::string::npos);

    // Its own results file: the default name (host and second) can be another test's at -j4.
    const auto results = temp_results("python_missing_interpreter");
    const Outcome swept = run_command("GPUBENCH_PYTHON=/nonexistent/python3 " + std::string(GPUBENCH_RUNNER) +
                                      " " + python_fixtures + " --plugin pyfixture_misbehave --sizes 10" + quick +
                                      "--output " + results.string());
    INFO(swept.output);
    CHECK(swept.output.find("skipped: unavailable: GPUBENCH_PYTHON=/nonexistent/python3") != std::string::npos);
}

TEST_CASE("python: a script without a C++ half makes, checks and describes its own work", "[python]") {
    require_numpy();
    const auto results = temp_results("python_standalone");
    const Outcome ok = run_runner(python_fixtures + " --plugin myload_numpy --sizes 1,1000" + quick +
                                  "--output " + results.string());
    INFO(ok.output);
    REQUIRE(ok.status == 0);
    const nlohmann::json written = read_json(results);
    for (const nlohmann::json &e : written.at("entries")) {
        CHECK(e.at("status") == "ok");
        CHECK(e.at("work").at("flops") == 2.0 * e.at("size").get<double>());
        CHECK(e.at("work").at("host_bytes") == 16.0 * e.at("size").get<double>());
        CHECK(e.at("work").at("run_repeatable") == true);
        CHECK(e.at("verification").at("detail") == "relative error vs float64");
    }
    // ITEM_NAME, HEADLINE and the size expressions reach the descriptor.
    CHECK(written.at("entries").at(1).at("throughput").at("headline") == "gbytes_per_s");
    CHECK(written.at("entries").at(1).at("work").at("item_name") == "elements");
    const Outcome listed = run_runner(python_fixtures + " --list");
    CHECK_THAT(listed.output, Catch::Contains("1..1073741824") && Catch::Contains("1..1048588"));
    CHECK(written.dump().find("n: elements of x and y, float32") != std::string::npos);
    // VERSION is the plugin's version; a script without one is 1.0.
    CHECK(written.at("plugins").at(0).at("version") == "1.0");
    const Outcome described = run_runner(python_fixtures + " --list --plugin pyfixture_standalone");
    CHECK_THAT(described.output, Catch::Contains("version:  2.1, plugin ABI"));
    // A parameter the script reads reaches it; one it does not declare is refused by the runner.
    const Outcome scaled = run_runner(python_fixtures + " --plugin myload_numpy --sizes 10" + quick + "--param a=3");
    CHECK(scaled.status == 0);
    const Outcome typo = run_runner(python_fixtures + " --plugin myload_numpy --sizes 10" + quick + "--param b=3");
    CHECK(typo.status != 0);
    std::filesystem::remove(results);
}

TEST_CASE("python: work() takes only gpubench_work's keys, and a long detail says it was cut", "[python]") {
    require_numpy();
    const auto sweep = standalone_entry;
    const nlohmann::json typo = sweep("typo");
    CHECK(typo.at("status") != "ok");
    CHECK_THAT(typo.at("message").get<std::string>(), Catch::Contains("work() returned 'flop'"));
    CHECK_THAT(sweep("math").at("message").get<std::string>(), Catch::Contains("'fp128' is none of"));
    const nlohmann::json flags = sweep("flags").at("work");  // each flag its own GPUBENCH_WORK_* bit
    CHECK(flags.at("run_repeatable") == true);
    CHECK(flags.at("run_no_device_work") == true);
    CHECK(flags.at("launches") == 3);  // after math and the flags in the bridge's tuple
    CHECK(sweep("plain").at("work").at("run_no_device_work") == false);
    CHECK_FALSE(sweep("plain").at("work").contains("launches"));  // none declared: left out
    const nlohmann::json long_detail = sweep("long");
    REQUIRE(long_detail.at("status") == "ok");
    const std::string detail = long_detail.at("verification").at("detail");
    CHECK(detail.size() == 255);
    CHECK_THAT(detail, Catch::EndsWith(" [cut: 1000 characters]"));
}

TEST_CASE("python: a script's metrics(state) reach the entry with their direction, checked", "[python][metrics]") {
    require_numpy();
    const nlohmann::json plain = standalone_entry("plain");
    REQUIRE(plain.at("status") == "ok");
    const nlohmann::json &metrics = plain.at("metrics");
    REQUIRE(metrics.size() >= 3);  // the script's two, then the interpreter (and the runner's own)
    CHECK(metrics.at(0).at("name") == "x_sum");
    CHECK(metrics.at(0).at("better") == "higher");
    CHECK(metrics.at(0).at("text") == "from the script");
    CHECK(metrics.at(0).at("value").get<double>() > 0);  // run() added 1 to each of 16 elements, many times
    CHECK(metrics.at(1).at("name") == "x_size");
    CHECK(metrics.at(1).at("value") == 16);
    CHECK_FALSE(metrics.at(1).contains("better"));
    CHECK(metrics.at(2).at("name") == "python");
    const nlohmann::json direction = standalone_entry("metric_direction");
    CHECK(direction.at("status") != "ok");
    CHECK_THAT(direction.at("message").get<std::string>(), Catch::Contains("better is 'sideways'"));
    const nlohmann::json key = standalone_entry("metric_key");
    CHECK(key.at("status") != "ok");
    CHECK_THAT(key.at("message").get<std::string>(), Catch::Contains("metrics() returned 'units'"));
}

TEST_CASE("python: a script imports the modules beside it, embedded with it", "[python]") {
    require_numpy();
    const auto results = temp_results("python_siblings");
    const Outcome o = run_runner(python_fixtures + " --plugin pyfixture_siblings" + quick +
                                 "--output " + results.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const nlohmann::json written = read_json(results);
    const nlohmann::json &e = written.at("entries").at(0);
    CHECK(e.at("status") == "ok");
    CHECK(e.at("verification").at("detail") == "factor 3 from pyfixture/sibling_math.py");
    // Its lines count with the script's in the build record; its imports are not required
    // modules (the plugin is available without them installed).
    const nlohmann::json &record = written.at("plugins").at(0).at("build_record");
    CHECK(record.at("source_files").size() == 3);
    CHECK(record.at("imports") == nlohmann::json({"numpy"}));
    std::filesystem::remove(results);
    // A plugin script beside another is no sibling: sort/numba.py's `import numpy` is NumPy,
    // not sort/numpy.py (the numpy backend).
    const auto numba_record = std::filesystem::path(GPUBENCH_PLUGIN_DIR) / "sort_numba.so.build.json";
    if (std::filesystem::exists(numba_record)) {
        const nlohmann::json sort_numba = read_json(numba_record);
        CHECK(sort_numba.at("source_files").size() == 1);
        CHECK(sort_numba.at("imports") == nlohmann::json({"numba", "numpy"}));
    }
}

TEST_CASE("python: a numpy.py in the runner's working folder does not stand in for NumPy", "[python]") {
    require_numpy();
    // As a plugin repository made by runner new-plugin holds its NumPy backend, run from there.
    test_support::TempFolder folder;
    std::ofstream(folder.path() / "numpy.py") << "raise ImportError('the working folder was imported from')\n";
    const auto results = folder.path() / "r.json";
    const Outcome o = run_command("cd " + folder.path().string() + " && " GPUBENCH_RUNNER " " + python_fixtures +
                                  " --plugin pyfixture_standalone --sizes 16" + quick + "--output " + results.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(read_json(results).at("entries").at(0).at("status") == "ok");
}

TEST_CASE("python: the CuPy and PyTorch examples and the *_torch backends verify on the runner's held stream",
          "[python][gpu]") {
    test_support::require_gpu();
    require_modules("cupy torch");
    const auto results = temp_results("python_gpu_libraries");
    const auto entries_of = [&](const std::string &arguments) {
        const Outcome o = run_runner(arguments + quick + "--output " + results.string());
        INFO(o.output);
        CHECK(o.status == 0);
        return read_json(results).at("entries");
    };
    // The examples: CuPy through the CUDA stream protocol where it has it, PyTorch through
    // ExternalStream, both from page-locked host arrays of their own.
    for (const nlohmann::json &e : entries_of(python_fixtures + " --plugin myload_cupy,myload_torch --sizes 1000,10000000")) {
        INFO(e.dump().substr(0, 600));
        CHECK(e.at("status") == "ok");
        CHECK(e.at("timing").at("stream_hold") == "held");
        CHECK(e.at("stream_audit").at("outside_stream") == false);
    }
    // Every *_torch backend at its two smallest default sizes.
    for (const char *plugin : {"vecadd_torch", "matmul_torch", "sort_torch", "logreg_torch",
                               "mandelbrot_torch", "solvebak_torch"}) {
        const std::string dir = std::string(" --plugin-dir ") + GPUBENCH_PLUGIN_DIR;
        for (const nlohmann::json &e : entries_of(dir + " --plugin " + plugin + " --sizes 1000")) {
            INFO(e.dump().substr(0, 600));
            CHECK(e.at("status") == "ok");
        }
    }
    const nlohmann::json pairs = entries_of(std::string(" --plugin-dir ") + GPUBENCH_PLUGIN_DIR +
                                            " --plugin sort_torch --sizes 100000 --param keys=uint32,uint64,pairs");
    for (const nlohmann::json &e : pairs) CHECK(e.at("status") == "ok");
    std::filesystem::remove(results);
}

// Every form of ctx.stream the docs give (python-backends.md), each with the library it names,
// on the runner's held stream: the plain-int forms (CuPy 12/13's ExternalStream, PyTorch's
// ExternalStream, Numba's external_stream) and CuPy 14's stream protocol alike.
TEST_CASE("python: every documented form of ctx.stream computes on the runner's stream", "[python][gpu]") {
    test_support::require_gpu();
    require_numpy();
    const auto results = temp_results("python_stream_forms");
    const std::pair<const char *, const char *> forms[] = {{"cupy_from_external", "cupy"},
                                                           {"cupy_external_stream", "cupy"},
                                                           {"torch", "torch"},
                                                           {"numba", "numba"}};
    int ran = 0, found_forms = 0;
    for (const auto &[form, module] : forms) {
        INFO("form=" << form);
        const Outcome found = find_python(std::string("numpy ") + module);
        if (found.status != 0) {
            WARN("form=" << form << " not tested: " << found.output);
            continue;
        }
        std::filesystem::remove(results);
        const Outcome o = run_runner(python_fixtures + " --plugin pyfixture_streamforms --sizes 1000,1000000" +
                                     quick + "--param form=" + form + " --output " + results.string());
        INFO(o.output);
        ++found_forms;
        const nlohmann::json entries = read_json(results).at("entries");
        CHECK(entries.size() == 2);  // an interpreter has the library: both sizes must run
        for (const nlohmann::json &e : entries) {
            INFO(e.dump().substr(0, 600));
            const std::string message = e.value("message", "");
            if (message.find("has no Stream.from_external") != std::string::npos) {
                WARN(message);  // CuPy 12 or 13: this form is CuPy 14's
                continue;
            }
            CHECK(e.at("status") == "ok");
            CHECK(e.at("verification").at("passed") == true);
            CHECK(e.at("timing").at("stream_hold") == "held");
            CHECK(e.at("stream_audit").at("outside_stream") == false);
            ++ran;
        }
    }
    std::filesystem::remove(results);
    if (found_forms == 0) test_support::skip_test("no interpreter has CuPy, PyTorch or Numba");
    CHECK(ran > 0);
}
