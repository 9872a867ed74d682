// Reading the history back as series: one per entry (plugin, size, params, device) and
// machine (host, GPUs, build), oldest run first, each with its change points.
#include "history_database.hpp"
#include "history_store.hpp"

#include <tuple>

namespace gpubench {

namespace {

constexpr const char *series_query = R"sql(
SELECT p.plugin, p.size, p.params, p.device, r.machine, r.gpus, r.build,
       r.id, r.commit_id, r.created, p.median, p.q1, p.q3, p.min, p.max, p.samples, p.flags
FROM points p JOIN runs r ON r.id = p.run_id
ORDER BY p.plugin, p.size, p.params, p.device, r.machine, r.gpus, r.build, r.created, r.id
)sql";

HistorySeries series_of_row(const HistoryStatement &row) {
    HistorySeries series;
    series.plugin = row.text(0);
    series.size = static_cast<uint64_t>(row.integer(1));
    series.params = row.text(2);
    series.device = static_cast<int>(row.integer(3));
    series.machine = row.text(4);
    series.gpus = row.text(5);
    series.build = row.text(6);
    return series;
}

HistoryPoint point_of_row(const HistoryStatement &row) {
    HistoryPoint point;
    point.run_id = row.integer(7);
    point.commit = row.text(8);
    point.date = row.text(9);
    point.median = row.real(10);
    point.low = row.real(11);
    point.high = row.real(12);
    point.min = row.real(13);
    point.max = row.real(14);
    point.samples = static_cast<uint64_t>(row.integer(15));
    point.flags = row.text(16);
    return point;
}

bool same_series(const HistorySeries &a, const HistorySeries &b) {
    return std::tie(a.plugin, a.size, a.params, a.device, a.machine, a.gpus, a.build) ==
           std::tie(b.plugin, b.size, b.params, b.device, b.machine, b.gpus, b.build);
}

}  // namespace

std::vector<HistorySeries> history_series(const std::filesystem::path &database, const ChangePointOptions &options) {
    HistoryDatabase db(database, HistoryDatabase::Access::read);
    std::vector<HistorySeries> all;
    HistoryStatement rows(db, series_query);
    while (rows.step()) {
        HistorySeries key = series_of_row(rows);
        if (all.empty() || !same_series(all.back(), key)) all.push_back(std::move(key));
        all.back().points.push_back(point_of_row(rows));
    }
    for (HistorySeries &series : all) {
        std::vector<double> medians;
        for (const HistoryPoint &point : series.points) medians.push_back(point.median);
        series.change_points = find_change_points(medians, options);
    }
    return all;
}

}  // namespace gpubench
