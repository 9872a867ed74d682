#include "shard_plan.hpp"

#include "json_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

namespace {

double usable(double cost) { return std::isfinite(cost) && cost > 0 ? cost : 0.0; }

// Shards' loads with what each holds of each plugin, for the passes below.
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
    uint32_t count() const { return uint32_t(load_.size()); }
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

using Plugins = std::map<std::string, std::vector<size_t>>;  // each plugin's entries, by key
using Totals = std::map<std::string, double>;                // each plugin's start and entries

const std::string *group_of(const CostGroups &groups, const std::string &plugin) {
    const auto found = groups.find(plugin);
    return found == groups.end() ? nullptr : &found->second;
}

// The first pass: each plugin whole, longest first, into the least-loaded of the shards that
// hold the fewest plugins of its group.
void place_whole_plugins(const Plugins &plugins, const Totals &totals, const CostGroups &groups, Loads &loads,
                         std::vector<uint32_t> &shard_of) {
    std::vector<std::pair<double, const std::string *>> whole;
    for (const auto &[plugin, total] : totals) whole.push_back({total, &plugin});
    std::stable_sort(whole.begin(), whole.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : *a.second < *b.second;
    });
    const uint32_t count = loads.count();
    std::vector<std::map<std::string, size_t>> held_of_group(count);
    for (const auto &[total, plugin] : whole) {
        const std::string *group = group_of(groups, *plugin);
        size_t fewest = SIZE_MAX;
        for (uint32_t shard = 0; shard < count; ++shard)
            fewest = std::min(fewest, group ? held_of_group[shard][*group] : 0);
        std::optional<uint32_t> chosen;
        for (uint32_t shard = 0; shard < count; ++shard)
            if ((!group || held_of_group[shard][*group] == fewest) &&
                (!chosen || loads.load(shard) < loads.load(*chosen)))
                chosen = shard;
        if (group) ++held_of_group[*chosen][*group];
        for (size_t i : plugins.at(*plugin)) shard_of[i] = *chosen, loads.add(i, *chosen);
    }
}

// Trades of two whole plugins of one group, the costlier leaving the most loaded shard, while
// one lowers the larger of the two loads: the spread of each group stays as it was.
void trade_within_groups(const Plugins &plugins, const Totals &totals, const CostGroups &groups, Loads &loads,
                         std::vector<uint32_t> &shard_of) {
    const size_t most_rounds = 4 * plugins.size() + 16;
    for (size_t round = 0; loads.count() > 1 && round < most_rounds; ++round) {
        const uint32_t from = loads.most_loaded();
        double best_max = loads.load(from) - 1e-9 * std::max(1.0, loads.load(from));
        const std::string *best_out = nullptr, *best_in = nullptr;
        for (const auto &[out, out_members] : plugins) {
            const std::string *group = group_of(groups, out);
            if (!group || shard_of[out_members.front()] != from) continue;
            for (const auto &[in, in_members] : plugins) {
                const uint32_t to = shard_of[in_members.front()];
                const std::string *in_group = group_of(groups, in);
                if (to == from || !in_group || *in_group != *group) continue;
                const double moved = totals.at(out) - totals.at(in);
                if (moved <= 0) continue;
                const double larger = std::max(loads.load(from) - moved, loads.load(to) + moved);
                if (larger < best_max) best_max = larger, best_out = &out, best_in = &in;
            }
        }
        if (!best_out) return;
        const uint32_t to = shard_of[plugins.at(*best_in).front()];
        for (size_t i : plugins.at(*best_out)) loads.add(i, from, -1), loads.add(i, to), shard_of[i] = to;
        for (size_t i : plugins.at(*best_in)) loads.add(i, to, -1), loads.add(i, from), shard_of[i] = from;
    }
}

// The last pass: the move from the most to the least loaded shard that lowers the larger of
// their loads the most, until none does.
void move_to_least_loaded(size_t entries, const Plugins &plugins, Loads &loads, std::vector<uint32_t> &shard_of) {
    for (size_t round = 0; loads.count() > 1 && round < 4 * entries + 16; ++round) {
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
        if (!best) return;
        for (size_t i : *best) loads.add(i, from, -1), loads.add(i, to), shard_of[i] = to;
    }
}

GPUBENCH_JSON_FIELDS_AS(ShardRecord, put_record, get_record, index, count, source, costs, start_costs, planned,
                        predicted_s, actual_s)

}  // namespace

