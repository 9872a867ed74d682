// Reading the history back as what entries cost: each entry's most recent wall time, for the
// shards' plan (runner --shard-costs HISTORY).
#include "history_database.hpp"
#include "history_store.hpp"

#include <map>

namespace gpubench {

namespace {

// Oldest run first, each run's points in the order its file held them: a later run's row
// replaces an earlier run's of the same entry or plugin.
constexpr const char *wall_times_query = R"sql(
SELECT p.plugin, p.size, p.params, p.wall_s, p.start_s, r.id
FROM points p JOIN runs r ON r.id = p.run_id
WHERE p.wall_s IS NOT NULL
ORDER BY r.created, r.id, p.rowid
)sql";

}  // namespace

HistoryWallTimes history_wall_times(const std::filesystem::path &database) {
    HistoryDatabase db(database, HistoryDatabase::Access::read);
    HistoryWallTimes times;
    if (!db.has_column("points", "wall_s")) return times;  // no point stored one
    std::map<EntryIdentity, size_t> at;
    std::map<std::string, int64_t> start_run;  // the run each plugin's start is from
    HistoryStatement rows(db, wall_times_query);
    while (rows.step()) {
        HistoryWallTime time{{rows.text(0), static_cast<uint64_t>(rows.integer(1)), rows.text(2)}, rows.real(3)};
        const auto [found, fresh] = at.emplace(time.entry, times.entries.size());
        if (fresh)
            times.entries.push_back(time);
        else
            times.entries[found->second] = time;
        // A run's first start of the plugin is its worker's start for the sweep (as from a
        // results file); a later one in the same run (a worker started again) is not.
        const int64_t run = rows.integer(5);
        if (rows.is_null(4)) continue;
        const auto known = start_run.find(time.entry.plugin);
        if (known == start_run.end() || known->second != run) {  // rows come run by run
            times.starts[time.entry.plugin] = rows.real(4);
            start_run[time.entry.plugin] = run;
        }
    }
    return times;
}

}  // namespace gpubench
