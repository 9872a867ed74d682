#include "shard_partition.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <stdexcept>

namespace gpubench {

namespace {

double usable(double cost) { return std::isfinite(cost) && cost > 0 ? cost : 0.0; }

// Shards' loads with what each holds of each plugin, for the moves of the second pass.
class Loads {
public:
    Loads(const std::vector<CostedEntry> &entries, uint32_t count, const StartCosts &start_costs)
        : entries_(entries), start_costs_(start_costs), load_(count, 0.0), held_(count) {}
    void add(size_t entry, uint32_t shard, int sign = 1) {
        const std::string &plugin = entries_[entry].key.plugin;
        int &held = held_[shard][plugin];
        if ((sign > 0 && held == 0) || (sign < 0 && held == 1)) load_[shard] += sign * start(plugin);
        held += sign;
        load_[shard] += sign * usable(entries_[entry].cost);
    }
    double load(uint32_t shard) const { return load_[shard]; }
    // The loads of `from` and `to` if `moved` (entries of `from`) went to `to`.
    std::pair<double, double> after_moving(const std::vector<size_t> &moved, uint32_t from, uint32_t to) const {
        double from_load = load_[from], to_load = load_[to];
        std::map<std::string, int> leaving;
        for (size_t entry : moved) {
            const std::string &plugin = entries_[entry].key.plugin;
            from_load -= usable(entries_[entry].cost);
            to_load += usable(entries_[entry].cost);
            if (++leaving[plugin] == held(from, plugin)) from_load -= start(plugin);
            if (leaving[plugin] == 1 && held(to, plugin) == 0) to_load += start(plugin);
        }
        return {from_load, to_load};
    }
    uint32_t most_loaded() const { return uint32_t(std::max_element(load_.begin(), load_.end()) - load_.begin()); }
    uint32_t least_loaded() const { return uint32_t(std::min_element(load_.begin(), load_.end()) - load_.begin()); }

private:
    double start(const std::string &plugin) const {
        const auto found = start_costs_.find(plugin);
        return found == start_costs_.end() ? 0.0 : usable(found->second);
    }
    int held(uint32_t shard, const std::string &plugin) const {
        const auto found = held_[shard].find(plugin);
        return found == held_[shard].end() ? 0 : found->second;
    }
    const std::vector<CostedEntry> &entries_;
    const StartCosts &start_costs_;
    std::vector<double> load_;
    std::vector<std::map<std::string, int>> held_;
};

}  // namespace

std::vector<uint32_t> partition_by_cost(const std::vector<CostedEntry> &entries, uint32_t count,
                                        const StartCosts &start_costs) {
    if (count == 0) throw std::invalid_argument("partition_by_cost: no shards");
    // Entries by key, and each plugin's entries: what the passes visit, in an order that does
    // not depend on the order the entries came in.
    std::vector<size_t> by_key(entries.size());
    std::iota(by_key.begin(), by_key.end(), 0);
    std::stable_sort(by_key.begin(), by_key.end(), [&](size_t a, size_t b) { return entries[a].key < entries[b].key; });
    std::map<std::string, std::vector<size_t>> plugins;
    for (size_t i : by_key) plugins[entries[i].key.plugin].push_back(i);

    // First pass: longest processing time first, a plugin at a time.
    Loads loads(entries, count, start_costs);
    std::vector<std::pair<double, const std::string *>> whole;
    for (const auto &[plugin, members] : plugins) {
        double total = start_costs.count(plugin) ? usable(start_costs.at(plugin)) : 0.0;
        for (size_t i : members) total += usable(entries[i].cost);
        whole.push_back({total, &plugin});
    }
    std::stable_sort(whole.begin(), whole.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : *a.second < *b.second;
    });
    std::vector<uint32_t> shard_of(entries.size(), 0);
    for (const auto &[total, plugin] : whole) {
        const uint32_t shard = loads.least_loaded();
        for (size_t i : plugins[*plugin]) shard_of[i] = shard, loads.add(i, shard);
    }

    // Second pass: the move from the most to the least loaded shard that lowers the larger of
    // their loads the most, until none does.
    for (size_t round = 0; count > 1 && round < 4 * entries.size() + 16; ++round) {
        const uint32_t from = loads.most_loaded(), to = loads.least_loaded();
        std::vector<std::vector<size_t>> moves;
        for (const auto &[plugin, members] : plugins) {
            std::vector<size_t> held;
            for (size_t i : members)
                if (shard_of[i] == from) held.push_back(i), moves.push_back({i});
            if (held.size() > 1) moves.push_back(held);
        }
        const std::vector<size_t> *best = nullptr;
        double best_max = loads.load(from) - 1e-9 * std::max(1.0, loads.load(from));
        for (const std::vector<size_t> &move : moves) {
            const auto [from_load, to_load] = loads.after_moving(move, from, to);
            if (std::max(from_load, to_load) < best_max) best_max = std::max(from_load, to_load), best = &move;
        }
        if (!best) break;
        for (size_t i : *best) loads.add(i, from, -1), loads.add(i, to), shard_of[i] = to;
    }
    return shard_of;
}

}  // namespace gpubench
