#include "recorded_cost.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace gpubench {

namespace {

double wall_s(const RecordedEntry &entry) {
    if (entry.entry_wall_s) return *entry.entry_wall_s;
    if (entry.timing) return entry.timing->run.median * double(entry.timing->run.count) + entry.timing->first_run;
    return 0;
}

}  // namespace

std::vector<RecordedCost> recorded_costs(const ResultsDocument &document) {
    std::vector<RecordedCost> costs;
    std::set<std::string> started;  // plugins whose first load was seen (files without worker_started)
    for (const RecordedEntry &entry : document.entries) {
        RecordedCost cost{std::max(0.0, wall_s(entry)), std::nullopt};
        const double load = entry.timing ? entry.timing->load : 0;
        const bool worker_started = entry.worker_started
                                        ? *entry.worker_started
                                        : load > 0 && entry.entry_wall_s && started.insert(entry.record.plugin).second;
        if (worker_started && entry.timing && entry.entry_wall_s) {
            const double first_use_s = std::max(0.0, entry.timing->first_run - entry.timing->run.median);
            const double start_s = std::min(cost.entry_s, load + first_use_s);
            cost.start_s = start_s;
            cost.entry_s -= start_s;
        }
        costs.push_back(cost);
    }
    return costs;
}

}  // namespace gpubench
