// A sweep that should end within a wall time (--budget; the default sweep's 150 s): before each
// entry, what is left is shared among the entries still to run, after what they are predicted
// to cost besides sampling (each plugin's start, each entry's set-up and verification), and the
// entry's sampling time is cut to its part. Predictions start nominal (entry_cost.hpp) and
// follow what the sweep measures: a plugin's own entries, and the starts of plugins of its kind.
// An entry that stops sampling early leaves its part to the rest. When even the least sampling
// cannot fit, entries whose set-up and checks are predicted to be long are skipped, with the
// prediction, until the sweep is back on schedule. Thread-safe: --devices' lanes share it.
//
// With --devices' lanes the shares are a one-GPU sweep's: what the lanes spent is their
// entries' wall times added up, so each samples what it would on one GPU and the time the
// lanes free is not spent on sampling. Whether the sweep is behind is judged on the wall clock,
// the lanes' entries counted at lane_slowdown/G. An entry skipped so is put back and taken up
// "late" once the others are under way (a CPU entry after the lanes): with the least sampling,
// where the slack holds its start or set-up, what is left of the wall time once the entries
// still to run are reserved as they will run. Late, it is off the one-GPU schedule.
#pragma once

#include "entry_cost.hpp"
#include "measure.hpp"
#include "sweep.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

class SweepBudget {
public:
    using Clock = std::chrono::steady_clock;
    // `entries`: those the sweep will measure (not those on every GPU: a one-GPU sweep has
    // none, and they take only what is left after the lanes, sweep.cpp);
    // `in_lanes`: which of them run in one of `lanes` lanes (empty: none); `now`: the clock (a
    // simulated one in the tests).
    SweepBudget(double seconds, const SweepEntries &entries, Clock::time_point started,
                const std::vector<bool> &in_lanes = {}, size_t lanes = 1,
                std::function<Clock::time_point()> now = Clock::now);
    // What is left of the budget now (negative past it).
    double left_s() const;
    // The lanes take their entries from now on: their work is added up from here.
    void lanes_begin();
    // `options` with its sampling time cut to an entry's part of what is left (never below
    // min_share_s, never above options.max_time_s); min_time_s at most half of it. Behind
    // schedule (the part would be below min_share_s), `outside_limit_s` is set to
    // behind_outside_limit_s: an entry whose set-up and checks, or warm-up and one sample, are
    // predicted to take longer is skipped (RunBudget); else 0. A `late` entry: min_share_s, and
    // the slack where longer than behind_outside_limit_s.
    MeasureOptions limit(MeasureOptions options, double &outside_limit_s, bool late = false);
    // What `entry` cost: its plugin's start, when its worker was started for it, and the rest.
    void finished(const SweepEntry &entry, const EntryResult &result);
    // Behind schedule, a plugin not started yet whose nominal start (interpreter, imports, JIT:
    // entry_cost.hpp) is over behind_start_limit_s is skipped (`late`: unless the slack left by
    // the others holds it): why, or "" to measure it.
    std::string start_refusal(const PluginInfo &plugin, bool late = false);

    static constexpr double min_share_s = 0.05;  // at least a few samples of a short run()
    static constexpr double behind_outside_limit_s = 1.0;
    static constexpr double behind_start_limit_s = 4.0;  // PyTorch's 6 s; not Numba's 3.5 s
    // A lane's entries take longer than alone (its share of the host's cores, the others'
    // starts beside it): 1.36-1.39x outside sampling on 4 and on 2 H200s.
    static constexpr double lane_slowdown = 1.4;
    // The default sweep's cap on a predicted run() is this much higher in a lane than alone, so
    // that the lanes keep the sizes one GPU keeps: a lane's run() took up to 1.48x its time
    // alone on 2 H200s, and a one-GPU sweep's own prediction moves by a quarter between runs.
    static constexpr double lane_run_limit_factor = 2.0;

private:
    struct PluginPlan {
        StartCost nominal;
        size_t left = 0;  // entries still to run
        bool in_lane = false;
        bool started = false;
        double own_start_s = 0;  // its worker's first start with its first entry's one-off set-up
        double overhead_s = 0.1;  // setup, verification...: nominal until one is measured
        // Its last entry's warm-up and one sample: what sampling takes at least, with any share
        // (a run() of seconds: a launch-bound Python backend).
        double least_sampling_s = 0;
    };
    double start_s(const PluginPlan &plan) const;
    // What the entries still to run cost besides sampling, and how many share the sampling
    // time: every entry counted whole; or, `as_run`, the lanes' entries at lane_slowdown/lanes.
    struct Rest {
        double fixed_s = 0, shares = 0;
    };
    Rest rest(bool as_run, const PluginPlan *besides = nullptr) const;
    // What is left of the one-GPU schedule: the wall clock, less the lanes' wall time since
    // they began and plus their work added up.
    double schedule_left_s() const;
    // The next entry's part of the sampling time on the one-GPU schedule; whether the wall
    // clock is behind (below min_share_s each, as they will run); and the wall time a late
    // entry may take.
    double share_s(const MeasureOptions &options) const;
    bool behind() const;
    double slack_s(const PluginPlan *besides = nullptr) const;
    std::mutex mutex_;
    double seconds_;
    size_t lanes_;
    Clock::time_point started_;
    std::optional<Clock::time_point> lanes_began_;
    double lanes_work_s_ = 0;  // the lanes' entries' wall times added (late ones aside)
    std::function<Clock::time_point()> now_;
    std::map<const PluginInfo *, PluginPlan> plugins_;
    std::map<std::string, std::vector<double>> starts_by_kind_;  // measured, by StartCost::kind
};

}  // namespace gpubench
