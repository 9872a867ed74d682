#include "stream_audit.hpp"

#include "elapsed.hpp"
#include "statistics.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <chrono>

namespace gpubench {

namespace {

double median_of(std::vector<double> values) { return summarize(std::move(values)).median; }

// The trace's finding, or the busy-after check's where nothing traced.
std::string stream_escape(const Measurement &e) {
    const StreamAudit &audit = e.stream_audit;
    if (!audit.problem.empty()) return audit.problem;
    if (!audit.outside_stream) return "";
    return "work outside the runner's stream in " + audit.worst_phase + "(): timed " +
           format_seconds(audit.timed_s) + ", the device stayed busy " +
           format_seconds(audit.device_busy_after_s) + " after it (at every check)";
}

}  // namespace

extern const Check stream_audit_check{
    "stream_audit", CheckVerdict::invalid,
    "device work outside the runner's stream, or outside its timed span",
    "Traced: the runner runs a few extra cycles (upload, run, download) whose calls it traces "
    "with CUPTI's activity API: one before the 1st, 4th, 16th, 64th… sample, or one after the "
    "last sample when sampling ended sooner. Their times are not kept as samples, since tracing "
    "slows the host's calls several-fold and adds about 0.5 µs of device time per kernel; CUPTI "
    "is attached before each traced cycle and detached after it, so the calls between pay "
    "nothing for it (except under `--counters`, which keeps it attached); the "
    "warm-up is not traced, since CUPTI slows a process's first launches (module loading) by up "
    "to seconds. A traced cycle that would outlast the entry's whole sampling time (2.5 × its "
    "last sample's cycle above `--max-time`, or above its share of a `--budget`) is not run, and "
    "the entry says why in `stream_audit.untraced`. The trace records every kernel, copy and "
    "memset, with its stream, device and start and end, and the event records and waits that "
    "order streams (CUPTI's CUDA-event and synchronisation records; each wait names the exact "
    "record it waited for, and calls are numbered in the order they were made). Work on another "
    "stream of the same device is inside the span when events prove it: *forked* (its stream "
    "waited for an event recorded on the runner's stream before the work was enqueued) and "
    "*joined* (the runner's stream waited for an event recorded on its stream after the work, or "
    "the host waited for that stream, before the call returned), through any chain of streams. So"
    " fork/join with events, a graph launched on a side stream and joined, and PyTorch's "
    "`side.wait_stream(main)` … `main.wait_stream(side)` pass. Work not so ordered, whatever its "
    "length (a side stream never joined back, or never forked: it can run while the runner's "
    "stream is held, before the span begins; the per-thread or legacy default stream without "
    "events; any work on another GPU) makes the entry invalid, naming the stream and what is "
    "missing; so does a `run()` after warm-up that enqueues no device work at all (a result kept "
    "from an earlier call), unless `gpubench_work.flags` has `GPUBENCH_WORK_RUN_NO_DEVICE_WORK`; "
    "so does traced work longer than the timed span (beyond 5% + 5 µs: two clocks). Untraced: "
    "where CUPTI does not load (a build without its headers, a machine without `libcupti.so.13`, "
    "another tool holding it, `--no-device-trace`) or a traced cycle would not fit, the "
    "busy-after check on the warm-up and every 4th sample is all there is: the runner waits for "
    "the whole device after the end event (`cudaDeviceSynchronize`, less what the same wait costs"
    " right after). If at every check (the least of them: another process's kernels delay some "
    "checks, not all) the device stayed busy longer than max(100 µs, 10% of the timed span), the "
    "work was not on the runner's stream. Shorter escapes pass unseen: `stream_audit.untraced` "
    "says why nothing traced",
    "`work outside the runner's stream in run(): kernel twice(float const*, float*, unsigned "
    "long) on the per-thread default stream of device 0, not joined back to the runner's stream: "
    "record an event after it and make the runner's stream wait for it before the call returns`; "
    "`run() enqueued no device work after warm-up…`; `stream_audit.traced` in the results; "
    "untraced: `work outside the runner's stream in run(): timed 16.6 us, the device stayed busy "
    "7.4 ms after it`",
    stream_escape};

StreamAuditor::StreamAuditor(PhaseTimer &timer, const MeasureOptions &options, bool run_makes_device_work)
    : timer_(timer), enabled_(options.audit_streams), run_makes_device_work_(run_makes_device_work),
      detach_(!options.counters) {
    if (!enabled_ || !timer.real_streams()) return;
    if (!options.trace_device) {
        untraced_ = "off (--no-device-trace)";
        return;
    }
    trace_ = device_trace(untraced_);
    if (trace_) untraced_ = trace_->watch(timer.cuda_streams());
    if (!untraced_.empty()) trace_ = nullptr;
    // Loading the tracer attached CUPTI: out again before the entry's first timed call.
    if (trace_) detach_tracer();
}

// CUPTI out of the process where it may go; where it stays, the entry records why (its check).
void StreamAuditor::detach_tracer() {
    if (detach_) trace_->detach();
    std::string why = detach_ ? trace_->stays_attached()
                              : "--counters: the GPU counters' profiler cannot start again in a "
                                "process that CUPTI has left";
    if (!why.empty()) stays_attached_ = std::move(why);
}

double StreamAuditor::timed(Instance &instance, const char *phase, gpubench_phase_fn fn, PhaseCheck check,
                            double *host_s) {
    const bool audit = check != PhaseCheck::none;
    const bool traced = check == PhaseCheck::trace && enabled_ && trace_ && fn;
    if (traced) trace_->begin();
    struct EndTrace {  // a call that throws leaves nothing traced behind
        DeviceTrace *trace;
        ~EndTrace() {
            if (trace) try {
                    trace->end();
                } catch (const std::exception &) {
                }
        }
    } end_trace{traced ? trace_ : nullptr};
    const double span = instance.timed(phase, fn, timer_, host_s);
    const auto checked = std::chrono::steady_clock::now();
    if (audit && enabled_ && span >= 0)
        if (const auto drain = timer_.device_drain_s()) {
            Checks &c = checks_[phase];
            c.spans.push_back(span);
            c.drains.push_back(*drain);
        }
    if (traced) {
        end_trace.trace = nullptr;
        judge(phase, trace_->end(), span, run_makes_device_work_ && std::string(phase) == "run");
    }
    if (check != PhaseCheck::trace)  // a traced cycle's cost is counted whole, by the sampler
        cost_s_ += seconds_since(checked);
    return span;
}

// The busy-after check: the phase whose drain most exceeds what its span allows.
void StreamAuditor::drain_verdict(StreamAudit &audit) const {
    double worst_excess = -1;
    for (const auto &[phase, c] : checks_) {
        audit.checks += c.spans.size();
        const double span = median_of(c.spans), drain = *std::min_element(c.drains.begin(), c.drains.end());
        const double allowed = std::max(stream_escape_floor_s, stream_escape_share * span);
        if (drain - allowed > worst_excess) {
            worst_excess = drain - allowed;
            audit.worst_phase = phase;
            audit.timed_s = span;
            audit.device_busy_after_s = drain;
            audit.outside_stream = drain > allowed;
        }
    }
    // Another process computing on this GPU keeps it busy after the phase too, at every
    // check when it is busy enough: no verdict then (the entry is flagged gpu_shared).
    if (audit.outside_stream)
        if (const auto memory = timer_.device_memory(); memory && memory->shared())
            audit.outside_stream = false;
}

StreamAudit StreamAuditor::verdict() const {
    StreamAudit audit;
    drain_verdict(audit);
    if (trace_) {
        audit.traced.by = trace_->name();
        audit.outside_stream = false;  // the trace's verdict replaces the busy-after guess
    } else {
        audit.untraced = untraced_;
    }
    audit.traced.stays_attached = stays_attached_;  // traced cycles dropped or not (stop_tracing)
    audit.traced.calls = traced_calls_;
    if (!run_extents_.empty()) audit.traced.run_device_work_s = median_of(run_extents_);
    if (!run_operations_.empty()) audit.traced.run_operations = median_of(run_operations_);
    audit.problem = problem_;
    audit.audit_wall_s = cost_s_;
    return audit;
}

void StreamAuditor::judge(const char *phase, const TracedCall &call, double span, bool expect) {
    ++traced_calls_;
    if (std::string(phase) == "run") {
        run_extents_.push_back(traced_extent_s(call));
        run_operations_.push_back(static_cast<double>(call.work.size()));
    }
    if (problem_.empty()) problem_ = traced_call_problem(phase, call, span, expect);
}

}  // namespace gpubench
