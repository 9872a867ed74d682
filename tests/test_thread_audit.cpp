// The thread audit (core/measure/thread_audit.hpp): fixture_cpu_escapes.cpp's work escapes
// run() on threads in each way it can, at 1e3, 1e6 and 1e8 elements (where the peak-FLOP check
// sees nothing, and where it would); each is refused (at 1e3 the helper's microseconds only
// where seen: they sit at the audit's floor), and its controls (work on the calling thread,
// joined threads, an OpenMP loop inside run()) pass. The shipped OpenMP plugins and the
// NumPy/Numba backends, whose pools spin after their parallel regions, pass too.
#include "host_resources.hpp"
#include "measure.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"
#include "thread_audit.hpp"
#include "thread_name.hpp"

#include <catch2/catch.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

using namespace gpubench;
using namespace runner_process;

namespace {

Measurement measure_escape(const std::string &escape, uint64_t size, bool audit = true) {
    static const Plugin plugin = test_support::load_fixture("fixture_cpu_escapes.so");
    MeasureOptions options = test_support::sampled(5, 5);
    options.params = "escape=" + escape;
    options.cpu_threads = 2;
    options.audit_threads = audit;
    SteadyClockTimer timer;
    return measure_entry(plugin, size, options, timer);
}

bool listed(const std::vector<ThreadTime> &threads, pid_t tid) {
    return std::any_of(threads.begin(), threads.end(), [tid](const ThreadTime &t) { return t.tid == tid; });
}

// The runner's results for `plugins` at `sizes` (quick sampling); every entry measured must be
// ok with an audit that found nothing.
void require_audited_and_passed(const std::string &environment, const std::string &plugins,
                                const std::string &sizes) {
    const auto results = temp_results("thread_audit");
    std::filesystem::remove(results);
    const Outcome outcome = run_command(environment + std::string(GPUBENCH_RUNNER) + " --plugin '" + plugins +
                                        "' --sizes " + sizes + quick + "--output " + results.string());
    INFO(outcome.output);
    REQUIRE(std::filesystem::exists(results));
    const nlohmann::json entries = read_json(results).at("entries");
    std::filesystem::remove(results);
    size_t measured = 0;
    for (const nlohmann::json &e : entries) {
        if (e.at("status") == "skipped") continue;  // a size outside the plugin's range
        INFO(e.at("plugin").get<std::string>() << " at " << e.at("size") << ": " << e.value("message", ""));
        CHECK(e.at("status") == "ok");
        REQUIRE(e.contains("thread_audit"));
        CHECK(e.at("thread_audit").at("calls").get<int>() >= 2);
        CHECK_FALSE(e.at("thread_audit").contains("problem"));
        ++measured;
    }
    CHECK(measured >= 4);
}

}  // namespace

