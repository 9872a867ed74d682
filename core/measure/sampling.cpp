#include "sampling.hpp"

#include "elapsed.hpp"
#include "run_hold.hpp"
#include "statistics.hpp"
#include "text_format.hpp"
#include "stream_audit.hpp"
#include "thread_audit.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

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

// One entry's sampling: the warm-up, then cycles (upload, run, download) until the stop
// rule says enough, with a traced cycle now and then. Its times go into `result`.
class Sampler {
public:
    Sampler(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
            PhaseTimer &timer, Measurement &result, LeakWatch &leaks, size_t &runs_done)
        : instance_(instance), api_(api), options_(options), timer_(timer), result_(result), timing_(result.timing),
          leaks_(leaks), runs_done_(runs_done),
          auditor_(timer, options, !(result.work.flags & GPUBENCH_WORK_RUN_NO_DEVICE_WORK)),
          lockstep_(measured_across_ranks(result.work, options)),
          holder_(timer, options.hold_stream && timer.cuda_stream() && !lockstep_),
          threads_(options.audit_threads && !timer.on_device()) {}

    void warm_up() {
        struct WarmUpRanges {  // named as the warm-up's while it lasts, even if it throws
            Instance &instance;
            ~WarmUpRanges() { instance.set_warm_up(false); }
        } ranges{instance_};
        instance_.set_warm_up(true);
        for (int i = 0; i < options_.warmup_runs; ++i) {
            auditor_.timed(instance_, "upload", api_.upload, PhaseCheck::drain);
            instance_.call("reset", api_.reset);
            flush();
            double run = 0;
            // Not traced: the first calls load modules and compile, which CUPTI slows by seconds.
            timed_run(PhaseCheck::drain, run);
            if (i == 0) timing_.first_run = run;
            last_download_s_ = std::max(auditor_.timed(instance_, "download", api_.download, PhaseCheck::drain), 0.0);
        }
        // A plugin that escapes its stream is caught before its samples are taken.
        result_.stream_audit = auditor_.verdict();
        refuse_if_found(stream_audit_check, result_);
    }

    void take_samples(ResourceWatch &watch) {
        // Sampling goes on for the GPU's energy window, but for a fixed count of runs.
        watch.begin_sampling(!lockstep_ && !options_.profile_runs);
        struct EndSampling {  // on every way out of the loop below
            ResourceWatch &watch;
            const double &timed;
            const size_t &runs_done, runs_before;
            ~EndSampling() { watch.end_sampling(timed, runs_done - runs_before); }
        } end_sampling{watch, timed_, runs_done_, runs_done_};
        const StopRule rule{options_.min_samples, options_.max_samples, options_.min_time_s,
                            options_.max_noise, options_.max_time_s};
        for (size_t n = 0;; ++n) {
            if (traced_cycle(n) && checks_traced()) traced_check();
            const Cycle c = run_cycle(n % audit_every == 0 ? PhaseCheck::drain : PhaseCheck::none,
                                      threads_.enabled() && audited_call(n, runs_done_));
            if (lockstep_) {  // every rank stops after as many cycles (unheld: all kept)
                keep(c);
                if (n + 1 < options_.min_samples) continue;
                lockstep_stop();
                break;
            }
            if (!c.kept) {
                restart();
                continue;
            }
            // The energy window's cycles past --max-samples run uncounted: a file keeps at most that many.
            if (timing_.stop_reason.empty() || timing_.samples.run.size() < options_.max_samples) keep(c);
            else timed_ += c.run + std::max(c.up, 0.0) + std::max(c.down, 0.0);
            time_back_to_back_host(false);
            if (options_.profile_runs) {  // a profile run: the count alone decides
                if (timing_.samples.run.size() < options_.profile_runs) continue;
                timing_.noise.median_rel_stderr = median_relative_standard_error(timing_.samples.run);
                timing_.stop_reason = "a profile run (--profile): exactly " +
                                      std::to_string(options_.profile_runs) + " calls of run() (--runs)";
                break;
            }
            if (timing_.stop_reason.empty())
                timing_.stop_reason = rule.check(timing_.samples.run, measured_, sampling_s(),
                                                 timing_.noise.median_rel_stderr, timing_.noise.converged);
            if (timing_.stop_reason.empty() || sample_on_for_energy(watch.energy_windows())) continue;
            break;
        }
        if (energy_samples_ > 0) {
            timing_.stop_reason += format_text("; then %zu cycles more, for the GPU's energy window (%.2g s at "
                                               "least, ending at a change of NVML's counter; kept as samples up to "
                                               "max_samples)",
                                               energy_samples_, EntryResources::energy_window_min_s);
            record_noise();
        }
        // Sampling that ended before its first traced cycle gets one now.
        if (checks_traced() && !traced_any_) traced_check();
    }

