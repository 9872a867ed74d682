// What each entry of a sharded sweep is expected to cost, for partition_by_cost: an earlier
// sweep's wall times (--shard-costs: a results file or a history), else the plugins' declared
// work (asked of each plugin in a helper process: the runner never loads plugins into its own
// process) turned into nominal seconds. Every shard must compute the same costs on any
// machine: nothing here reads the host, and the nominal rates are fixed.
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
#include <string>
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
// known). A plugin's start is its nominal_start_cost and its group its workload: predictions
// miss what a workload's backends share (inputs, references, checks) alike.
EntryCosts costs_from_work(const SweepEntries &entries, const std::vector<WorkAnswer> &answers,
                           const MeasureOptions &options);

// costs_from_work of each entry's work, asked of its plugin in a helper process
// (query_declared_work, each within `timeout_s`); `notes` names each plugin whose work cannot
// be read, and why. Never throws for a plugin's failure.
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

// Costs from `recorded`, described as `source` ("from earlier results: FILE"), matched by
// plugin, size and params (not seed). The entries it lacks are predicted by `predict` (once,
// with those entries: costs_from_declared_work), not given the recorded median, which would
// cost a missing 1e9 like a 1e3; a start it lacks is nominal_start_cost. Recorded costs are
// each entry's own, so the plan needs no groups.
EntryCosts costs_from_recorded(const SweepEntries &entries, const RecordedCosts &recorded, const std::string &source,
                               const std::function<EntryCosts(const SweepEntries &)> &predict);

}  // namespace gpubench
