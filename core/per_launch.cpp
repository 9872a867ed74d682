#include "per_launch.hpp"

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

double seconds_since(std::chrono::steady_clock::time_point began) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

// One way of timing `launches` back-to-back calls: a replayed graph, or a batch.
using Timing = std::function<double()>;

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

}  // namespace

void time_per_launch(Instance &instance, const gpubench_plugin &api,
                     const MeasureOptions &options, PhaseTimer &timer, EntryResult &result) {
    const double single = summarize(result.run_s).median;
    if (!timer.cuda_stream() || result.cache == "cold" || single <= 0 ||
        single >= per_launch_below_s)
        return;
    const bool repeatable = !api.reset || (result.work.flags & GPUBENCH_WORK_RUN_REPEATABLE);
    const size_t launches =
        std::clamp<size_t>(static_cast<size_t>(sample_target_s / single), 10, most_launches);
    const std::function<void()> run = [&] { instance.call("run", api.run); };
    const std::function<void()> reset = [&] { instance.call("reset", api.reset); };
    const std::function<void()> pair = [&] {
        reset();
        run();
    };

    // Prefer graphs: replays have no launch gaps at all.
    PerLaunch &out = result.per_launch;
    out.launches = launches;
    std::string why;
    std::unique_ptr<CapturedWork> work = capture(timer, launches, repeatable ? run : pair, why);
    std::unique_ptr<CapturedWork> resets;
    if (work && !repeatable) {
        resets = capture(timer, launches, reset, why);
        if (!resets) work.reset();
    }
    size_t replays = 1;
    Timing timed_work, timed_resets;
    // Graph replays never wait for their own work: held whenever holding is on. Batches call
    // run() itself: held where its single calls were.
    const bool hold_graphs = options.hold_stream;
    bool hold = options.hold_stream && result.stream_hold == "held", broken = false;
    if (work) {
        out.method = repeatable ? "graph" : "graph, reset subtracted";
        work->replay(1, hold_graphs);  // uploads the graph: the first replay is slower
        replays = std::clamp<size_t>(
            static_cast<size_t>(std::lround(sample_target_s / std::max(work->replay(1, hold_graphs), 1e-7))), 1,
            100);
        timed_work = [&] { return work->replay(replays, hold_graphs); };
        if (resets) timed_resets = [&] { return resets->replay(replays, hold_graphs); };
    } else {
        out.note = "no graph: " + why;
        out.method = repeatable ? "batch" : "batch, reset subtracted";
        // Held as single runs are (run_hold.hpp): the span then has no launch gaps either.
        // A batch too long for its hold (the launch queue fills, or a call waits for its own
        // work) is not held from then on, and the samples start again.
        const auto batch = [&](const std::function<void()> &body) {
            const bool held = hold && timer.hold_next(1.0).empty();
            timer.start();
            try {
                for (size_t i = 0; i < launches; ++i) body();
            } catch (...) {
                timer.release_hold();
                throw;
            }
            const double span = timer.stop();
            if (held && !timer.hold_lasted()) {
                hold = false;
                broken = true;
                out.note += "; batches not held: the hold was released by its watchdog after 1 s";
            }
            return span;
        };
        timed_work = [&, batch] { return batch(repeatable ? run : pair); };
        if (!repeatable) timed_resets = [&, batch] { return batch(reset); };
    }

    const StopRule rule{std::max<size_t>(options.min_samples, 10), options.max_samples, 0,
                        options.max_noise, std::min(options.max_time_s, 2.0)};
    const auto began = std::chrono::steady_clock::now();
    const double per_sample = static_cast<double>(launches * replays);
    double noise = 0;
    bool converged = false;
    for (;;) {
        // Resets first: the state left behind is that of a run(), which is then verified.
        const auto call_began = std::chrono::steady_clock::now();
        const double reset_s = timed_resets ? timed_resets() : 0;
        const double work_s = timed_work();
        instance.add_plugin_time(seconds_since(call_began));
        if (std::exchange(broken, false)) {
            out.run_s.clear();
            continue;
        }
        out.run_s.push_back((work_s - reset_s) / per_sample);
        if (!rule.check(out.run_s, 0, seconds_since(began), noise, converged).empty()) break;
    }
    if (summarize(out.run_s).median <= 0) {  // resets alone took as long: nothing to tell
        out.note = "the per-launch difference was not above zero; single launches kept";
        out.method.clear();
        out.run_s.clear();
    }
    instance.call("download", api.download);
}

}  // namespace gpubench