    // run()'s host time as a program that keeps its data on the device pays it, and as
    // cupyx.profiler.benchmark times it: on an idle stream, not held, waited for, no transfer
    // before it (sampling.hpp's constants say the schedule). Spread over the sampling, a slow
    // spell of a shared host weighs in the median only as long as it lasts; their time does
    // not count against --max-time. `finishing`: the top-up after the samples.
    void time_back_to_back_host(bool finishing) {
        if (!timer_.cuda_stream() || lockstep_ || options_.profile_runs) return;
        const double budget_s =
            back_to_back_budget_s(sampling_s(), back_to_back_group * last_run_wall_s_, finishing);
        const auto timed_call = [&] { unsampled_call(&host_); };
        while (timing_.samples.run_host.size() < back_to_back_calls &&
               back_to_back_s_ + back_to_back_group * last_run_wall_s_ <= budget_s) {
            const auto began = clock::now();
            for (size_t call = 0; call < back_to_back_group; ++call) timed_call();
            timing_.samples.run_host.push_back(host_);
            back_to_back_s_ += seconds_since(began);
            if (!finishing) return;
        }
        if (finishing && timing_.samples.run_host.empty()) {
            timed_call();
            timing_.samples.run_host.push_back(host_);
        }
    }

    void finish() {
        timing_.stream_hold = holder_.verdict();
        if (lockstep_ && options_.hold_stream && timer_.cuda_stream())
            timing_.stream_hold = "not held: run() is a collective across ranks, whose span waits for the "
                                  "other ranks whatever this one's host does (and every rank must call it "
                                  "alike, whatever a hold's watchdog would decide)";
        result_.stream_audit = auditor_.verdict();
        result_.thread_audit = threads_.verdict();
        refuse_if_found(stream_audit_check, result_);
        refuse_if_found(thread_audit_check, result_);
        leaks_.read_now(runs_done_);
        if (std::string leak = leaks_.leak(); !leak.empty()) refuse(leak_check, std::move(leak));
    }

private:
    using clock = std::chrono::steady_clock;
    struct Cycle {
        double up = 0, run = 0, down = 0, wall_s = 0;
        bool kept = false;  // false: the samples so far are not timed as the next ones will be
    };

