// The verdict on a traced call, from records shaped as CUPTI gives them for each way device work
// escapes the runner's timing, or is joined back to it (fixture_cuda_escapes.cu makes them for
// real on a GPU: test_gpu_device_trace.cpp), and the results it leaves.
#include "device_trace.hpp"
#include "results.hpp"

#include <catch2/catch.hpp>

using namespace gpubench;

namespace {

const std::string kernel = "kernel twice(float const*, float*, unsigned long)";
const TracedStream runner{1, 7}, side{1, 17}, other_device{2, 13};

// Calls are numbered as CUPTI numbers them (correlation ids, in the order of the API calls):
// the runner's begin event is call 1, its end event call 100; the plugin's calls lie between.
TracedCall call_with(std::vector<TracedWork> work, std::vector<TracedEventRecord> records = {},
                     std::vector<TracedWait> waits = {}) {
    TracedCall call;
    call.runner_streams = {runner};
    call.records = {{runner, 1, 9001}, {runner, 100, 9002}};
    call.records.insert(call.records.end(), records.begin(), records.end());
    call.work = std::move(work);
    call.waits = std::move(waits);
    return call;
}

TracedWork on_runner(uint64_t start_ns, uint64_t end_ns, int device = 0, uint32_t correlation = 10) {
    return {kernel, "the runner's stream", device, true, start_ns, end_ns, runner, correlation};
}

TracedWork elsewhere(const std::string &stream, int device = 0, TracedStream id = side,
                     uint32_t correlation = 20) {
    return {kernel, stream, device, false, 1'000, 2'000, id, correlation};
}

// Fork and join with events: record on the runner's stream (call 10), the side stream waits
// (11), the work (20), record on the side stream (30), the runner's stream waits (31).
TracedCall forked_and_joined(std::vector<TracedWork> work) {
    return call_with(std::move(work), {{runner, 10, 501}, {side, 30, 502}},
                     {{TracedWait::stream_waits_event, side, 11, 501},
                      {TracedWait::stream_waits_event, runner, 31, 502}});
}

}  // namespace

TEST_CASE("device trace: work on any other stream or device is outside, at any length",
          "[device_trace]") {
    const double span = 20e-6;
    SECTION("the control: one kernel on the runner's stream, inside the span") {
        CHECK(traced_call_problem("run", call_with({on_runner(1'000, 11'000)}), span, true).empty());
    }
    SECTION("a stream of the plugin's own, a 1 us kernel, never joined") {
        CHECK(traced_call_problem("run", call_with({elsewhere("stream 17 (context 1)")}), span, true) ==
              "work outside the runner's stream in run(): " + kernel +
                  " on stream 17 (context 1) of device 0, not joined back to the runner's stream: "
                  "record an event after it and make the runner's stream wait for it before the "
                  "call returns");
    }
    SECTION("the per-thread and the legacy default streams") {
        CHECK_THAT(traced_call_problem("run", call_with({elsewhere("the per-thread default stream")}),
                                       span, true),
                   Catch::Contains("on the per-thread default stream of device 0, not joined"));
        CHECK_THAT(traced_call_problem("upload", call_with({elsewhere("the legacy default stream")}),
                                       span, false),
                   Catch::StartsWith("work outside the runner's stream in upload(): ") &&
                       Catch::Contains("the legacy default stream"));
    }
    SECTION("another device, even joined; the others are counted") {
        const TracedCall call = call_with({on_runner(1'000, 2'000), elsewhere("stream 13 (context 2)", 1, other_device),
                                           elsewhere("stream 13 (context 2)", 1, other_device)},
                                          {{other_device, 30, 502}},
                                          {{TracedWait::stream_waits_event, runner, 31, 502}});
        CHECK(traced_call_problem("run", call, span, true) ==
              "work outside the runner's stream in run(): " + kernel +
                  " on stream 13 (context 2) of device 1 (and 1 more), device 1 has no stream of "
                  "the runner's: the plugin was not given it");
    }
}

