#include "per_launch.hpp"

#include "elapsed.hpp"
#include "sampling.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <utility>

namespace gpubench {
namespace {

constexpr double sample_target_s = 1e-3;  // each per-launch sample lasts about this long
constexpr size_t most_launches = 1000;    // run() calls captured or batched per sample

// A graph of `launches` repetitions of `body`, replayed `replays` times per sample; nullptr
// (and why) when the capture fails, including a plugin call failing while captured.
std::unique_ptr<CapturedWork> capture(PhaseTimer &timer, size_t launches,
                                      const std::function<void()> &body, std::string &why) {
    try {
        return timer.capture([&] { for (size_t i = 0; i < launches; ++i) body(); }, why);
    } catch (const PluginFailure &failure) {
        why = "a call failed while captured (" + failure.message + ")";
    }
    return nullptr;
}

// Back-to-back run() calls of one entry, timed as replayed graphs where the timer can
// capture them, else as batches; non-repeatable runs with their resets timed apart.
class LaunchSampler {
public:
    LaunchSampler(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
                  PhaseTimer &timer, Measurement &result, size_t launches)
        : instance_(instance), api_(api), timer_(timer), out_(result.timing),
          launches_(launches), lockstep_(measured_across_ranks(result.work, options)),
          repeatable_(!api.reset || (result.work.flags & GPUBENCH_WORK_RUN_REPEATABLE)),
          hold_graphs_(options.hold_stream),
          hold_batches_(options.hold_stream && result.timing.stream_hold == "held") {
        out_.per_launch.launches_per_sample = launches;
    }

    // Prefer graphs: replays have no launch gaps at all.
    void choose_method() {
        std::string why = "run() is a collective across ranks: each rank calls it alike, in batches";
        if (!lockstep_) work_ = capture(timer_, launches_, repeatable_ ? run_ : pair_, why);
        if (work_ && !repeatable_) {
            resets_ = capture(timer_, launches_, reset_, why);
            if (!resets_) work_.reset();
        }
        if (work_) {
            out_.per_launch.method = repeatable_ ? "graph" : "graph, reset subtracted";
            work_->replay(1, hold_graphs_);  // uploads the graph: the first replay is slower
            const double one = std::max(work_->replay(1, hold_graphs_), 1e-7);
            replays_ = std::clamp<size_t>(static_cast<size_t>(std::lround(sample_target_s / one)),
                                          1, 100);
        } else {
            out_.per_launch_note = "no graph: " + why;
            out_.per_launch.method = repeatable_ ? "batch" : "batch, reset subtracted";
        }
    }

    void take_samples(const MeasureOptions &options) {
        const StopRule rule{std::max<size_t>(options.min_samples, 10), options.max_samples, 0,
                            options.max_noise, std::min(options.max_time_s, 2.0)};
        const auto began = std::chrono::steady_clock::now();
        const double per_sample = static_cast<double>(launches_ * replays_);
        double noise = 0;
        bool converged = false;
        for (;;) {
            // Resets first: the state left behind is that of a run(), which is then verified.
            const auto call_began = std::chrono::steady_clock::now();
            const double reset_s = repeatable_ ? 0 : timed(reset_, resets_.get());
            const double work_s = timed(repeatable_ ? run_ : pair_, work_.get());
            instance_.add_plugin_time(seconds_since(call_began));
            if (std::exchange(broken_, false)) {
                out_.per_launch.samples.clear();
                continue;
            }
            out_.per_launch.samples.push_back((work_s - reset_s) / per_sample);
            if (lockstep_ ? out_.per_launch.samples.size() >= options.min_samples
                          : !rule.check(out_.per_launch.samples, 0, seconds_since(began), noise, converged).empty())
                break;
        }
        if (summarize(out_.per_launch.samples).median <= 0) {  // resets alone took as long: nothing to tell
            out_.per_launch_note = "the per-launch difference was not above zero; single launches kept";
            out_.per_launch.method.clear();
            out_.per_launch.samples.clear();
        }
    }

private:
    // Graph replays never wait for their own work: held whenever holding is on.
    double timed(const std::function<void()> &body, CapturedWork *graph) {
        return graph ? graph->replay(replays_, hold_graphs_) : batch(body);
    }

    // Batches call run() itself: held as single runs are (run_hold.hpp), so the span has no
    // launch gaps either. A batch too long for its hold (the launch queue fills, or a call
    // waits for its own work) is not held from then on, and the samples start again.
    double batch(const std::function<void()> &body) {
        const bool held = hold_batches_ && timer_.hold_next(1.0).empty();
        timer_.start();
        try {
            for (size_t i = 0; i < launches_; ++i) body();
        } catch (...) {
            timer_.release_hold();
            throw;
        }
        const double span = timer_.stop();
        if (held && !timer_.hold_lasted()) {
            hold_batches_ = false;
            broken_ = true;
            out_.per_launch_note += "; batches not held: the hold was released by its watchdog after 1 s";
        }
        return span;
    }

    Instance &instance_;
    const gpubench_plugin &api_;
    PhaseTimer &timer_;
    Timing &out_;  // its per_launch and per_launch_note
    const size_t launches_;
    const bool lockstep_;  // measured across ranks: a fixed number of batches, never a graph
    const bool repeatable_, hold_graphs_;
    bool hold_batches_, broken_ = false;
    const std::function<void()> run_ = [this] { instance_.call("run", api_.run); };
    const std::function<void()> reset_ = [this] { instance_.call("reset", api_.reset); };
    const std::function<void()> pair_ = [this] {
        reset_();
        run_();
    };
    std::unique_ptr<CapturedWork> work_, resets_;
    size_t replays_ = 1;
};

}  // namespace

void time_per_launch(Instance &instance, const gpubench_plugin &api,
                     const MeasureOptions &options, PhaseTimer &timer, Measurement &result) {
    const double single = summarize(result.timing.samples.run).median;
    const bool lockstep = measured_across_ranks(result.work, options);
    if (!timer.cuda_stream() || result.timing.cache == "cold" || options.profile_runs ||
        (!lockstep && (single <= 0 || single >= per_launch_below_s)))
        return;
    const size_t launches =
        lockstep ? lockstep_launches
                 : std::clamp<size_t>(static_cast<size_t>(sample_target_s / single), 10, most_launches);
    LaunchSampler sampler(instance, api, options, timer, result, launches);
    sampler.choose_method();
    sampler.take_samples(options);
    // The result verify() reads, waited for as a sample's download is: verify() may read the
    // page-locked memory the copy writes, without waiting for the stream itself.
    instance.timed("download", api.download, timer);
}

}  // namespace gpubench
