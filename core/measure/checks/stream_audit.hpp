// The stream audit: did each timed phase's device work stay on the runner's stream and end
// with its span? After warm-up's calls and every audit_every-th sample the runner waits for
// the whole device (the busy-after check), and where CUPTI loads it traces the calls of a few
// extra cycles (device_trace.hpp; sampling.hpp says which). Work a plugin leaves on a stream
// of its own shows as device time after the span, at every check.
#pragma once

#include "check.hpp"
#include "device_trace.hpp"
#include "plugin_instance.hpp"

#include <map>
#include <string>
#include <vector>

namespace gpubench {

// Device work that outlives its span by more than this is outside the runner's stream:
// max(stream_escape_floor_s, stream_escape_share x the span), at every check (the least of
// the drains): another process's kernels on the same GPU delay some checks, not all.
inline constexpr double stream_escape_floor_s = 100e-6;
inline constexpr double stream_escape_share = 0.10;

// What is checked after a phase call: nothing, the busy-after wait, or that and a trace.
enum class PhaseCheck { none, drain, trace };

// The check: the trace's finding, or the busy-after check's where nothing traced.
extern const Check stream_audit_check;

// Span, drain and trace of each audited phase call; its verdict is the entry's stream_audit.
class StreamAuditor {
public:
    StreamAuditor(PhaseTimer &timer, const MeasureOptions &options, bool run_makes_device_work);
    bool traces() const { return trace_ != nullptr; }
    // A traced cycle's whole wall time is a check's cost (its calls are not samples).
    void add_cost(double seconds) { cost_s_ += seconds; }
    // No traced cycles for this entry, for the reason given (the busy-after check remains).
    void stop_tracing(std::string why) {
        trace_ = nullptr;
        untraced_ = std::move(why);
    }
    // Around a traced cycle: the tracer attached before it and detached after it, outside
    // its timed spans and the stream's hold (device_trace.hpp); not under --counters, whose
    // profiler CUPTI cannot initialise again in a process it was detached from (an H200:
    // CUPTI_ERROR_NOT_INITIALIZED).
    void begin_traced_cycle() {
        if (trace_) trace_->attach();
    }
    void end_traced_cycle() {
        if (trace_) detach_tracer();
    }
    // Times `phase` like Instance::timed and checks the device afterwards as `check` says
    // (only calls after warm-up are traced: a traced run() must enqueue device work).
    double timed(Instance &instance, const char *phase, gpubench_phase_fn fn, PhaseCheck check,
                 double *host_s = nullptr);
    StreamAudit verdict() const;

private:
    void judge(const char *phase, const TracedCall &call, double span, bool expect);
    void detach_tracer();
    void drain_verdict(StreamAudit &audit) const;

    struct Checks {
        std::vector<double> spans, drains;
    };
    PhaseTimer &timer_;
    bool enabled_, run_makes_device_work_, detach_;
    DeviceTrace *trace_ = nullptr;
    std::string untraced_;
    std::string stays_attached_;  // why CUPTI stayed in the process during the entry, if it did
    std::map<std::string, Checks> checks_;
    size_t traced_calls_ = 0;
    double cost_s_ = 0;
    std::vector<double> run_extents_, run_operations_;
    std::string problem_;
};

}  // namespace gpubench