TEST_CASE("device trace: work forked from the runner's stream and joined back by events is inside",
          "[device_trace]") {
    const double span = 20e-6;
    SECTION("fork and join, one side stream") {
        CHECK(traced_call_problem("run", forked_and_joined({elsewhere("stream 17 (context 1)")}),
                                  span, true).empty());
    }
    SECTION("work enqueued after the join record is not joined") {
        CHECK_THAT(traced_call_problem("run", forked_and_joined({elsewhere("stream 17", 0, side, 40)}),
                                       span, true),
                   Catch::Contains("not joined back"));
    }
    SECTION("work enqueued before the fork is not ordered after the span's start") {
        CHECK_THAT(traced_call_problem("run", forked_and_joined({elsewhere("stream 17", 0, side, 5)}),
                                       span, true),
                   Catch::Contains("joined, but not forked from the runner's stream"));
    }
    SECTION("joined without a fork: it can start before the span does") {
        const TracedCall call = call_with({elsewhere("stream 17")}, {{side, 30, 502}},
                                          {{TracedWait::stream_waits_event, runner, 31, 502}});
        CHECK_THAT(traced_call_problem("run", call, span, true),
                   Catch::Contains("joined, but not forked from the runner's stream"));
    }
    SECTION("a wait made after the call returned (the runner's own) joins nothing") {
        const TracedCall call = call_with({elsewhere("stream 17")}, {{runner, 10, 501}, {side, 30, 502}},
                                          {{TracedWait::stream_waits_event, side, 11, 501},
                                           {TracedWait::host_waits_context, runner, 120, 0}});
        CHECK_THAT(traced_call_problem("run", call, span, true), Catch::Contains("not joined back"));
    }
    SECTION("the host waited for the side stream, or its event, before returning") {
        for (const TracedWait &wait : {TracedWait{TracedWait::host_waits_stream, side, 40, 0},
                                       TracedWait{TracedWait::host_waits_event, side, 40, 502},
                                       TracedWait{TracedWait::host_waits_context, side, 40, 0}}) {
            const TracedCall call = call_with({elsewhere("stream 17")}, {{runner, 10, 501}, {side, 30, 502}},
                                              {{TracedWait::stream_waits_event, side, 11, 501}, wait});
            CHECK(traced_call_problem("run", call, span, true).empty());
        }
    }
    SECTION("a chain: runner -> A -> B, joined B -> A -> runner") {
        const TracedStream second{1, 23};
        const TracedCall call = call_with(
            {elsewhere("stream 23", 0, second, 20)},
            {{runner, 10, 501}, {side, 12, 502}, {second, 30, 503}, {side, 32, 504}},
            {{TracedWait::stream_waits_event, side, 11, 501},
             {TracedWait::stream_waits_event, second, 13, 502},
             {TracedWait::stream_waits_event, side, 31, 503},
             {TracedWait::stream_waits_event, runner, 33, 504}});
        CHECK(traced_call_problem("run", call, span, true).empty());
        TracedCall broken = call;
        broken.waits.pop_back();  // A never joined back
        CHECK_THAT(traced_call_problem("run", broken, span, true),
                   Catch::Contains("on stream 23 of device 0, not joined back"));
    }
    SECTION("joined work counts in the extent the span must cover") {
        TracedCall call = forked_and_joined({on_runner(1'000, 2'000), elsewhere("stream 17")});
        call.work[1].start_ns = 1'000;
        call.work[1].end_ns = 101'000;
        CHECK(traced_extent_s(call) == Approx(100e-6));
        CHECK_THAT(traced_call_problem("run", call, span, true), Catch::Contains("does not cover"));
    }
}

TEST_CASE("device trace: a run() after warm-up must enqueue device work, unless declared",
          "[device_trace]") {
    CHECK_THAT(traced_call_problem("run", call_with({}), 3e-6, true),
               Catch::StartsWith("run() enqueued no device work after warm-up") &&
                   Catch::Contains("GPUBENCH_WORK_RUN_NO_DEVICE_WORK"));
    CHECK(traced_call_problem("run", call_with({}), 3e-6, false).empty());       // declared, or warm-up
    CHECK(traced_call_problem("download", call_with({}), 3e-6, false).empty());  // only run() must
}

