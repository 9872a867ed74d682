// The verdict on a traced call, from records shaped as CUPTI gives them for each way device work
// escapes the runner's timing (fixture_cuda_escapes.cu makes them for real on a GPU:
// test_gpu_device_trace.cpp), and the results it leaves.
#include "device_trace.hpp"
#include "results.hpp"

#include <catch2/catch.hpp>

using namespace gpubench;

namespace {

const std::string kernel = "kernel twice(float const*, float*, unsigned long)";

TracedWork on_runner(uint64_t start_ns, uint64_t end_ns, int device = 0) {
    return {kernel, "the runner's stream", device, true, start_ns, end_ns};
}

TracedWork elsewhere(const std::string &stream, int device = 0) {
    return {kernel, stream, device, false, 1'000, 2'000};
}

}  // namespace

TEST_CASE("device trace: work on any other stream or device is outside, at any length",
          "[device_trace]") {
    const double span = 20e-6;
    SECTION("the control: one kernel on the runner's stream, inside the span") {
        CHECK(traced_call_problem("run", {on_runner(1'000, 11'000)}, span, true).empty());
    }
    SECTION("a stream of the plugin's own, a 1 us kernel") {
        CHECK(traced_call_problem("run", {elsewhere("stream 17 (context 1)")}, span, true) ==
              "work outside the runner's stream in run(): " + kernel +
                  " on stream 17 (context 1) of device 0");
    }
    SECTION("the per-thread and the legacy default streams") {
        CHECK_THAT(traced_call_problem("run", {elsewhere("the per-thread default stream")}, span, true),
                   Catch::Contains("on the per-thread default stream of device 0"));
        CHECK_THAT(traced_call_problem("upload", {elsewhere("the legacy default stream")}, span, false),
                   Catch::StartsWith("work outside the runner's stream in upload(): ") &&
                       Catch::Contains("the legacy default stream"));
    }
    SECTION("another device; the others are counted") {
        const std::vector<TracedWork> work{on_runner(1'000, 2'000), elsewhere("stream 13 (context 2)", 1),
                                           elsewhere("stream 13 (context 2)", 1)};
        CHECK(traced_call_problem("run", work, span, true) ==
              "work outside the runner's stream in run(): " + kernel +
                  " on stream 13 (context 2) of device 1 (and 1 more)");
    }
}

TEST_CASE("device trace: a run() after warm-up must enqueue device work, unless declared",
          "[device_trace]") {
    CHECK_THAT(traced_call_problem("run", {}, 3e-6, true),
               Catch::StartsWith("run() enqueued no device work after warm-up") &&
                   Catch::Contains("GPUBENCH_WORK_RUN_NO_DEVICE_WORK"));
    CHECK(traced_call_problem("run", {}, 3e-6, false).empty());       // declared, or warm-up
    CHECK(traced_call_problem("download", {}, 3e-6, false).empty());  // only run() must
}

TEST_CASE("device trace: the timed span covers the traced work, per device", "[device_trace]") {
    // 100 us of work on device 0 and 100 us on device 1 that began later: each device's
    // extent is 100 us, and a 100 us span (the longest per-device span) covers them.
    const std::vector<TracedWork> two{on_runner(1'000, 101'000, 0), on_runner(50'000, 150'000, 1)};
    CHECK(traced_extent_s(two) == Approx(100e-6));
    CHECK(traced_call_problem("run", two, 100e-6, true).empty());
    // Within the clocks' tolerance, and beyond it.
    CHECK(traced_call_problem("run", {on_runner(1'000, 105'000)}, 100e-6, true).empty());
    CHECK(traced_call_problem("run", {on_runner(1'000, 201'000)}, 100e-6, true) ==
          "the timed span of run() (100.00 us) does not cover its device work (200.00 us, traced)");
    // Work never completed (no end, or no start) adds nothing to the extent.
    CHECK(traced_extent_s({on_runner(5'000, 0)}) == 0);
    CHECK(traced_extent_s({on_runner(0, 5'000)}) == 0);
}

TEST_CASE("device trace: the results say what traced the checks, or why nothing did",
          "[device_trace]") {
    StreamAudit traced;
    traced.audits = 6;
    traced.tracer = "CUPTI 13.0";
    traced.traced_calls = 6;
    traced.run_traced_s = 2.5e-6;
    traced.run_operations = 1;
    const nlohmann::json t = traced;
    CHECK(t["traced"]["by"] == "CUPTI 13.0");
    CHECK(t["traced"]["run_operations"] == 1);
    CHECK_FALSE(t.contains("untraced"));
    CHECK_FALSE(t.contains("problem"));

    StreamAudit untraced;
    untraced.audits = 6;
    untraced.untraced = "CUPTI not found (tried libcupti.so.13)";
    const nlohmann::json u = untraced;
    CHECK(u["untraced"] == "CUPTI not found (tried libcupti.so.13)");
    CHECK_FALSE(u.contains("traced"));

    // Read back whole, as the runner reads a worker's entry.
    traced.problem = "run() enqueued no device work after warm-up";
    const StreamAudit back = nlohmann::json(traced).get<StreamAudit>();
    CHECK(back.tracer == traced.tracer);
    CHECK(back.problem == traced.problem);
    CHECK(back.run_traced_s == traced.run_traced_s);
}
