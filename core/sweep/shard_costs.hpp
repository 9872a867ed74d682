// What each entry of a sharded sweep is expected to cost, for partition_by_cost: an earlier
// sweep's wall times (--shard-costs, or one found on the host its ranks share), else the
// plugins' declared work (asked of helper processes) at fixed nominal rates. Every shard must
// compute the same costs: nothing else here reads the host.
#pragma once

#include "entry_cost.hpp"
#include "measure.hpp"
#include "plugin_info.hpp"
#include "results_model.hpp"
#include "shard.hpp"
#include "shard_plan.hpp"
#include "sweep.hpp"
#include "work_query.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct EntryCosts {
    std::vector<double> costs;  // one per entry, in order
    std::string source;         // how they were estimated, for the results file
    std::vector<std::string> notes;  // what could not be estimated, and why: one line each
    StartCosts start_costs;     // each plugin's start, paid once by a shard that holds it
    CostGroups groups;          // predictions: each plugin's workload, whose backends they miss alike
};

// Each entry's nominal_entry_s from `answers` (one per entry); a size outside the plugin's range
// costs nominal_skipped_entry_s, an unknown work the median of the others (1 when none is
// known). A plugin's start is its nominal_start_cost and its group its workload.
EntryCosts costs_from_work(const SweepEntries &entries, const std::vector<WorkAnswer> &answers,
                           const MeasureOptions &options);

// costs_from_work of the work each plugin declares (ask_declared_work, each within
// `timeout_s`), with its notes. Never throws for a plugin's failure.
EntryCosts costs_from_declared_work(const SweepEntries &entries,
                                    const MeasureOptions &options, const std::filesystem::path &runner,
                                    double timeout_s);

// What an earlier sweep recorded (recorded_costs, results_model.hpp): each entry's own wall time by its
// identity in any run (any_seed: another seed costs the same), and each plugin's start.
struct RecordedCosts {
    std::map<EntryIdentity, double> entry_s;
    StartCosts start_s;
};

// A results file's: the first entry of each plugin, size and params, and the first start of
// each plugin.
RecordedCosts recorded_costs_of(const ResultsDocument &earlier);

// The newest earlier sweep in `folder` named as the runner names results by default
// (<host>-<UTC time>.json), recorded on `host`, not a shard's, that records every entry of
// `entries`: its file and costs; nullopt when none is (a file that cannot be read is passed over).
std::optional<std::pair<std::filesystem::path, RecordedCosts>>
recorded_on_host(const std::filesystem::path &folder, const std::string &host, const SweepEntries &entries);

// Costs from `recorded`, described as `source`, matched by plugin, size and params (not seed).
// The entries it lacks are predicted by `predict`, once (the recorded median would cost a
// missing 1e9 like a 1e3); a start it lacks is nominal_start_cost. No groups: each is its own.
EntryCosts costs_from_recorded(const SweepEntries &entries, const RecordedCosts &recorded, const std::string &source,
                               const std::function<EntryCosts(const SweepEntries &)> &predict);

}  // namespace gpubench
