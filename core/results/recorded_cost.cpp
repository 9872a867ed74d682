#include "recorded_cost.hpp"

#include "statistics.hpp"

#include <algorithm>

namespace gpubench {

namespace {

double wall_s(const EntryResult &entry) {
    if (entry.sweep.entry_wall_s > 0) return entry.sweep.entry_wall_s;
    if (entry.run_s.empty()) return 0;
    return summarize(entry.run_s).median * double(entry.run_s.size()) + entry.first_run_s;
}

}  // namespace

std::vector<RecordedCost> recorded_costs(const ResultsDocument &document) {
    std::vector<RecordedCost> costs;
    for (const EntryResult &entry : document.entries) {
        RecordedCost cost{std::max(0.0, wall_s(entry)), std::nullopt};
        if (entry.sweep.worker_started && !entry.run_s.empty() && entry.sweep.entry_wall_s > 0) {
            const double first_use_s = std::max(0.0, entry.first_run_s - summarize(entry.run_s).median);
            const double start_s = std::min(cost.entry_s, entry.load_s + first_use_s);
            cost.start_s = start_s;
            cost.entry_s -= start_s;
        }
        costs.push_back(cost);
    }
    return costs;
}

}  // namespace gpubench
