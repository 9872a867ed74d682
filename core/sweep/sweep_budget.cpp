#include "sweep_budget.hpp"

#include <cstdio>

#include "statistics.hpp"

#include <algorithm>
#include <utility>

namespace gpubench {

SweepBudget::SweepBudget(double seconds, const SweepEntries &entries, Clock::time_point started,
                         const std::vector<double> &predicted_outside_s,
                         std::function<Clock::time_point()> now)
    : seconds_(seconds), started_(started), now_(std::move(now)) {
    for (size_t i = 0; i < entries.size(); ++i) {
        PluginPlan &plan = plugins_[entries[i].plugin];
        plan.nominal = nominal_start_cost(*entries[i].plugin);
        ++plan.left;
        if (i < predicted_outside_s.size() && predicted_outside_s[i] > 0)
            plan.predicted_outside_s[{entries[i].size, entries[i].params}] = predicted_outside_s[i];
    }
}

double SweepBudget::start_s(const PluginPlan &plan) const {
    const auto measured = starts_by_kind_.find(plan.nominal.kind);
    if (measured == starts_by_kind_.end()) return plan.nominal.seconds;
    std::vector<double> starts = measured->second;
    std::sort(starts.begin(), starts.end());
    return quantile(starts, 0.5);
}

double SweepBudget::share_s(const MeasureOptions &options) const {
    // What the rest costs besides sampling, and how many share the sampling time, every entry
    // counted whole (in a lane or not: see the header).
    double fixed_s = 0, shares = 0;
    for (const auto &[plugin, plan] : plugins_) {
        if (!plan.left) continue;
        const size_t predicted = std::min(plan.left, plan.predicted_outside_s.size());
        // An entry samples at least its warm-up and one sample, whatever its share.
        double outside_s = double(plan.left - predicted) * plan.overhead_s + double(plan.left) * plan.least_sampling_s;
        for (const auto &[entry, seconds] : plan.predicted_outside_s) outside_s += seconds;
        fixed_s += outside_s + (plan.started ? 0 : start_s(plan));
        shares += double(plan.left);
    }
    const double left_s = seconds_ - std::chrono::duration<double>(now_() - started_).count();
    return shares > 0 ? (left_s - fixed_s) / shares : options.max_time_s;
}

MeasureOptions SweepBudget::limit(MeasureOptions options, double &outside_limit_s) {
    std::lock_guard<std::mutex> lock(mutex_);
    const double share = share_s(options);
    outside_limit_s = share < min_share_s ? behind_outside_limit_s : 0;
    options.max_time_s = std::clamp(share, std::min(min_share_s, options.max_time_s), options.max_time_s);
    options.min_time_s = std::min(options.min_time_s, options.max_time_s / 2);
    return options;
}

std::string SweepBudget::start_refusal(const PluginInfo &plugin) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = plugins_.find(&plugin);
    if (found == plugins_.end() || found->second.started) return "";
    // Nominal, not learned: a kind's measured starts include its first entries' set-ups.
    const StartCost &nominal = found->second.nominal;
    if (nominal.seconds <= behind_start_limit_s || share_s(MeasureOptions{}) >= min_share_s) return "";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g s", nominal.seconds);
    return "over the sweep's budget, which is behind its schedule: starting the plugin is "
           "predicted to take " + std::string(seconds) + " (" + nominal.parts + ")";
}

void SweepBudget::finished(const SweepEntry &entry, const EntryResult &result) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = plugins_.find(entry.plugin);
    // Not one the budget was shared among: skipped at once, as outside the plugin's sizes.
    if (found == plugins_.end() || !entry.out_of_range.empty()) return;
    PluginPlan &plan = found->second;
    if (plan.left) --plan.left;
    plan.predicted_outside_s.erase({entry.size, entry.params});
    const double outside_s = result.outside_sampling_s();  // with the worker's start, if started for it
    if (result.worker_started && !plan.started) {
        starts_by_kind_[plan.nominal.kind].push_back(std::max(0.0, outside_s - plan.overhead_s));
    } else if (result.entry_wall_s > 0 && result.status != EntryStatus::skipped) {
        plan.overhead_s = outside_s;
    }
    if (result.status == EntryStatus::ok && !result.run_s.empty())
        plan.least_sampling_s = result.first_run_s + summarize(result.run_s).median;
    plan.started = plan.started || result.worker_started || result.entry_wall_s > 0;
}

}  // namespace gpubench
