// A sharded sweep's plan: its entries divided among shards so that they finish together (the
// same partition from the same costs, on any machine), and the plan as results files record it
// (docs/results-format.md, "Sharded sweeps"): every entry with its shard, in each shard's file
// and the merged one, so that what no shard delivered can be named.
#pragma once

#include "shard.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct CostedEntry {
    EntryIdentity key;
    double cost = 1;  // any unit, the same for all entries; not finite or negative: 0
};

// What a shard pays once for each plugin it measures any entry of (a worker's start: the
// process, a CUDA context, an interpreter, a first compilation), by plugin name; absent: 0.
using StartCosts = std::map<std::string, double>;

// Plugins whose real costs stray from their estimates alike (a workload's backends share its
// inputs, references and checks), by plugin name: the partition spreads each group's plugins
// over the shards, so that what the estimates miss is shared too. Absent: no group.
using CostGroups = std::map<std::string, std::string>;

// The shard of each entry, in input order, by the passes docs/scale-out.md describes; a shard's
// load is its entries' costs plus the start of each plugin it holds. Deterministic: the same
// entries in any order give each the same shard. No shard's load exceeds the least one's by
// more than the cost of an entry it holds plus that entry's plugin's start.
std::vector<uint32_t> partition_by_cost(const std::vector<CostedEntry> &entries, uint32_t count,
                                        const StartCosts &start_costs = {}, const CostGroups &groups = {});

// Each shard's load under `shard_of` (one shard per entry, each below `count`): its entries'
// costs plus the start of each plugin it holds.
std::vector<double> shard_loads(const std::vector<CostedEntry> &entries, const std::vector<uint32_t> &shard_of,
                                uint32_t count, const StartCosts &start_costs = {});

struct PlannedEntry {
    EntryIdentity key;
    uint32_t shard = 0;
    double cost = 0;  // the estimate the partition used
};
// As JSON, one flat object: {"plugin", "size", "params", "seed", "shard", "cost"}.
void to_json(nlohmann::json &json, const PlannedEntry &entry);
void from_json(const nlohmann::json &json, PlannedEntry &entry);

// The sweep's entries, each given a shard by partition_by_cost.
std::vector<PlannedEntry> plan_shards(const std::vector<EntryIdentity> &entries,
                                      const std::vector<double> &costs, uint32_t count,
                                      const StartCosts &start_costs = {}, const CostGroups &groups = {});

// What shard `index` of `planned` is predicted to take: its entries' costs plus the start of
// each plugin it holds (shard_loads).
double planned_shard_s(const std::vector<PlannedEntry> &planned, uint32_t index, uint32_t count,
                       const StartCosts &start_costs);

// A shard's file's "shard": which one it is, where that came from, how costs were estimated,
// the whole sweep's plan, and this shard's predicted and actual wall time.
struct ShardRecord {
    uint32_t index = 0, count = 1;
    std::string source;  // ShardSpec::source
    std::string costs;   // "declared work at nominal rates..." or "from earlier results: FILE"
    StartCosts start_costs;  // what a shard pays once per plugin it holds (partition_by_cost)
    std::vector<PlannedEntry> planned;
    std::optional<double> predicted_s;  // planned_shard_s of this shard
    // From the process's start to its last entry's end, summed over the processes that
    // measured it (--resume adds its own); written when its sweep ends or is interrupted.
    std::optional<double> actual_s;
};
// Fields absent from files written before them are read as none (start_costs empty,
// predicted_s and actual_s absent).
void to_json(nlohmann::json &json, const ShardRecord &record);
void from_json(const nlohmann::json &json, ShardRecord &record);

// The "shard" of a results document (checked against the schema), or nullopt.
std::optional<ShardRecord> shard_record(const nlohmann::json &document);

// The entries a results document was planned to hold, in sweep order: a shard's own, or a
// merged file's whole sweep; nullopt for a file that records no plan (a whole sweep).
std::optional<std::vector<EntryIdentity>> planned_entries(const nlohmann::json &document);

// A merged file lists the planned entries that no shard delivered ("merged"."missing"): once
// `entry` (a results entry) is measured, it is no longer missing.
void no_longer_missing(nlohmann::json &document, const nlohmann::json &entry);

}  // namespace gpubench
