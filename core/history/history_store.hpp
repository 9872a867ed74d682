// The history of results across commits: runs kept in an SQLite database (runner history add),
// read back as one series per entry and machine (runner history show / regressions, the HTML
// report's trends). Safe for concurrent writers: several processes adding at once lose nothing.
#pragma once

#include "change_points.hpp"
#include "gpubench/plugin.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gpubench {

struct RecordedCosts;  // shard_costs.hpp

// One verified entry of one run.
struct HistoryPoint {
    int64_t run_id = 0;
    std::string commit, date;
    double median = 0;     // the headline median, seconds
    double low = 0, high = 0;  // its spread: the quartiles of the headline samples
    double min = 0, max = 0;   // the fastest and slowest headline sample
    uint64_t samples = 0;      // how many headline samples
    std::string flags;         // the entry's flags, comma-separated ("noisy,contended")
};

// One entry on one machine (and GPUs and build), oldest run first: its headline time, or one
// of its metrics (each value a point whose median, quartiles and extremes are the value).
struct HistorySeries {
    std::string plugin, params;
    uint64_t size = 0;
    std::string machine, gpus, build;
    std::string metric, unit;  // "" for the headline time
    gpubench_better better = GPUBENCH_BETTER_LOWER;  // a time is better lower
    bool measured = false;  // a metric the runner measured: its steps are shown, never failed on
    // Whether a step goes the worse way by more than `threshold` (a fraction): slower, or a
    // metric worse in its direction; never for a metric of no stated direction.
    bool worse(const ChangePoint &step, double threshold) const;
    // Whether such a step is a regression: worse, in the time or a plugin's metric.
    bool regressed(const ChangePoint &step, double threshold) const { return !measured && worse(step, threshold); }
    // A value of the series as printed: "1.23 ms", "91.2 %".
    std::string value_text(double value) const;
    std::vector<HistoryPoint> points;
    std::vector<ChangePoint> change_points;  // filled by history_series
    std::string label() const;               // "matmul_cuda 4096 [dtype=float64]", ": accuracy"
    // The GPU of a sweep over several (runner --devices) the entry ran on, else -1; labelled
    // "... on device 1".
    int device = -1;
};

// What history_add_file did with one results file.
struct HistoryAdded {
    int64_t run_id = 0;           // the new run, or the one that already holds the file
    bool already_stored = false;  // the same file content was added before: nothing stored
    size_t points = 0;            // verified entries stored
    std::string commit, date;     // the run's key, as stored
};

// Stores one results file as one run, in its own transaction; `commit`, when not empty,
// replaces the file's build.git_revision (a CI build's "-dirty" or "unknown"). A file already
// stored (same file content) is not stored twice. The database and its folder are created
// when missing. Throws std::runtime_error with one line naming the file or the database on any
// failure; nothing of a failed file is kept.
HistoryAdded history_add_file(const std::filesystem::path &database, const std::filesystem::path &results_file,
                              const std::string &commit = "");

// What the database's runs recorded of each entry's wall time (its own, less its worker's
// start) and each plugin's start: the most recent (by the results file's date, then the order
// added) of each plugin, size and params (any seed: the history keeps none), whatever machine,
// device or build measured it; points stored before wall times were kept have none.
// Throws std::runtime_error with one line when the database cannot be read or is not a
// gpubench history.
RecordedCosts history_wall_times(const std::filesystem::path &database);

// Every series of the database, with its change points. Throws std::runtime_error with one
// line when the database cannot be read or is not a gpubench history.
std::vector<HistorySeries> history_series(const std::filesystem::path &database,
                                          const ChangePointOptions &options = {});

}  // namespace gpubench
