#include "every_gpu_entries.hpp"

#include "entry_cost.hpp"
#include "text_format.hpp"
#include "work_query.hpp"

#include <map>
#include <set>

namespace gpubench {

double every_gpu_entry_limit_s(double budget_s) { return budget_s / 25; }

EveryGpuPlan plan_every_gpu_entries(const SweepEntries &entries, const MeasureOptions &options, int gpus,
                                    double budget_s, const std::filesystem::path &runner, double timeout_s) {
    EveryGpuPlan plan;
    if (budget_s <= 0 || entries.empty()) {
        plan.measured = entries;
        plan.predicted_s.assign(entries.size(), 0.0);
        return plan;
    }
    // One query per plugin and setting, its sizes in order.
    std::vector<WorkQuery> queries;
    std::map<std::pair<std::filesystem::path, std::string>, size_t> query_of;
    std::vector<std::pair<size_t, size_t>> answer_of;  // (query, position) per entry
    for (const SweepEntry &entry : entries) {
        const auto [found, fresh] = query_of.emplace(std::pair(entry.plugin->file, entry.params), queries.size());
        if (fresh) queries.push_back({entry.plugin->file, entry.params, gpus, {}});
        answer_of.emplace_back(found->second, queries[found->second].sizes.size());
        queries[found->second].sizes.push_back(entry.size);
    }
    const std::vector<std::vector<WorkAnswer>> answers = query_declared_work(queries, runner, timeout_s);
    const double limit_s = every_gpu_entry_limit_s(budget_s);
    std::set<const PluginInfo *> started;  // plugins with a measured entry before this one
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto &[query, position] = answer_of[i];
        const Work *work = std::get_if<Work>(&answers[query][position]);
        const double predicted_s = work ? nominal_entry_s(*work, GPUBENCH_DEVICE_CUDA, options) : 0.0;
        if (predicted_s <= limit_s) {
            const bool first = started.insert(entries[i].plugin).second;
            plan.measured.push_back(entries[i]);
            plan.predicted_s.push_back(work ? predicted_s + (first ? nominal_start_cost(*entries[i].plugin).seconds : 0)
                                            : 0.0);
            continue;
        }
        plan.skipped.emplace_back(
            entries[i],
            format_text("over the sweep's budget: it holds all %d GPUs, and is predicted to take %.3g s (set-up "
                        "and checks of %.3g GB on the host, and sampling, at nominal rates), above the %.3g s an "
                        "entry on every GPU may take (1/25 of the budget); --sizes %llu runs it",
                        gpus, predicted_s, work->host_bytes / 1e9, limit_s,
                        static_cast<unsigned long long>(entries[i].size)));
    }
    return plan;
}

}  // namespace gpubench
