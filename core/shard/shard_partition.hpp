// Dividing a sweep's entries among shards so that they finish together: every shard computes
// the same partition from the same costs, on any machine.
#pragma once

#include "shard.hpp"

#include <cstdint>
#include <map>
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

// The shard of each entry, in input order. A shard's load is its entries' costs plus the
// start cost of each plugin it holds. First each plugin whole, longest first (ties by name),
// into the least-loaded of the shards holding the fewest plugins of its group (ties: the
// lowest index); then, with groups, while it lowers the largest load, a plugin of the most
// loaded shard trades places with a cheaper one of its group; then, while it lowers the
// largest load, an entry (or a plugin's every entry) moves from the most loaded shard to the
// least. Deterministic: the same entries in any order give each the same shard. No shard's
// load exceeds the least one's by more than the cost of any entry it holds plus that entry's
// plugin's start cost.
std::vector<uint32_t> partition_by_cost(const std::vector<CostedEntry> &entries, uint32_t count,
                                        const StartCosts &start_costs = {}, const CostGroups &groups = {});

// Each shard's load under `shard_of` (one shard per entry, each below `count`): its entries'
// costs plus the start of each plugin it holds.
std::vector<double> shard_loads(const std::vector<CostedEntry> &entries, const std::vector<uint32_t> &shard_of,
                                uint32_t count, const StartCosts &start_costs = {});

}  // namespace gpubench
