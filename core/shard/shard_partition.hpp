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
    EntryKey key;
    double cost = 1;  // any unit, the same for all entries; not finite or negative: 0
};

// What a shard pays once for each plugin it measures any entry of (a worker's start: the
// process, a CUDA context, an interpreter, a first compilation), by plugin name; absent: 0.
using StartCosts = std::map<std::string, double>;

// The shard of each entry, in input order. A shard's load is its entries' costs plus the
// start cost of each plugin it holds. First each plugin whole, longest first (ties by name),
// into the least-loaded shard (ties: the lowest index); then, while it lowers the largest
// load, an entry (or a plugin's every entry) moves from the most loaded shard to the least.
// Deterministic: the same entries in any order give each the same shard. No shard's load
// exceeds the least one's by more than the cost of any entry it holds plus that entry's
// plugin's start cost.
std::vector<uint32_t> partition_by_cost(const std::vector<CostedEntry> &entries, uint32_t count,
                                        const StartCosts &start_costs = {});

}  // namespace gpubench