TEST_CASE("device trace: the timed span covers the traced work, per device", "[device_trace]") {
    // 100 us of work on device 0 and 100 us on device 1 that began later: each device's
    // extent is 100 us, and a 100 us span (the longest per-device span) covers them.
    const TracedStream runner1{2, 8};
    TracedCall two = call_with({on_runner(1'000, 101'000, 0), on_runner(50'000, 150'000, 1)});
    two.work[1].id = runner1;
    two.runner_streams.push_back(runner1);
    CHECK(traced_extent_s(two) == Approx(100e-6));
    CHECK(traced_call_problem("run", two, 100e-6, true).empty());
    // Within the clocks' tolerance, and beyond it.
    CHECK(traced_call_problem("run", call_with({on_runner(1'000, 105'000)}), 100e-6, true).empty());
    CHECK(traced_call_problem("run", call_with({on_runner(1'000, 201'000)}), 100e-6, true) ==
          "the timed span of run() (100.00 us) does not cover its device work (200.00 us, traced)");
    // Work never completed (no end, or no start) adds nothing to the extent.
    CHECK(traced_extent_s(call_with({on_runner(5'000, 0)})) == 0);
    CHECK(traced_extent_s(call_with({on_runner(0, 5'000)})) == 0);
}

TEST_CASE("device trace: the results say what traced the checks, or why nothing did",
          "[device_trace]") {
    StreamAudit with_trace;
    with_trace.checks = 6;
    with_trace.traced.by = "CUPTI 13.0";
    with_trace.traced.calls = 6;
    with_trace.traced.run_device_work_s = 2.5e-6;
    with_trace.traced.run_operations = 1;
    with_trace.traced.stays_attached = "cuptiFinalize: CUPTI_ERROR_NOT_INITIALIZED";
    const nlohmann::json t = with_trace;
    CHECK(t["traced"]["by"] == "CUPTI 13.0");
    CHECK(t["traced"]["run_operations"] == 1);
    CHECK(t["traced"]["stays_attached"] == "cuptiFinalize: CUPTI_ERROR_NOT_INITIALIZED");
    CHECK_FALSE(t.contains("untraced"));
    CHECK_FALSE(t.contains("problem"));

    StreamAudit without_trace;
    without_trace.checks = 6;
    without_trace.untraced = "CUPTI not found (tried libcupti.so.13)";
    const nlohmann::json u = without_trace;
    CHECK(u["untraced"] == "CUPTI not found (tried libcupti.so.13)");
    CHECK_FALSE(u.contains("traced"));
    // Traced cycles all dropped (too long), CUPTI in the process all the same (--counters):
    // both said, and read back (the flag cupti_attached reads the latter).
    StreamAudit dropped = without_trace;
    dropped.untraced = "not traced: a traced cycle (about 30 s) would outlast the entry's sampling time (10 s)";
    dropped.traced.stays_attached = "--counters: the GPU counters' profiler ...";
    const nlohmann::json dj = dropped;
    CHECK(dj["untraced"] == dropped.untraced);
    CHECK(dj["traced"]["stays_attached"] == dropped.traced.stays_attached);
    CHECK(dj["traced"]["by"] == "");
    CHECK(dj.get<StreamAudit>().traced.stays_attached == dropped.traced.stays_attached);

    // Read back whole, as the runner reads a worker's entry.
    with_trace.problem = "run() enqueued no device work after warm-up";
    const StreamAudit back = nlohmann::json(with_trace).get<StreamAudit>();
    CHECK(back.traced.by == with_trace.traced.by);
    CHECK(back.traced.stays_attached == with_trace.traced.stays_attached);
    // Where CUPTI left, the field is not written, and reads back as it left.
    StreamAudit detached = with_trace;
    detached.traced.stays_attached.clear();
    const nlohmann::json d = detached;
    CHECK_FALSE(d["traced"].contains("stays_attached"));
    CHECK(d.get<StreamAudit>().traced.stays_attached.empty());
    CHECK(back.problem == with_trace.problem);
    CHECK(back.traced.run_device_work_s == with_trace.traced.run_device_work_s);
}
