// Tracing the device work a plugin's call enqueues: every kernel, copy and memset, with the
// stream and device it ran on and when, and the event records and waits that order streams.
// The busy-after check (sampling.cpp) sees only work that outlives a span by more than
// ~100 us; a trace sees all of it, at any duration. CUPTI's activity API does the tracing; it is
// loaded at run time (device_trace_cupti.cpp), so that a build or a machine without it still
// runs and says why nothing was traced.
//
// Work on a stream other than the runner's is timed correctly when events order it inside the
// runner's span: forked (its stream waited for an event recorded on the runner's stream before
// it was enqueued) and joined (the runner's stream waited for an event recorded on its stream
// after it, or the host waited for it, before the call returned), through any chain of
// streams. Without the fork it can run while the runner's stream is still held, before the
// span begins; without the join, after the span ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

// A stream as CUPTI's records name it: unique within the process.
struct TracedStream {
    uint32_t context = 0, stream = 0;
    bool operator==(const TracedStream &o) const { return context == o.context && stream == o.stream; }
};

// One piece of device work a traced call enqueued.
struct TracedWork {
    std::string what;         // "kernel twice(float const*, float*, int)", "memcpy HtoD 4 KiB"
    std::string stream;       // "the runner's stream", "the legacy default stream", "stream 17"
    int device = 0;           // the CUDA device it ran on
    bool runner_stream = false;  // on one of the streams the runner gave the plugin
    uint64_t start_ns = 0, end_ns = 0;  // CUPTI timestamps; 0 when never completed
    TracedStream id;          // its stream in the records
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
    // What traces, e.g. "CUPTI 13.0".
    virtual const std::string &name() const = 0;
    // The streams the runner gave the plugin (cudaStream_t, one per device); work on any
    // other is outside them unless events order it inside. Returns "" or why the streams
    // cannot be told apart (the tracer is then not used for this entry).
    virtual std::string watch(const std::vector<void *> &runner_streams) = 0;
    // Starts tracing. The work enqueued until end() is what end() returns.
    virtual void begin() = 0;
    // Waits for every device this process uses, stops tracing and returns the traced call,
    // without the runner's own work (its stream hold). Throws std::runtime_error when the
    // trace was incomplete (records dropped) or CUDA failed.
    virtual TracedCall end() = 0;
};

// The process's tracer (CUPTI keeps one per process), made on the first call; nullptr when
// there is none, with the reason in why_not ("gpubench was built without CUPTI's headers",
// "libcupti.so.13 not found in ...", "CUPTI is in use by another tool").
DeviceTrace *device_trace(std::string &why_not);

// The verdict on one traced call of a timed phase: "" when it is sound, else the one-line
// problem that makes the entry invalid. `span_s` is the call's timed span; `expect_work`:
// the call is a run() after warm-up of a plugin that does not declare it enqueues no device
// work (GPUBENCH_WORK_RUN_NO_DEVICE_WORK).
std::string traced_call_problem(const char *phase, const TracedCall &call, double span_s,
                                bool expect_work);

// The seconds from the first start to the last end of the work inside the runner's span
// (on its streams, or ordered inside by events), the longest over the devices (spans are per
// device too); 0 without any.
double traced_extent_s(const TracedCall &call);

// The traced span may exceed the timed one by this much before the timing is in doubt:
// CUPTI's timestamps and CUDA events are separate clocks of ~1 us resolution.
inline constexpr double traced_extent_floor_s = 5e-6;
inline constexpr double traced_extent_share = 0.05;

}  // namespace gpubench
