// What each entry of a sharded sweep is expected to cost, for partition_by_cost: an earlier
// sweep's wall times (--shard-costs), else the plugins' declared work (asked of each plugin in
// a helper process: the runner never loads plugins into its own process) turned into nominal
// seconds. Every shard must compute the same costs on any machine: nothing here reads the
// host, and the nominal rates are fixed.
#pragma once

#include "entry_cost.hpp"
#include "measure.hpp"
#include "shard_partition.hpp"
#include "plugin_info.hpp"
#include "results_model.hpp"
#include "shard.hpp"
#include "sweep.hpp"
#include "work_query.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct EntryCosts {
    std::vector<double> costs;  // one per entry, in order
    std::string source;         // how they were estimated, for the results file
    std::vector<std::string> notes;  // what could not be estimated, and why: one line each
    StartCosts start_costs;     // each plugin's start, paid once by a shard that holds it
};

// From an earlier sweep's results (--shard-costs), matched by plugin, size and params: the
// entry's recorded wall time (harness.entry_wall_s), else its samples' run time plus its first
// run; an entry recorded without either (skipped) costs 0. Entries the earlier file lacks cost
// the median of those it holds (1 when it holds none of them). A plugin's start is the load
// time recorded with its first entry that has one, taken out of that entry's cost.
EntryCosts costs_from_results(const std::vector<EntryKey> &entries, const ResultsDocument &earlier,
                              const std::string &file_name);

// Each entry's nominal_entry_s, its work asked of its plugin with the entry's params in a
// helper process (query_declared_work, each within `timeout_s`). A size outside the plugin's range costs the
// fixed part alone (it is skipped at once). An entry whose work cannot be read costs the
// median of the others (1 when none can be); `notes` names each plugin concerned, and why.
// Each plugin's start is its nominal_start_cost.
// Never throws for a plugin's failure.
EntryCosts costs_from_declared_work(const SweepEntries &entries,
                                    const MeasureOptions &options, const std::filesystem::path &runner,
                                    double timeout_s);

}  // namespace gpubench
