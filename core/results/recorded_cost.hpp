// What each entry of a recorded sweep cost it in wall time, split into what a worker pays once
// (its start) and the entry's own part: what the shards' plan takes from an earlier results
// file or a history (shard_costs.hpp, history_store.hpp) instead of predicting it.
#pragma once

#include "results_model.hpp"

#include <optional>
#include <vector>

namespace gpubench {

struct RecordedCost {
    double entry_s = 0;  // the entry's wall time less its worker's start: 0 when skipped
    // Where the entry's worker was started for it: the plugin's load (the interpreter and its
    // imports, prepare()) and its first run's excess over the median run (a first
    // compilation). The process and its CUDA context stay in entry_s: nothing records them apart.
    std::optional<double> start_s;
};

// One per entry of `document`, in its order. An entry's wall time is harness.entry_wall_s,
// else its samples' run time plus its first run (files before it), else 0 (skipped). Its
// worker was started for it where harness.worker_started says so (the schema asks for it
// wherever a file has a harness).
std::vector<RecordedCost> recorded_costs(const ResultsDocument &document);

}  // namespace gpubench
