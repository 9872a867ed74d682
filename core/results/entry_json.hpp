// An entry's one encoding: the results file's entry (docs/results-format.md), which is also
// what a worker sends the runner for each entry it measures (worker_protocol.hpp). Reading it
// back gives the EntryResult that was written, so that the runner records exactly what the
// worker measured: the raw samples are in it, and the summaries, throughput and energy beside
// them are derived (entry_figures.hpp) and ignored when read. An entry without samples keeps
// its identity, status, work, harness and audit only.
#pragma once

#include "entry_parts_json.hpp"
#include "host_share.hpp"
#include "measure.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gpubench {

void to_json(nlohmann::json &json, const EntryResult &entry);
// Throws nlohmann::json::exception or std::invalid_argument on a malformed entry.
void from_json(const nlohmann::json &json, EntryResult &entry);

// What a reader must know before trusting an entry's numbers, as short words: noisy,
// throttled, cold, contended, unoptimized, sanitized. Shared by the console, the results
// file ("flags") and the report.
std::vector<std::string> entry_flags(const EntryResult &entry);

}  // namespace gpubench
