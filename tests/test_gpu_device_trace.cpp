// The device trace on a GPU: fixture_cuda_escapes.cu's device work escapes the runner's timing
// in each way it can, at sizes where the busy-after check sees nothing (1e3, 1e6) and where it
// would (1e8); each is caught, and the control and a declared host run() are not. Skipped,
// with the reason, where no GPU or no CUPTI can be used.
#include "check.hpp"
#include "device_trace.hpp"
#include "gpu.hpp"
#include "measure.hpp"
#include "statistics.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace gpubench;

namespace {

void require_trace() {
    test_support::require_gpu();
    std::string why_not;
    if (!device_trace(why_not)) test_support::skip_test("no device trace: " + why_not);
}

Measurement measure_gpu_escape(const std::string &escape, uint64_t size, PhaseTimer &timer,
                               bool trace = true, double max_time_s = 10) {
    static const Plugin plugin = test_support::load_fixture("fixture_cuda_escapes.so");
    MeasureOptions options = test_support::sampled(10, 40);
    options.params = "escape=" + escape;
    options.trace_device = trace;
    options.max_time_s = max_time_s;
    return measure_entry(plugin, size, options, timer);
}

}  // namespace

TEST_CASE("device trace: each escape is caught at every size, and the control and a declared "
          "host run() pass",
          "[gpu]") {
    require_trace();
    auto timer = make_cuda_event_timer(0);
    const std::vector<std::pair<std::string, std::string>> escapes{
        {"own_stream", "twice(float const*, float*, unsigned long) on stream "},
        {"per_thread", "on the per-thread default stream of device 0"},
        {"legacy", "on the legacy default stream of device 0"},
        {"memoised", "run() enqueued no device work after warm-up"}};
    for (const uint64_t size : {1'000ull, 1'000'000ull, 100'000'000ull}) {
        INFO("size " << size);
        const Measurement control = measure_gpu_escape("none", size, *timer);
        REQUIRE(control.status == EntryStatus::ok);
        const StreamAudit &audit = control.stream_audit;
        CHECK_THAT(audit.traced.by, Catch::StartsWith("CUPTI "));
        CHECK(audit.problem.empty());
        CHECK(audit.traced.calls >= 3);
        CHECK(audit.traced.run_operations == 1);  // one kernel, the hold not counted
        CHECK(audit.traced.run_device_work_s > 0);
        CHECK(audit.traced.run_device_work_s <= summarize(control.timing.samples.run).max * 1.05 + 5e-6);
        // CUPTI left the process after each traced call (and attached again for the next, whose
        // escapes below are still caught), unless the GPU counters, used earlier in this
        // process, hold it.
        std::string why_not;
        const std::string stays = device_trace(why_not)->stays_attached();
        CHECK((stays.empty() || stays == "the GPU counters keep CUPTI attached"));
        // The entry records it, and carries the flag where CUPTI stayed.
        CHECK(audit.traced.stays_attached == stays);
        const std::vector<std::string> flags = entry_flags(control);
        CHECK((std::find(flags.begin(), flags.end(), "cupti_attached") != flags.end()) == !stays.empty());

        for (const auto &[escape, message] : escapes) {
            INFO("escape=" << escape);
            const Measurement e = measure_gpu_escape(escape, size, *timer);
            CHECK(e.status == EntryStatus::verification_failed);
            CHECK_THAT(e.message, Catch::StartsWith("work outside the runner's stream in run(): kernel ") ||
                                      Catch::StartsWith("run() enqueued"));
            CHECK_THAT(e.message, Catch::Contains(message));
            CHECK(e.stream_audit.problem == e.message);
        }
        // Its host work is not in the GPU's span: held, the span is near zero, and a rate that
        // exceeds a ceiling (the L2's at 1e6) is refused as such; the trace never refuses it.
        const Measurement declared = measure_gpu_escape("declared", size, *timer);
        CHECK(declared.stream_audit.problem.empty());
        CHECK((declared.status == EntryStatus::ok ||
               declared.message.rfind("faster than the hardware", 0) == 0));
        CHECK(declared.stream_audit.traced.run_operations == 0);
    }
}

namespace {

Measurement measure_join(const std::string &way, uint64_t size, PhaseTimer &timer) {
    static const Plugin plugin = test_support::load_fixture("fixture_cuda_joins.so");
    MeasureOptions options = test_support::sampled(10, 40);
    options.params = "way=" + way;
    return measure_entry(plugin, size, options, timer);
}

}  // namespace

TEST_CASE("device trace: correct CUDA off the runner's stream, ordered back into its span, "
          "passes at every size, and the same graph unjoined is caught",
          "[gpu]") {
    require_trace();
    auto timer = make_cuda_event_timer(0);
    for (const uint64_t size : {1'000ull, 1'000'000ull, 100'000'000ull}) {
        INFO("size " << size);
        for (const char *way : {"events", "graph", "host_func", "cublas"}) {
            INFO("way=" << way);
            const Measurement e = measure_join(way, size, *timer);
            CHECK(e.message == "");
            CHECK(e.status == EntryStatus::ok);
            CHECK(e.stream_audit.problem.empty());
            CHECK(e.stream_audit.traced.calls >= 3);
            CHECK(e.stream_audit.traced.run_operations >= 1);
        }
        const Measurement unjoined = measure_join("graph_unjoined", size, *timer);
        CHECK(unjoined.status == EntryStatus::verification_failed);
        CHECK_THAT(unjoined.message,
                   Catch::StartsWith("work outside the runner's stream in run(): kernel ") &&
                       Catch::Contains("twice(") && Catch::Contains(" on stream ") &&
                       Catch::Contains("not joined back"));
    }
}

TEST_CASE("roofline: work that claims 10x the bytes it moves is refused where its working set "
          "is in DRAM",
          "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    const Measurement dram = measure_join("overclaimed", 100'000'000, *timer);
    CHECK(dram.status == EntryStatus::verification_failed);
    CHECK_THAT(dram.message, Catch::Contains("faster than the hardware"));
    // 8 KB: a 10x claim is still far below every ceiling, as no rate check can tell.
    CHECK(measure_join("overclaimed", 1'000, *timer).status == EntryStatus::ok);
}

TEST_CASE("device trace: work on a second GPU is caught, joined back by events or not", "[gpu]") {
    require_trace();
    if (cuda_device_count() < 2) test_support::skip_test("escape=other_device needs a second GPU");
    auto timer = make_cuda_event_timer(0);
    for (const std::string escape : {"other_device", "other_device_joined"}) {
        INFO("escape=" << escape);
        const Measurement e = measure_gpu_escape(escape, 1'000, *timer);
        CHECK(e.status == EntryStatus::verification_failed);
        CHECK_THAT(e.message, Catch::StartsWith("work outside the runner's stream in run(): kernel ") &&
                                  Catch::Contains("twice(") && Catch::Contains("of device 1"));
    }
}

TEST_CASE("device trace: --no-device-trace, or a traced cycle longer than the sampling time, "
          "leaves the busy-after check, and says so",
          "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    const Measurement control = measure_gpu_escape("none", 1'000, *timer, false);
    REQUIRE(control.status == EntryStatus::ok);
    CHECK(control.stream_audit.traced.by.empty());
    CHECK(control.stream_audit.untraced == "off (--no-device-trace)");
    CHECK(control.stream_audit.traced.calls == 0);
    // 1e8 floats: a download of 400 MB takes milliseconds, far over a 100 us sampling time.
    const Measurement short_budget = measure_gpu_escape("none", 100'000'000, *timer, true, 1e-4);
    REQUIRE(short_budget.status == EntryStatus::ok);
    CHECK_THAT(short_budget.stream_audit.untraced,
               Catch::StartsWith("not traced: a traced cycle (about ") &&
                   Catch::EndsWith(") would outlast the entry's sampling time (100.00 us)"));
    CHECK(short_budget.stream_audit.traced.calls == 0);
}

TEST_CASE("device trace: a PyTorch side stream joined back passes, unjoined is caught",
          "[gpu][python]") {
    require_trace();
    const auto entries_of = [](const std::string &way) {
        const auto results = runner_process::temp_results("torch_side_stream_" + way);
        std::filesystem::remove(results);
        const runner_process::Outcome o = runner_process::run_runner(
            std::string("--plugin-dir ") + GPUBENCH_PYTHON_FIXTURE_DIR +
            " --plugin pyfixture_torch_side_stream --sizes 1e3,1e6,1e8 --param way=" + way +
            runner_process::quick + "--output " + results.string());
        INFO(o.output);
        if (o.output.find("No module named 'torch'") != std::string::npos)
            test_support::skip_test("no interpreter with torch");
        REQUIRE(std::filesystem::exists(results));
        nlohmann::json entries = runner_process::read_json(results).at("entries");
        std::filesystem::remove(results);
        return entries;
    };
    const nlohmann::json joined = entries_of("joined");
    CHECK(joined.size() == 3);
    for (const nlohmann::json &e : joined) {
        INFO(e.dump().substr(0, 600));
        CHECK(e.at("status") == "ok");
    }
    const nlohmann::json unjoined = entries_of("unjoined");
    CHECK(unjoined.size() == 3);
    for (const nlohmann::json &e : unjoined) {
        INFO(e.dump().substr(0, 600));
        CHECK(e.at("status") == "verification_failed");
        CHECK_THAT(e.at("message").get<std::string>(),
                   Catch::StartsWith("work outside the runner's stream in run(): kernel ") &&
                       Catch::Contains("not joined back"));
    }
}
