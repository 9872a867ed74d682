#include "sweep_budget.hpp"

#include <cstdio>

#include "statistics.hpp"

#include <algorithm>

namespace gpubench {

SweepBudget::SweepBudget(double seconds, const SweepEntries &entries, const std::vector<bool> &in_lanes,
                         size_t lanes, Clock::time_point started, const std::vector<double> &predicted_outside_s)
    : seconds_(seconds), lanes_(std::max<size_t>(1, lanes)), started_(started) {
    for (size_t i = 0; i < entries.size(); ++i) {
        PluginPlan &plan = plugins_[entries[i].plugin];
        plan.nominal = nominal_start_cost(*entries[i].plugin);
        ++plan.left[in_lanes.at(i) ? 1 : 0];
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

double SweepBudget::share_s(const MeasureOptions &options, bool in_lane) const {
    // What the rest costs besides sampling, and how many share the sampling time. For an
    // entry in a lane, one in a lane takes 1/lanes of the wall time it runs for; for one that
    // runs alone, every entry counts whole, as in a one-GPU sweep.
    double fixed_s = 0, shares = 0;
    for (const auto &[plugin, plan] : plugins_) {
        for (int lane = 0; lane < 2; ++lane) {
            if (!plan.left[lane]) continue;
            const double weight = lane && in_lane ? 1.0 / double(lanes_) : 1.0;
            const size_t predicted = lane ? 0 : std::min(plan.left[0], plan.predicted_outside_s.size());
            double outside_s = double(plan.left[lane] - predicted) * plan.overhead_s;
            if (!lane)
                for (const auto &[entry, seconds] : plan.predicted_outside_s) outside_s += seconds;
            fixed_s += weight * (outside_s + (plan.started ? 0 : start_s(plan)));
            shares += weight * double(plan.left[lane]);
        }
    }
    const double left_s = seconds_ - std::chrono::duration<double>(Clock::now() - started_).count();
    return shares > 0 ? (left_s - fixed_s) / shares : options.max_time_s;
}

MeasureOptions SweepBudget::limit(MeasureOptions options, double &outside_limit_s, bool in_lane) {
    std::lock_guard<std::mutex> lock(mutex_);
    const double share = share_s(options, in_lane);
    outside_limit_s = share < min_share_s ? behind_outside_limit_s : 0;
    options.max_time_s = std::clamp(share, std::min(min_share_s, options.max_time_s), options.max_time_s);
    options.min_time_s = std::min(options.min_time_s, options.max_time_s / 2);
    return options;
}

std::string SweepBudget::start_refusal(const PluginInfo &plugin, bool in_lane) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = plugins_.find(&plugin);
    if (found == plugins_.end() || found->second.started) return "";
    // Nominal, not learned: a kind's measured starts include its first entries' set-ups.
    const StartCost &nominal = found->second.nominal;
    if (nominal.seconds <= behind_start_limit_s || share_s(MeasureOptions{}, in_lane) >= min_share_s) return "";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g s", nominal.seconds);
    return "over the sweep's budget, which is behind its schedule: starting the plugin is "
           "predicted to take " + std::string(seconds) + " (" + nominal.parts + ")";
}

void SweepBudget::finished(const SweepEntry &entry, bool in_lane, const EntryResult &result) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = plugins_.find(entry.plugin);
    // Not one the budget was shared among: skipped at once, as outside the plugin's sizes.
    if (found == plugins_.end() || !entry.out_of_range.empty()) return;
    PluginPlan &plan = found->second;
    size_t &left = plan.left[in_lane ? 1 : 0];
    if (left) --left;
    plan.predicted_outside_s.erase({entry.size, entry.params});
    const double outside_s = result.outside_sampling_s();  // with the worker's start, if started for it
    if (result.worker_started && !plan.started) {
        starts_by_kind_[plan.nominal.kind].push_back(std::max(0.0, outside_s - plan.overhead_s));
    } else if (result.entry_wall_s > 0 && result.status != EntryStatus::skipped) {
        plan.overhead_s = outside_s;
    }
    plan.started = plan.started || result.worker_started || result.entry_wall_s > 0;
}

}  // namespace gpubench
