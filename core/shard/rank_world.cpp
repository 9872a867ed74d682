#include "rank_world.hpp"

#include "fnv_hash.hpp"

#include <algorithm>
#include <chrono>

namespace gpubench {

namespace fs = std::filesystem;

std::optional<RankWorld> launched_world(const EnvironmentLookup &environment, bool sharded) {
    std::optional<ShardSpec> rank;
    try {
        rank = launched_rank(environment, "ranks launched together", false);
    } catch (const std::invalid_argument &) {
        return std::nullopt;  // half a pair or not a number: not a world this run can join
    }
    if (!rank || rank->count < 2 || sharded) return std::nullopt;
    return RankWorld{rank->index, rank->count, rank->source};
}

fs::path rank_meeting_folder(const fs::path &base, const std::string &job_identity,
                                          uint32_t ranks) {
    return (base.empty() ? fs::path(".") : base) / ".gpubench-ranks" /
           fnv1a_64_hex(job_identity + "ranks=" + std::to_string(ranks) + "\n");
}

fs::path entry_rendezvous(const fs::path &meeting, const EntryIdentity &entry,
                                       unsigned occurrence) {
    return meeting / (entry.hash_hex() + "-" + std::to_string(occurrence));
}

namespace {

// The newest modification time of a folder and of the files in it.
fs::file_time_type last_touched(const fs::path &folder) {
    fs::file_time_type newest = fs::last_write_time(folder);
    for (const fs::directory_entry &entry : fs::directory_iterator(folder))
        newest = std::max(newest, entry.last_write_time());
    return newest;
}

}  // namespace

void remove_stale_siblings(const fs::path &folder) {
    const fs::file_time_type now = fs::file_time_type::clock::now();
    const std::chrono::hours stale(24);
    try {
        for (const fs::directory_entry &sibling : fs::directory_iterator(folder.parent_path())) {
            if (sibling.path() == folder) continue;
            try {
                if (sibling.is_directory() && now - last_touched(sibling.path()) > stale)
                    fs::remove_all(sibling.path());
            } catch (const fs::filesystem_error &) {
                // Removed by another rank meanwhile, or not ours to remove: left alone.
            }
        }
    } catch (const fs::filesystem_error &) {
        // Cleaning up is a courtesy: the ranks meet without it.
    }
}

}  // namespace gpubench
