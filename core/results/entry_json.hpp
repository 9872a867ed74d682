// An entry's one encoding: the results file's entry (docs/results-format.md), which is also
// what a worker sends the runner for each entry it measures (worker_main.hpp: its
// Measurement, without the runner's notes), and the one decoding every reader of a results
// file goes through. Reading it back gives the EntryResult that was written, so that the
// runner records exactly what the worker measured: the raw samples are in it, and the
// summaries, throughput, CPU use, energy and flags beside them are derived (entry_figures.hpp,
// on this host's cores) for outside tools and ignored when read.
// An entry without samples keeps its identity, status, work, harness and audit only.
#pragma once

#include "entry_parts_json.hpp"
#include "host_share.hpp"
#include "measure.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gpubench {

// A measurement alone: every key of its entry but the runner's notes. What a worker sends.
void to_json(nlohmann::json &json, const Measurement &measurement);
void from_json(const nlohmann::json &json, Measurement &measurement);

// A recorded entry: its measurement, and the runner's notes (SweepNotes) in the keys they
// belong beside: "harness" (worker_started, worker_entries_before, and entry_wall_s,
// finished_after_s, sampling_budget_s where known, with overhead_s beyond plugin_time_s),
// each of "devices" with its name, uuid and pci_bus_id where known, "host_share", "shard".
void to_json(nlohmann::json &json, const EntryResult &entry);
// Reads every shape of entry the schema accepts, from files of every earlier writer: a field
// a file lacks keeps the member's default (no noise criterion where "noise" is missing).
// Throws nlohmann::json::exception or std::invalid_argument on a malformed entry.
void from_json(const nlohmann::json &json, EntryResult &entry);

}  // namespace gpubench
