#include "shard_plan.hpp"

#include "json_fields.hpp"

#include <stdexcept>

namespace gpubench {

using nlohmann::json;

namespace {
GPUBENCH_JSON_FIELDS_AS(ShardRecord, put_record, get_record, index, count, source, costs, start_costs, planned,
                        predicted_s, actual_s)
}  // namespace

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
    for (auto it = missing.begin(); it != missing.end(); ++it)
        if (it->get<EntryIdentity>() == measured) {
            missing.erase(it);
            return;
        }
}

}  // namespace gpubench
