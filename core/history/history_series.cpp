// Reading the history back: as series, one per entry (plugin, size, params, device) and
// machine (host, GPUs, build), oldest run first, each with its change points, then one per
// metric of those entries, where the runs stored their metrics; and as what entries cost, each
// entry's most recent wall time, for the shards' plan (runner --shard-costs HISTORY).
#include "entry_json.hpp"
#include "history_database.hpp"
#include "history_store.hpp"
#include "metric_format.hpp"
#include "shard_costs.hpp"
#include "text_format.hpp"

#include <map>
#include <tuple>
#include <utility>

namespace gpubench {

namespace {

// The metrics column is NULL in rows stored before it existed, and absent from databases
// written before it: read as NULL there.
std::string series_query(bool has_metrics) {
    return std::string(R"sql(
SELECT p.plugin, p.size, p.params, p.device, r.machine, r.gpus, r.build,
       r.id, r.commit_id, r.created, p.median, p.q1, p.q3, p.min, p.max, p.samples, p.flags, )sql") +
           (has_metrics ? "p.metrics" : "NULL") + R"sql(
FROM points p JOIN runs r ON r.id = p.run_id
ORDER BY p.plugin, p.size, p.params, p.device, r.machine, r.gpus, r.build, r.created, r.id
)sql";
}

HistorySeries series_of_row(const HistoryStatement &row) {
    return {.plugin = row.text(0), .params = row.text(2), .size = static_cast<uint64_t>(row.integer(1)),
            .machine = row.text(4), .gpus = row.text(5), .build = row.text(6),
            .device = static_cast<int>(row.integer(3))};
}

HistoryPoint point_of_row(const HistoryStatement &row) {
    return {.run_id = row.integer(7), .commit = row.text(8), .date = row.text(9), .median = row.real(10),
            .low = row.real(11), .high = row.real(12), .min = row.real(13), .max = row.real(14),
            .samples = static_cast<uint64_t>(row.integer(15)), .flags = row.text(16)};
}

// The row's metrics; none where the column is NULL. A value the database holds that is not
// a list of metrics is refused with the database's name.
std::vector<EntryMetric> metrics_of_row(const HistoryStatement &row, const std::filesystem::path &database) {
    if (row.is_null(17)) return {};
    try {
        return nlohmann::json::parse(row.text(17)).get<std::vector<EntryMetric>>();
    } catch (const std::exception &e) {
        throw std::runtime_error("history database " + database.string() + ": the metrics of " + row.text(0) +
                                 " " + row.text(1) + " are not a list of metrics (" + e.what() + ")");
    }
}

bool same_series(const HistorySeries &a, const HistorySeries &b) {
    return std::tie(a.plugin, a.size, a.params, a.device, a.machine, a.gpus, a.build) ==
           std::tie(b.plugin, b.size, b.params, b.device, b.machine, b.gpus, b.build);
}

// A metric's value as a point of its series: one value, no spread.
HistoryPoint metric_point(HistoryPoint time_point, double value) {
    time_point.median = time_point.low = time_point.high = time_point.min = time_point.max = value;
    time_point.samples = 1;
    return time_point;
}

// Oldest run first, each run's points in the order its file held them: a later run's row
// replaces an earlier run's of the same entry or plugin.
constexpr const char *wall_times_query = R"sql(
SELECT p.plugin, p.size, p.params, p.wall_s, p.start_s, r.id
FROM points p JOIN runs r ON r.id = p.run_id
WHERE p.wall_s IS NOT NULL
ORDER BY r.created, r.id, p.rowid
)sql";

}  // namespace

bool HistorySeries::worse(const ChangePoint &step, double threshold) const {
    return metric_worse(better, step.before, step.after, threshold);
}

std::string HistorySeries::value_text(double value) const {
    return metric.empty() ? format_seconds(value) : metric_value_text({metric, value, unit});
}

std::vector<HistorySeries> history_series(const std::filesystem::path &database, const ChangePointOptions &options) {
    HistoryDatabase db(database, HistoryDatabase::Access::read);
    std::vector<HistorySeries> all;
    // The metric series of the entry series being read, by name, in the order met.
    std::vector<HistorySeries> metric_series, entry_metrics;
    const auto end_entry = [&] {
        metric_series.insert(metric_series.end(), entry_metrics.begin(), entry_metrics.end());
        entry_metrics.clear();
    };
    HistoryStatement rows(db, series_query(db.has_column("points", "metrics")));
    while (rows.step()) {
        HistorySeries key = series_of_row(rows);
        if (all.empty() || !same_series(all.back(), key)) {
            end_entry();
            all.push_back(key);
        }
        const HistoryPoint point = point_of_row(rows);
        all.back().points.push_back(point);
        for (const EntryMetric &m : metrics_of_row(rows, database)) {
            auto found = std::find_if(entry_metrics.begin(), entry_metrics.end(),
                                      [&](const HistorySeries &s) { return s.metric == m.name; });
            if (found == entry_metrics.end()) {
                found = entry_metrics.insert(entry_metrics.end(), key);
                found->metric = m.name;
            }
            found->unit = m.unit;  // the newest run's
            found->better = m.better;
            found->measured = m.measured;
            found->points.push_back(metric_point(point, m.value));
        }
    }
    end_entry();
    all.insert(all.end(), metric_series.begin(), metric_series.end());
    for (HistorySeries &series : all) {
        std::vector<double> medians;
        for (const HistoryPoint &point : series.points) medians.push_back(point.median);
        series.change_points = find_change_points(medians, options);
    }
    return all;
}

RecordedCosts history_wall_times(const std::filesystem::path &database) {
    HistoryDatabase db(database, HistoryDatabase::Access::read);
    RecordedCosts recorded;
    if (!db.has_column("points", "wall_s")) return recorded;  // no point stored one
    std::map<std::string, int64_t> start_run;  // the run each plugin's start is from (ids from 1)
    HistoryStatement rows(db, wall_times_query);
    while (rows.step()) {
        const EntryIdentity entry{rows.text(0), static_cast<uint64_t>(rows.integer(1)), rows.text(2)};
        recorded.entry_s[entry] = rows.real(3);
        // A run's first start of the plugin is its worker's start for the sweep (as from a
        // results file); a later one in the same run (a worker started again) is not. Rows
        // come run by run.
        const int64_t run = rows.integer(5);
        if (!rows.is_null(4) && std::exchange(start_run[entry.plugin], run) != run)
            recorded.start_s[entry.plugin] = rows.real(4);
    }
    return recorded;
}

}  // namespace gpubench
