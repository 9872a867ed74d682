// The verdict on a traced call: plain logic over the records, so that CI tests it without a GPU.
#include "device_trace.hpp"

#include "text_format.hpp"

#include <algorithm>
#include <map>

namespace gpubench {

double traced_extent_s(const std::vector<TracedWork> &work) {
    struct Extent {
        uint64_t first = UINT64_MAX, last = 0;
    };
    std::map<int, Extent> per_device;
    for (const TracedWork &w : work) {
        if (!w.runner_stream || w.start_ns == 0 || w.end_ns < w.start_ns) continue;
        Extent &e = per_device[w.device];
        e.first = std::min(e.first, w.start_ns);
        e.last = std::max(e.last, w.end_ns);
    }
    double longest = 0;
    for (const auto &[device, e] : per_device)
        longest = std::max(longest, static_cast<double>(e.last - e.first) * 1e-9);
    return longest;
}

std::string traced_call_problem(const char *phase, const std::vector<TracedWork> &work,
                                double span_s, bool expect_work) {
    const std::string call = std::string(phase) + "()";
    const auto outside = std::find_if(work.begin(), work.end(),
                                      [](const TracedWork &w) { return !w.runner_stream; });
    if (outside != work.end()) {
        const auto others = std::count_if(work.begin(), work.end(),
                                          [](const TracedWork &w) { return !w.runner_stream; });
        std::string problem = "work outside the runner's stream in " + call + ": " +
                              outside->what + " on " + outside->stream + " of device " +
                              std::to_string(outside->device);
        if (others > 1) problem += " (and " + std::to_string(others - 1) + " more)";
        return problem;
    }
    if (expect_work && work.empty())
        return call + " enqueued no device work after warm-up: a result kept from an earlier "
                      "call is timed as nothing (a run() that computes on the host declares "
                      "GPUBENCH_WORK_RUN_NO_DEVICE_WORK)";
    const double extent = traced_extent_s(work);
    if (extent > span_s * (1 + traced_extent_share) + traced_extent_floor_s)
        return "the timed span of " + call + " (" + format_seconds(span_s) +
               ") does not cover its device work (" + format_seconds(extent) + ", traced)";
    return "";
}

}  // namespace gpubench
