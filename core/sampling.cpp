#include "sampling.hpp"

#include "run_hold.hpp"
#include "statistics.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

namespace gpubench {

std::string StopRule::check(const std::vector<double> &samples, double measured_s,
                            double elapsed_s, double &noise, bool &converged) const {
    const size_t n = samples.size();
    const bool enough = n >= min_samples && measured_s >= min_time_s;
    const bool at_limit = n >= max_samples || elapsed_s >= max_time_s;
    if (!enough && !at_limit) return "";
    noise = median_relative_standard_error(samples);
    converged = max_noise <= 0 || noise <= max_noise;  // with the criterion off, nothing asked
    if (enough && converged)
        return max_noise > 0 ? "noise below max_noise" : "min_samples and min_time reached";
    if (n >= max_samples) return "max_samples reached";
    if (elapsed_s >= max_time_s) return "max_time reached";
    return "";
}

namespace {

double median_of(std::vector<double> values) { return summarize(std::move(values)).median; }

// Span and drain of each audited phase call.
class StreamAuditor {
public:
    StreamAuditor(PhaseTimer &timer, bool enabled) : timer_(timer), enabled_(enabled) {}
    // Times `phase` like Instance::timed and, when `audit`, checks the device afterwards.
    double timed(Instance &instance, const char *phase, gpubench_phase_fn fn, bool audit,
                 double *host_s = nullptr) {
        const double span = instance.timed(phase, fn, timer_, host_s);
        if (audit && enabled_ && span >= 0)
            if (const auto drain = timer_.device_drain_s()) {
                Checks &c = checks_[phase];
                c.spans.push_back(span);
                c.drains.push_back(*drain);
            }
        return span;
    }
    StreamAudit verdict() const {
        StreamAudit audit;
        double worst_excess = -1;
        for (const auto &[phase, c] : checks_) {
            audit.audits += c.spans.size();
            // The least of the drains: work a plugin leaves off the stream shows at every
            // check, while another process taking its GPU time slice delays only some.
            const double span = median_of(c.spans),
                         drain = *std::min_element(c.drains.begin(), c.drains.end());
            const double allowed = std::max(stream_escape_floor_s, stream_escape_share * span);
            if (drain - allowed > worst_excess) {
                worst_excess = drain - allowed;
                audit.worst_phase = phase;
                audit.timed_s = span;
                audit.drain_s = drain;
                audit.escaped = drain > allowed;
            }
        }
        // Another process computing on this GPU keeps it busy after the phase too, at every
        // check when it is busy enough: no verdict then (the entry is flagged gpu_shared).
        if (audit.escaped)
            if (const auto memory = timer_.device_memory(); memory && memory->shared())
                audit.escaped = false;
        return audit;
    }

private:
    struct Checks {
        std::vector<double> spans, drains;
    };
    PhaseTimer &timer_;
    bool enabled_;
    std::map<std::string, Checks> checks_;
};

void throw_if_escaped(const StreamAudit &audit) {
    if (!audit.escaped) return;
    throw EntryProblem{EntryStatus::verification_failed,
                       "work outside the runner's stream in " + audit.worst_phase + "(): timed " +
                           format_seconds(audit.timed_s) + ", the device stayed busy " +
                           format_seconds(audit.drain_s) + " after it (at every check)"};
}

}  // namespace

void sample(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
            PhaseTimer &timer, EntryResult &result, const StageObserver &stage,
            ResourceWatch &watch, LeakWatch &leaks, size_t &runs_done) {
    using clock = std::chrono::steady_clock;
    const auto began = clock::now();
    double measured = 0, timed = 0;
    StreamAuditor auditor(timer, options.audit_streams);
    RunHolder holder(timer, options.hold_stream && timer.cuda_stream());
    // run() with the stream held where it can be; false when the samples so far must go.
    double host = 0;
    const auto timed_run = [&](bool audit, double &span) {
        holder.before_run();
        span = auditor.timed(instance, "run", api.run, audit, &host);
        return holder.after_run(host);
    };
    const auto flush = [&] {
        if (options.cold && timer.flush_cache()) result.cache = "cold";
    };
    const auto ran = [&] {
        ++runs_done;
        if (std::string leak = leaks.after_run(runs_done); !leak.empty())
            throw EntryProblem{EntryStatus::error, leak};
    };
    stage("warm-up");
    for (int i = 0; i < options.warmup_runs; ++i) {
        auditor.timed(instance, "upload", api.upload, true);
        instance.call("reset", api.reset);
        flush();
        double run = 0;
        timed_run(true, run);
        if (i == 0) result.first_run_s = run;
        ran();
        auditor.timed(instance, "download", api.download, true);
    }
    // A plugin that escapes its stream is caught before its samples are taken.
    throw_if_escaped(result.stream_audit = auditor.verdict());
    stage("samples");
    watch.begin_sampling();
    struct EndSampling {  // on every way out of the loop below
        ResourceWatch &watch;
        const double &timed;
        ~EndSampling() { watch.end_sampling(timed); }
    } end_sampling{watch, timed};
    const StopRule rule{options.min_samples, options.max_samples, options.min_time_s,
                        options.max_noise, options.max_time_s};
    for (size_t n = 0;; ++n) {
        const bool audit = n % audit_every == 0;
        const double up = auditor.timed(instance, "upload", api.upload, audit);
        instance.call("reset", api.reset);
        flush();
        double run = 0;
        const bool kept = timed_run(audit, run);
        ran();
        const double down = auditor.timed(instance, "download", api.download, audit);
        if (!kept) {  // the samples so far are not timed as the next ones will be: start again
            for (auto *series : {&result.upload_s, &result.run_s, &result.download_s, &result.run_host_s})
                series->clear();
            measured = timed = 0;
            continue;
        }
        if (up >= 0) result.upload_s.push_back(up);
        result.run_s.push_back(run);
        if (timer.cuda_stream()) result.run_host_s.push_back(host);  // a host clock's: run_s
        if (down >= 0) result.download_s.push_back(down);
        measured += run;
        timed += run + std::max(up, 0.0) + std::max(down, 0.0);
        const double elapsed = std::chrono::duration<double>(clock::now() - began).count();
        result.stop_reason =
            rule.check(result.run_s, measured, elapsed, result.noise, result.noise_converged);
        if (!result.stop_reason.empty()) break;
    }
    result.noise_required = options.max_noise > 0;
    result.stream_hold = holder.verdict();
    throw_if_escaped(result.stream_audit = auditor.verdict());
    leaks.read_now(runs_done);
    if (std::string leak = leaks.leak(); !leak.empty()) throw EntryProblem{EntryStatus::error, leak};
}

}  // namespace gpubench