    // run() with the stream held where it can be (unheld: after warm calls); false when the
    // samples so far must go.
    // audit_threads: the thread audit reads the plugin's threads around this call.
    // transfers_s: the time of the transfers before it, which warm calls may take (unheld).
    bool timed_run(PhaseCheck check, double &span, bool audit_threads = false, double transfers_s = 0) {
        holder_.before_run();
        if (!holder_.held_now() && warm_the_host_path(transfers_s)) {
            instance_.call("reset", api_.reset);
            flush();
        }
        if (audit_threads) threads_.before_run();
        const auto began = clock::now();
        span = auditor_.timed(instance_, "run", api_.run, check, &host_);
        const double wall_s = seconds_since(began);
        if (audit_threads) threads_.after_run();
        const bool kept = holder_.after_run(host_);
        ran_for(wall_s);
        return kept;
    }
    // Seconds since the warm-up began, less the back-to-back calls': what --max-time and their
    // own share are measured against.
    double sampling_s() const {
        return seconds_since(began_) - back_to_back_s_;
    }
    void flush() {
        if (options_.cold && timer_.flush_cache()) timing_.cache = "cold";
    }
    // Whether the traced cycles are run: where a tracer is loaded; across ranks on every rank
    // with a device clock alike, traced or not (a rank whose tracer did not load runs them
    // untraced), as each must call run() as often as the others.
    // A profile run has none: its count of run() calls is exact.
    bool checks_traced() const {
        return !options_.profile_runs && (auditor_.traces() || (lockstep_ && timer_.real_streams()));
    }
    // The stop of sampling in lock-step across ranks: --min-samples cycles, the same on every
    // rank whatever their times (the noise is still recorded).
    void lockstep_stop() {
        record_noise();
        timing_.stop_reason = "a fixed count across " + std::to_string(options_.world.ranks) +
                              " ranks: " + std::to_string(options_.min_samples) +
                              " samples (--min-samples) on each, as every rank must call run() alike";
    }
    // The noise of all the samples, where no stop rule's check read it last.
    void record_noise() {
        timing_.noise.median_rel_stderr = median_relative_standard_error(timing_.samples.run);
        timing_.noise.converged = options_.max_noise <= 0 || timing_.noise.median_rel_stderr <= options_.max_noise;
    }
    // After the stop rule: cycles go on, kept as samples, until the GPU's energy window has lasted
    // EntryResources::energy_window_min_s and NVML's counter changed once more; --max-time ends
    // them all the same (sampling.hpp).
    bool sample_on_for_energy(EnergyWindows &energy) {
        if (!energy.extends() || sampling_s() >= options_.max_time_s) return false;
        const bool more = energy.gpu_window_s() < EntryResources::energy_window_min_s || !energy.close_at_change();
        energy_samples_ += more;
        return more;
    }
    void ran() {
        ++runs_done_;
        if (std::string leak = leaks_.after_run(runs_done_); !leak.empty()) refuse(leak_check, std::move(leak));
    }
    // A run() of the warm-up or a cycle, and its wall time (its call and its wait).
    void ran_for(double wall_s) {
        last_run_wall_s_ = wall_s;
        shortest_run_wall_s_ = std::min(shortest_run_wall_s_, wall_s);
        ran();
    }

    // An unheld span includes the host's path to the first launch, and after the cycle's
    // transfers that path is cold: the first calls refill the host's caches (sampling.hpp).
    // So, as cupyx.profiler.benchmark's calls follow the ones before them, the sampled call is
    // the last of back_to_back_group: untimed calls first, each waited for, as many as fit in
    // the time of the transfers that cooled the caches (judged by the shortest run() so far).
    // Returns whether it made any.
    bool warm_the_host_path(double transfers_s) {
        if (!timer_.cuda_stream() || lockstep_ || options_.profile_runs) return false;
        double host_s = 0;
        const size_t calls = warm_calls_fitting(transfers_s, shortest_run_wall_s_);
        for (size_t call = 0; call < calls; ++call) {
            unsampled_call(&host_s);
            ++timing_.warm_calls;
        }
        return calls > 0;
    }
    // reset() and run(), unheld, waited for and not a sample (a back-to-back or warm call);
    // run()'s host seconds into host_s.
    void unsampled_call(double *host_s) {
        instance_.call("reset", api_.reset);
        timed_ += auditor_.timed(instance_, "run", api_.run, PhaseCheck::none, host_s);
        ran();
    }