std::vector<uint32_t> partition_by_cost(const std::vector<CostedEntry> &entries, uint32_t count,
                                        const StartCosts &start_costs, const CostGroups &groups) {
    if (count == 0) throw std::invalid_argument("partition_by_cost: no shards");
    // Entries by key, and each plugin's entries: what the passes visit, in an order that does
    // not depend on the order the entries came in.
    std::vector<size_t> by_key(entries.size());
    std::iota(by_key.begin(), by_key.end(), 0);
    std::stable_sort(by_key.begin(), by_key.end(), [&](size_t a, size_t b) { return entries[a].key < entries[b].key; });
    Plugins plugins;
    for (size_t i : by_key) plugins[entries[i].key.plugin].push_back(i);
    Totals totals;
    for (const auto &[plugin, members] : plugins) {
        double &total = totals[plugin] = start_costs.count(plugin) ? usable(start_costs.at(plugin)) : 0.0;
        for (size_t i : members) total += usable(entries[i].cost);
    }
    Loads loads(entries, count, start_costs);
    std::vector<uint32_t> shard_of(entries.size(), 0);
    place_whole_plugins(plugins, totals, groups, loads, shard_of);
    if (!groups.empty()) trade_within_groups(plugins, totals, groups, loads, shard_of);
    move_to_least_loaded(entries.size(), plugins, loads, shard_of);
    return shard_of;
}

std::vector<double> shard_loads(const std::vector<CostedEntry> &entries, const std::vector<uint32_t> &shard_of,
                                uint32_t count, const StartCosts &start_costs) {
    if (shard_of.size() != entries.size()) throw std::logic_error("shard_loads: one shard per entry");
    Loads loads(entries, count, start_costs);
    for (size_t i = 0; i < entries.size(); ++i) loads.add(i, shard_of[i]);
    std::vector<double> each;
    for (uint32_t shard = 0; shard < count; ++shard) each.push_back(loads.load(shard));
    return each;
}

void to_json(json &j, const ShardRecord &record) { put_record(j, record); }
void from_json(const json &j, ShardRecord &record) { get_record(j, record); }

void to_json(json &j, const PlannedEntry &entry) {
    j = entry.key;
    j["shard"] = entry.shard;
    j["cost"] = entry.cost;
}

void from_json(const json &j, PlannedEntry &entry) {
    entry.key = j.get<EntryIdentity>();
    entry.shard = j.at("shard").get<uint32_t>();
    entry.cost = j.at("cost").get<double>();
}

std::vector<PlannedEntry> plan_shards(const std::vector<EntryIdentity> &entries,
                                      const std::vector<double> &costs, uint32_t count,
                                      const StartCosts &start_costs, const CostGroups &groups) {
    if (costs.size() != entries.size()) throw std::logic_error("plan_shards: one cost per entry");
    std::vector<CostedEntry> costed;
    for (size_t i = 0; i < entries.size(); ++i) costed.push_back({entries[i], costs[i]});
    const std::vector<uint32_t> shard_of = partition_by_cost(costed, count, start_costs, groups);
    std::vector<PlannedEntry> plan;
    for (size_t i = 0; i < entries.size(); ++i) plan.push_back({entries[i], shard_of[i], costs[i]});
    return plan;
}

double planned_shard_s(const std::vector<PlannedEntry> &planned, uint32_t index, uint32_t count,
                       const StartCosts &start_costs) {
    std::vector<CostedEntry> costed;
    std::vector<uint32_t> shard_of;
    for (const PlannedEntry &p : planned) costed.push_back({p.key, p.cost}), shard_of.push_back(p.shard);
    return shard_loads(costed, shard_of, count, start_costs).at(index);
}

std::optional<ShardRecord> shard_record(const json &document) {
    const auto found = document.find("shard");
    if (found == document.end()) return std::nullopt;
    return found->get<ShardRecord>();
}

std::optional<std::vector<EntryIdentity>> planned_entries(const json &document) {
    std::vector<EntryIdentity> keys;
    if (const auto shard = shard_record(document)) {
        for (const PlannedEntry &p : shard->planned)
            if (p.shard == shard->index) keys.push_back(p.key);
        return keys;
    }
    const auto merged = document.find("merged");
    if (merged == document.end()) return std::nullopt;
    for (const json &p : merged->at("planned")) keys.push_back(p.get<EntryIdentity>());
    return keys;
}

void no_longer_missing(json &document, const json &entry) {
    const auto merged = document.find("merged");
    if (merged == document.end()) return;
    json &missing = merged->at("missing");
    const EntryIdentity measured = entry.get<EntryIdentity>();
    const auto found =
        std::find_if(missing.begin(), missing.end(), [&](const json &m) { return m.get<EntryIdentity>() == measured; });
    if (found != missing.end()) missing.erase(found);
}

}  // namespace gpubench
