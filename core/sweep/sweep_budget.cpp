#include "sweep_budget.hpp"

#include "entry_measurer.hpp"
#include "statistics.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <utility>

namespace gpubench {

SweepBudget::SweepBudget(double seconds, const SweepEntries &entries, Clock::time_point started,
                         const std::vector<bool> &in_lanes, size_t lanes, std::function<Clock::time_point()> now)
    : seconds_(seconds), lanes_(std::max<size_t>(1, lanes)), started_(started), now_(std::move(now)) {
    for (size_t i = 0; i < entries.size(); ++i) {
        PluginPlan &plan = plugins_[entries[i].plugin];
        plan.nominal = nominal_start_cost(*entries[i].plugin);
        plan.in_lane = i < in_lanes.size() && in_lanes[i];  // a plugin's entries run all in lanes or none
        ++plan.left;
    }
}

double SweepBudget::left_s() const { return seconds_ - std::chrono::duration<double>(now_() - started_).count(); }

double SweepBudget::start_s(const PluginPlan &plan) const {
    const auto measured = starts_by_kind_.find(plan.nominal.kind);
    if (measured == starts_by_kind_.end()) return plan.nominal.seconds;
    std::vector<double> starts = measured->second;
    std::sort(starts.begin(), starts.end());
    return quantile(starts, 0.5);
}

SweepBudget::Rest SweepBudget::rest(bool as_run, const PluginPlan *besides) const {
    Rest rest;
    for (const auto &[plugin, plan] : plugins_) {
        if (!plan.left || &plan == besides) continue;
        const double weight = as_run && plan.in_lane ? std::min(1.0, lane_slowdown / double(lanes_)) : 1.0;
        // An entry samples at least its warm-up and one sample, whatever its share.
        rest.fixed_s += weight * (double(plan.left) * (plan.overhead_s + plan.least_sampling_s) +
                                  (plan.started ? 0 : start_s(plan)));
        rest.shares += weight * double(plan.left);
    }
    return rest;
}

double SweepBudget::schedule_left_s() const {
    if (!lanes_began_) return left_s();
    return left_s() + std::chrono::duration<double>(now_() - *lanes_began_).count() - lanes_work_s_;
}

double SweepBudget::share_s(const MeasureOptions &options) const {
    const Rest whole = rest(false);
    return whole.shares > 0 ? (schedule_left_s() - whole.fixed_s) / whole.shares : options.max_time_s;
}

double SweepBudget::slack_s(const PluginPlan *besides) const {
    // Behind, the rest samples min_share_s each, as on one GPU.
    const Rest as_run = rest(true, besides);
    return left_s() - as_run.fixed_s - as_run.shares * min_share_s;
}

bool SweepBudget::behind() const {
    const Rest as_run = rest(true);
    return as_run.shares > 0 && (left_s() - as_run.fixed_s) / as_run.shares < min_share_s;
}

void SweepBudget::lanes_begin() {
    std::lock_guard<std::mutex> lock(mutex_);
    lanes_began_ = now_();
}

MeasureOptions SweepBudget::limit(MeasureOptions options, double &outside_limit_s, bool late) {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool behind_now = !late && behind();
    const double share = late || behind_now ? min_share_s : share_s(options);
    outside_limit_s = late ? std::max(behind_outside_limit_s, slack_s()) : behind_now ? behind_outside_limit_s : 0;
    options.max_time_s = std::clamp(share, std::min(min_share_s, options.max_time_s), options.max_time_s);
    options.min_time_s = std::min(options.min_time_s, options.max_time_s / 2);
    return options;
}

std::string SweepBudget::start_refusal(const PluginInfo &plugin, bool late) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = plugins_.find(&plugin);
    if (found == plugins_.end()) return "";
    const PluginPlan &plan = found->second;
    // A late entry's lane starts a worker for it, started before or not, which pays the
    // plugin's one-off set-up again (a JIT's compilations: 9 s for logreg_numba).
    if (late && std::max({plan.nominal.seconds, start_s(plan), plan.own_start_s}) <= slack_s(&plan)) return "";
    // Nominal, not learned: a kind's measured starts include its first entries' set-ups.
    if (!late && (plan.started || plan.nominal.seconds <= behind_start_limit_s || !behind())) return "";
    return std::string(behind_schedule_text) + ": starting the plugin is predicted to take " +
           format_text("%.3g s", plan.nominal.seconds) + " (" + plan.nominal.parts + ")";
}

void SweepBudget::finished(const SweepEntry &entry, const EntryResult &result) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = plugins_.find(entry.plugin);
    // Not one the budget was shared among: skipped at once, as outside the plugin's sizes.
    if (found == plugins_.end() || !entry.out_of_range.empty()) return;
    PluginPlan &plan = found->second;
    // A late entry was counted off when it was put back, and is not on the schedule.
    if (!entry.late && plan.left) --plan.left;
    if (lanes_began_ && plan.in_lane && !entry.late) lanes_work_s_ += result.sweep.entry_wall_s;
    const double outside_s = result.outside_sampling_s();  // with the worker's start, if started for it
    if (result.sweep.worker_started && !plan.started) {
        plan.own_start_s = std::max(0.0, outside_s - plan.overhead_s);
        starts_by_kind_[plan.nominal.kind].push_back(plan.own_start_s);
    } else if (result.sweep.entry_wall_s > 0 && result.status != EntryStatus::skipped) {
        plan.overhead_s = outside_s;
    }
    // Its warm-up runs and one sample at the median run(): a first run()'s compilation is
    // once per worker, not per entry.
    if (result.status == EntryStatus::ok && !result.timing.samples.run.empty())
        plan.least_sampling_s = double(result.timing.warmup_runs + 1) * summarize(result.timing.samples.run).median;
    plan.started = plan.started || result.sweep.worker_started || result.sweep.entry_wall_s > 0;
}

}  // namespace gpubench
