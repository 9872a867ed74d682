// Tracing the device work a plugin's call enqueues (every kernel, copy and memset, where and
// when it ran) and the event records and waits that order streams: the busy-after check
// (sampling.cpp) sees only work that outlives a span by ~100 us, a trace sees all of it.
// CUPTI's activity API, loaded at run time (device_trace_cupti.cpp), does the tracing.
//
// Work on another stream than the runner's is timed correctly when events order it inside the
// runner's span, through any chain of streams: forked (its stream waited for an event recorded
// on the runner's stream) and joined (the runner's stream, or the host, waited for an event
// recorded after it, before the call returned). Without the fork it can run before the span
// begins (while the runner's stream is held); without the join, after it ends.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

// A stream as CUPTI's records name it: unique within the process.
struct TracedStream {
    uint32_t context = 0, stream = 0;
    auto operator<=>(const TracedStream &) const = default;
};

// One piece of device work a traced call enqueued.
struct TracedWork {
    std::string what;         // "kernel twice(float const*, float*, int)", "memcpy HtoD 4 KiB"
    std::string stream;       // "the runner's stream", "the legacy default stream", "stream 17"
    int device = 0;
    bool runner_stream = false;  // on one of the streams the runner gave the plugin
    uint64_t start_ns = 0, end_ns = 0;  // CUPTI timestamps; 0 when never completed
    TracedStream id;
    uint32_t correlation = 0;  // the API call that enqueued it: calls are numbered in order
};

// A cudaEventRecord on a stream during the call.
struct TracedEventRecord {
    TracedStream stream;
    uint32_t correlation = 0;
    uint64_t sync_id = 0;  // names this record in the waits that refer to it
};

// A wait during the call: a stream waiting for an event record, or the host waiting.
struct TracedWait {
    enum Kind { stream_waits_event, host_waits_event, host_waits_stream, host_waits_context };
    Kind kind = stream_waits_event;
    TracedStream stream;      // the waiting stream, or the stream the host waited for
    uint32_t correlation = 0;
    uint64_t sync_id = 0;     // the event record waited for (event waits)
};

// Everything one traced call enqueued, without the runner's own work (its stream hold).
struct TracedCall {
    std::vector<TracedWork> work;
    std::vector<TracedEventRecord> records;  // the runner's begin and end events among them
    std::vector<TracedWait> waits;
    std::vector<TracedStream> runner_streams;
};

class DeviceTrace {
public:
    virtual ~DeviceTrace() = default;
    virtual const std::string &name() const = 0;  // "CUPTI 13.0"
    // The streams the runner gave the plugin (cudaStream_t, one per device). Returns "" or why
    // they cannot be told apart (the tracer is then not used for this entry).
    virtual std::string watch(const std::vector<void *> &runner_streams) = 0;
    // CUPTI into the process again after a detach(): milliseconds (an H200: 14 ms with the
    // first traced launches), so called before a traced cycle, outside its timed spans and
    // holds. begin() attaches too where nothing did.
    virtual void attach() = 0;
    // CUPTI out of the process until the next attach() (cupti_detach.hpp), after a traced
    // cycle: the calls that follow pay nothing for it.
    virtual void detach() = 0;
    virtual void begin() = 0;
    // Waits for every device this process uses, stops tracing and returns the call traced
    // since begin(). Throws std::runtime_error when records were dropped or CUDA failed.
    virtual TracedCall end() = 0;
    // "" when the last detach() took CUPTI out of the process (or found it out), else why it
    // stays: then the host time of every later CUDA call includes its cost.
    virtual std::string stays_attached() const = 0;
};

// The process's tracer (CUPTI keeps one per process), made on the first call; nullptr when
// there is none, with the reason in why_not.
DeviceTrace *device_trace(std::string &why_not);

// The verdict on one traced call of a timed phase: "" when it is sound, else the one-line
// problem that makes the entry invalid. `expect_work`: a run() after warm-up of a plugin that
// does not declare GPUBENCH_WORK_RUN_NO_DEVICE_WORK.
std::string traced_call_problem(const char *phase, const TracedCall &call, double span_s,
                                bool expect_work);

// The seconds from the first start to the last end of the work inside the runner's span, the
// longest over the devices (spans are per device too); 0 without any.
double traced_extent_s(const TracedCall &call);

// The traced span may exceed the timed one by this much before the timing is in doubt:
// CUPTI's timestamps and CUDA events are separate clocks of ~1 us resolution.
inline constexpr double traced_extent_floor_s = 5e-6;
inline constexpr double traced_extent_share = 0.05;

}  // namespace gpubench
