// The verdict on a traced call: plain logic over the records, so that CI tests it without a GPU.
#include "device_trace.hpp"

#include "text_format.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

namespace gpubench {
namespace {

constexpr uint32_t never = std::numeric_limits<uint32_t>::max();

// The runner's end event on one of its streams: its last record in the call (the plugin's
// own records on that stream come before it); nullptr without records.
const TracedEventRecord *runner_end(const TracedCall &call, const TracedStream &runner) {
    const TracedEventRecord *end = nullptr;
    for (const TracedEventRecord &r : call.records)
        if (r.stream == runner && (!end || r.correlation > end->correlation)) end = &r;
    return end;
}

// Per stream, what events prove of its operations (numbered by correlation): those before
// `joined_before` are complete before the runner's end event, those after `forked_after`
// start after its begin event. Chains of streams are followed until nothing changes.
struct Ordering {
    std::map<TracedStream, uint32_t> joined_before, forked_after;
    uint32_t joined(const TracedStream &s) const {
        const auto it = joined_before.find(s);
        return it == joined_before.end() ? 0 : it->second;
    }
    std::optional<uint32_t> forked(const TracedStream &s) const {
        const auto it = forked_after.find(s);
        return it == forked_after.end() ? std::nullopt : std::optional(it->second);
    }
    bool join(const TracedStream &s, uint32_t before) {
        uint32_t &now = joined_before[s];
        if (before <= now) return false;
        now = before;
        return true;
    }
    bool fork(const TracedStream &s, uint32_t after) {
        const auto [it, added] = forked_after.emplace(s, after);
        if (!added && after >= it->second) return false;
        it->second = after;
        return true;
    }
};

const TracedEventRecord *record_of(const TracedCall &call, uint64_t sync_id) {
    for (const TracedEventRecord &r : call.records)
        if (r.sync_id == sync_id) return &r;
    return nullptr;
}

// One pass over the waits made before the call returned; true when it proved more.
bool follow_waits(const TracedCall &call, uint32_t returned, Ordering &o) {
    bool more = false;
    for (const TracedWait &w : call.waits) {
        if (w.correlation > returned) continue;
        const TracedEventRecord *r =
            w.kind == TracedWait::stream_waits_event || w.kind == TracedWait::host_waits_event
                ? record_of(call, w.sync_id)
                : nullptr;
        switch (w.kind) {
        case TracedWait::stream_waits_event:
            if (!r) break;
            if (o.joined(w.stream) > w.correlation) more |= o.join(r->stream, r->correlation);
            if (const auto f = o.forked(r->stream); f && r->correlation > *f)
                more |= o.fork(w.stream, w.correlation);
            break;
        case TracedWait::host_waits_event:
            if (r) more |= o.join(r->stream, r->correlation);
            break;
        case TracedWait::host_waits_stream: more |= o.join(w.stream, w.correlation); break;
        case TracedWait::host_waits_context:
            for (const TracedWork &work : call.work)
                if (work.id.context == w.stream.context) more |= o.join(work.id, w.correlation);
            break;
        }
    }
    return more;
}

Ordering order_streams(const TracedCall &call) {
    Ordering o;
    uint32_t returned = never;  // the runner's end event: later waits are the runner's own
    for (const TracedStream &runner : call.runner_streams) {
        o.join(runner, never);
        o.fork(runner, 0);
        if (const TracedEventRecord *end = runner_end(call, runner))
            returned = std::min(returned, end->correlation);
    }
    for (size_t pass = 0; pass <= call.waits.size() && follow_waits(call, returned, o); ++pass) {
    }
    return o;
}

// Why `w`, on a stream of a device the runner gave the plugin, is not inside the span; "".
std::string outside_reason(const Ordering &o, const TracedWork &w) {
    if (w.correlation >= o.joined(w.id))
        return "not joined back to the runner's stream: record an event after it and make the "
               "runner's stream wait for it before the call returns";
    const auto fork = o.forked(w.id);
    if (!fork || w.correlation <= *fork)
        return "joined, but not forked from the runner's stream: it can run while that stream "
               "is held, before the timed span begins (make its stream wait for an event "
               "recorded on the runner's stream first)";
    return "";
}

// For each piece of work of a call: "" where it is inside the runner's span, else why not.
std::vector<std::string> traced_ordering(const TracedCall &call) {
    const Ordering o = order_streams(call);
    std::vector<std::string> reasons;
    for (const TracedWork &w : call.work) {
        const bool given = std::any_of(call.runner_streams.begin(), call.runner_streams.end(),
                                       [&](const TracedStream &s) { return s.context == w.id.context; });
        reasons.push_back(w.runner_stream ? ""
                          : given         ? outside_reason(o, w)
                                          : "device " + std::to_string(w.device) +
                                                " has no stream of the runner's: the plugin was not given it");
    }
    return reasons;
}

}  // namespace

double traced_extent_s(const TracedCall &call) {
    struct Extent {
        uint64_t first = UINT64_MAX, last = 0;
    };
    const std::vector<std::string> outside = traced_ordering(call);
    std::map<int, Extent> per_device;
    for (size_t i = 0; i < call.work.size(); ++i) {
        const TracedWork &w = call.work[i];
        if (!outside[i].empty() || w.start_ns == 0 || w.end_ns < w.start_ns) continue;
        Extent &e = per_device[w.device];
        e.first = std::min(e.first, w.start_ns);
        e.last = std::max(e.last, w.end_ns);
    }
    double longest = 0;
    for (const auto &[device, e] : per_device)
        longest = std::max(longest, static_cast<double>(e.last - e.first) * 1e-9);
    return longest;
}

std::string traced_call_problem(const char *phase, const TracedCall &call, double span_s,
                                bool expect_work) {
    const std::string name = std::string(phase) + "()";
    const std::vector<std::string> outside = traced_ordering(call);
    const auto is_outside = [](const std::string &why) { return !why.empty(); };
    const auto first = std::find_if(outside.begin(), outside.end(), is_outside);
    if (first != outside.end()) {
        const TracedWork &w = call.work[static_cast<size_t>(first - outside.begin())];
        const auto others = std::count_if(outside.begin(), outside.end(), is_outside);
        std::string problem = "work outside the runner's stream in " + name + ": " + w.what +
                              " on " + w.stream + " of device " + std::to_string(w.device);
        if (others > 1) problem += " (and " + std::to_string(others - 1) + " more)";
        return problem + ", " + *first;
    }
    if (expect_work && call.work.empty())
        return name + " enqueued no device work after warm-up: a result kept from an earlier "
                      "call is timed as nothing (a run() that computes on the host declares "
                      "GPUBENCH_WORK_RUN_NO_DEVICE_WORK)";
    const double extent = traced_extent_s(call);
    if (extent > span_s * (1 + traced_extent_share) + traced_extent_floor_s)
        return "the timed span of " + name + " (" + format_seconds(span_s) +
               ") does not cover its device work (" + format_seconds(extent) + ", traced)";
    return "";
}

}  // namespace gpubench
