#include "sweep_budget.hpp"

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

double SweepBudget::share_s(const MeasureOptions &options, bool as_run) const {
    // What the rest costs besides sampling, and how many share the sampling time (see the
    // header for the lanes' weight).
    double fixed_s = 0, shares = 0;
    for (const auto &[plugin, plan] : plugins_) {
        if (!plan.left) continue;
        const double weight = as_run && plan.in_lane ? 1.0 / double(lanes_) : 1.0;
        // An entry samples at least its warm-up and one sample, whatever its share.
        fixed_s += weight * (double(plan.left) * (plan.overhead_s + plan.least_sampling_s) +
                             (plan.started ? 0 : start_s(plan)));
        shares += weight * double(plan.left);
    }
    return shares > 0 ? (left_s() - fixed_s) / shares : options.max_time_s;
}

MeasureOptions SweepBudget::limit(MeasureOptions options, double &outside_limit_s) {
    std::lock_guard<std::mutex> lock(mutex_);
    const double share = share_s(options);
    outside_limit_s = behind() ? behind_outside_limit_s : 0;
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
    if (nominal.seconds <= behind_start_limit_s || !behind()) return "";
    return "over the sweep's budget, which is behind its schedule: starting the plugin is "
           "predicted to take " + format_text("%.3g s", nominal.seconds) + " (" + nominal.parts + ")";
}

void SweepBudget::finished(const SweepEntry &entry, const EntryResult &result) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = plugins_.find(entry.plugin);
    // Not one the budget was shared among: skipped at once, as outside the plugin's sizes.
    if (found == plugins_.end() || !entry.out_of_range.empty()) return;
    PluginPlan &plan = found->second;
    if (plan.left) --plan.left;
    const double outside_s = result.outside_sampling_s();  // with the worker's start, if started for it
    if (result.sweep.worker_started && !plan.started) {
        starts_by_kind_[plan.nominal.kind].push_back(std::max(0.0, outside_s - plan.overhead_s));
    } else if (result.sweep.entry_wall_s > 0 && result.status != EntryStatus::skipped) {
        plan.overhead_s = outside_s;
    }
    // Its warm-up runs and one sample at the median run(): a first run()'s compilation is
    // once per worker, not per entry.
    if (result.status == EntryStatus::ok && !result.run_s.empty())
        plan.least_sampling_s = double(result.settings.warmup_runs + 1) * summarize(result.run_s).median;
    plan.started = plan.started || result.sweep.worker_started || result.sweep.entry_wall_s > 0;
}

}  // namespace gpubench
