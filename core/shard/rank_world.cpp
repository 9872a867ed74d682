#include "rank_world.hpp"

#include "fnv_hash.hpp"

namespace gpubench {

std::optional<RankWorld> launched_world(const EnvironmentLookup &environment, bool sharded) {
    std::optional<ShardSpec> rank;
    try {
        rank = launched_rank(environment, "ranks launched together", false);
    } catch (const std::invalid_argument &) {
        return std::nullopt;  // half a pair or not a number: not a world this run can join
    }
    if (!rank || rank->count < 2 || sharded) return std::nullopt;
    RankWorld world;
    world.rank = rank->index;
    world.ranks = rank->count;
    world.source = rank->source;
    return world;
}

std::filesystem::path rank_meeting_folder(const std::filesystem::path &base, const std::string &job_identity,
                                          uint32_t ranks) {
    return (base.empty() ? std::filesystem::path(".") : base) / ".gpubench-ranks" /
           fnv1a_64_hex(job_identity + "ranks=" + std::to_string(ranks) + "\n");
}

std::filesystem::path entry_rendezvous(const std::filesystem::path &meeting, const EntryIdentity &entry,
                                       unsigned occurrence) {
    return meeting / (entry.hash_hex() + "-" + std::to_string(occurrence));
}

}  // namespace gpubench