TEST_CASE("thread audit: each escape from run() is refused at every size, and the controls pass",
          "[thread_audit]") {
    for (const uint64_t size : {1'000ull, 1'000'000ull, 100'000'000ull}) {
        INFO("size " << size);
        for (const char *control : {"none", "joined", "omp"}) {
            INFO("escape=" << control);
            const Measurement e = measure_escape(control, size);
            CHECK(e.status == EntryStatus::ok);
            CHECK(e.message.empty());
            CHECK(e.thread_audit.calls >= 3);  // samples 0, 1 and 4
            CHECK(e.thread_audit.resolution == "ns");
            CHECK(e.thread_audit.started_by_run == 0);
            CHECK(e.thread_audit.worked_after_return == 0);
            CHECK(e.thread_audit.audit_wall_s > 0);
        }
        for (const char *started : {"async", "detached"}) {
            INFO("escape=" << started);
            // Its work is seen after the return, even where the thread exited before C: at
            // 1e8, where it takes tens of milliseconds. (1e6's millisecond fits in the slice
            // for which a host with no idle CPU deschedules the caller, so there the thread
            // may finish before the return, still caught as started and running.) One of
            // three entries must see it.
            Measurement e = measure_escape(started, size);
            for (int retry = 0; size >= 100'000'000 && retry < 2 && e.thread_audit.cpu_after_return_s <= 1e-4;
                 ++retry)
                e = measure_escape(started, size);
            CHECK(e.status == EntryStatus::verification_failed);
            CHECK_THAT(e.message, Catch::StartsWith("work outside run(): 1 thread started by run() "
                                                    "was still running after it returned ("));
            CHECK(e.thread_audit.problem == e.message);
            CHECK(e.thread_audit.started_by_run == 1);
            if (size >= 100'000'000) CHECK(e.thread_audit.cpu_after_return_s > 1e-4);
        }
        // On a host with no idle CPU the woken helper may preempt the caller and finish before
        // run() returns (that call's time is then right): under a parallel build even 1e6's
        // milliseconds did. So an entry may see no escape; one of eight must. At 1e3 the
        // helper's work is microseconds a call, about thread_worked_after_floor_s over a whole
        // entry: CI's suite, two tests at a time on two cores, saw it in none of eight
        // entries. There a flag is not required, only right when it comes.
        Measurement helper = measure_escape("helper", size);
        for (int retry = 0; retry < 7 && helper.status == EntryStatus::ok; ++retry)
            helper = measure_escape("helper", size);
        if (size < 1'000'000 && helper.status == EntryStatus::ok) continue;
        CHECK(helper.status == EntryStatus::verification_failed);
        CHECK_THAT(helper.message, Catch::StartsWith("work outside run(): "));
        CHECK_THAT(helper.message, Catch::Contains(" after run() returned without taking part in it ("));
        CHECK(helper.thread_audit.worked_after_return >= 1);
        CHECK(helper.thread_audit.cpu_after_return_s >= thread_worked_after_floor_s);
    }
}

TEST_CASE("thread audit: switched off, an escape is not looked for", "[thread_audit]") {
    const Measurement e = measure_escape("async", 1'000, false);
    CHECK(e.status == EntryStatus::ok);
    CHECK(e.thread_audit.calls == 0);
}

TEST_CASE("thread audit: the calling thread and the harness's named threads are not read",
          "[thread_audit]") {
    std::atomic<bool> stop{false};
    std::atomic<int> ready{0};
    std::atomic<pid_t> named{0}, plugin{0};
    std::thread harness([&] {
        name_this_thread("test");
        named = static_cast<pid_t>(syscall(SYS_gettid));
        ++ready;
        while (!stop) std::this_thread::yield();
    });
    std::thread other([&] {
        plugin = static_cast<pid_t>(syscall(SYS_gettid));
        ++ready;
        while (!stop) std::this_thread::yield();
    });
    while (ready < 2) std::this_thread::yield();
    ThreadTimes times;
    const std::vector<ThreadTime> threads = times.read();
    stop = true;
    harness.join();
    other.join();
    CHECK(times.resolution() == "ns");
    CHECK_FALSE(listed(threads, static_cast<pid_t>(syscall(SYS_gettid))));
    CHECK_FALSE(listed(threads, named));
    REQUIRE(listed(threads, plugin));
    for (const ThreadTime &t : threads)
        if (t.tid == plugin) CHECK(t.cpu_ns > 0);
}

TEST_CASE("thread audit: the shipped OpenMP plugins pass, at sizes where their pools spin after "
          "each region",
          "[thread_audit]") {
    require_audited_and_passed("", "vecadd_omp,copy_omp,sort_omp,matmul_omp", "10,1000,1000000");
}

TEST_CASE("thread audit: the NumPy and Numba backends pass", "[thread_audit][python]") {
    // The interpreter the bridge itself will choose (sdk/python/find-python.sh), named here so
    // that the runner's workers are sure to use it.
    const runner_process::Outcome found = runner_process::find_python("numpy numba");
    if (found.status != 0) test_support::skip_test(found.output);
    require_audited_and_passed("GPUBENCH_PYTHON=" + found.output + " ", "vecadd_numpy,vecadd_numba,matmul_numpy",
                               "10,1000,1000000");
}

TEST_CASE("a thread counts as exiting once its function has returned, never while it works", "[measure]") {
    CHECK_FALSE(gpubench::thread_exiting(static_cast<pid_t>(syscall(SYS_gettid))));
    std::atomic<bool> finish{false};
    std::atomic<pid_t> tid{0};
    std::thread worker([&] {
        tid = static_cast<pid_t>(syscall(SYS_gettid));
        while (!finish) std::this_thread::yield();
    });
    while (tid == 0) std::this_thread::yield();
    CHECK_FALSE(gpubench::thread_exiting(tid));  // working: an escape if run() returned now
    finish = true;
    worker.join();
    CHECK(gpubench::thread_exiting(tid));  // joined: ending or gone, its /proc entry or not
}