    Cycle run_cycle(PhaseCheck check, bool audit_threads = false) {
        const auto cycle_began = clock::now();
        const std::optional<MemoryReading> before_trace =
            check == PhaseCheck::trace ? std::optional(read_memory(timer_, runs_done_)) : std::nullopt;
        if (before_trace) auditor_.begin_traced_cycle();
        Cycle c;
        c.up = auditor_.timed(instance_, "upload", api_.upload, check);
        instance_.call("reset", api_.reset);
        flush();
        // A traced cycle's calls are few on purpose (the trace slows them).
        const double transfers_s = check == PhaseCheck::trace ? 0 : std::max(c.up, 0.0) + last_download_s_;
        c.kept = timed_run(check, c.run, audit_threads, transfers_s);
        c.down = auditor_.timed(instance_, "download", api_.download, check);
        last_download_s_ = std::max(c.down, 0.0);
        if (before_trace) auditor_.end_traced_cycle();
        // CUPTI's memory for the trace is not the plugin's.
        if (before_trace) leaks_.set_aside(*before_trace, read_memory(timer_, runs_done_));
        c.wall_s = seconds_since(cycle_began);
        return c;
    }

    void keep(const Cycle &c) {
        last_cycle_s_ = c.wall_s;
        if (c.up >= 0) timing_.samples.upload.push_back(c.up);
        timing_.samples.run.push_back(c.run);
        if (timer_.cuda_stream()) timing_.samples.run_host_in_cycle.push_back(host_);  // host clock: run_s
        if (c.down >= 0) timing_.samples.download.push_back(c.down);
        measured_ += c.run;
        timed_ += c.run + std::max(c.up, 0.0) + std::max(c.down, 0.0);
    }

    void restart() {
        Timing::Samples &s = timing_.samples;
        for (auto *series : {&s.upload, &s.run, &s.download, &s.run_host_in_cycle}) series->clear();
        measured_ = timed_ = 0;
        timing_.stop_reason.clear();  // the rule decides again on the samples to come
        energy_samples_ = 0;
    }

    // Its times are not kept; one that would outlast the sampling time is not run (sampling.hpp).
    void traced_check() {
        if (!lockstep_ && traced_cycle_slowdown * last_cycle_s_ > options_.max_time_s) {
            auditor_.stop_tracing("not traced: a traced cycle (about " +
                                  format_seconds(traced_cycle_slowdown * last_cycle_s_) +
                                  ") would outlast the entry's sampling time (" +
                                  format_seconds(options_.max_time_s) + ")");
            return;
        }
        traced_any_ = true;
        const Cycle c = run_cycle(PhaseCheck::trace);
        auditor_.add_cost(c.wall_s);
        if (!c.kept) restart();
    }

    Instance &instance_;
    const gpubench_plugin &api_;
    const MeasureOptions &options_;
    PhaseTimer &timer_;
    Measurement &result_;
    Timing &timing_;  // result_'s
    LeakWatch &leaks_;
    size_t &runs_done_;
    StreamAuditor auditor_;
    const bool lockstep_;  // measured across ranks: every rank calls run() alike
    RunHolder holder_;
    ThreadAuditor threads_;
    const clock::time_point began_ = clock::now();
    double measured_ = 0, timed_ = 0, host_ = 0, last_cycle_s_ = 0, back_to_back_s_ = 0,
           last_run_wall_s_ = 0,  // the last warm-up or sampled run(): its call and its wait
           last_download_s_ = 0, shortest_run_wall_s_ = std::numeric_limits<double>::infinity();
    bool traced_any_ = false;
    size_t energy_samples_ = 0;  // taken after the stop rule, for the GPU's energy window
};

}  // namespace

void sample(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
            PhaseTimer &timer, Measurement &result, const StageObserver &stage,
            ResourceWatch &watch, LeakWatch &leaks, size_t &runs_done) {
    Sampler sampler(instance, api, options, timer, result, leaks, runs_done);
    stage("warm-up");
    sampler.warm_up();
    stage("samples");
    sampler.take_samples(watch);
    sampler.time_back_to_back_host(true);
    sampler.finish();
}

}  // namespace gpubench
