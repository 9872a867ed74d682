// From results files to answers: per workload, sizes as rows and backends as columns (median
// compute and end-to-end time), each backend's speedup over a baseline, and the answer: from
// which size each GPU backend beats the best CPU backend, with its interval (answer.hpp). Several files
// (machines, commits) go side by side, each column named by its file's machine.
#pragma once

#include "answer.hpp"
#include "entry_figures.hpp"
#include "results_model.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gpubench {

// One verified entry, as a report reads it: the entry and its figures, derived in the run
// its file's header describes (entry_figures).
struct ReportPoint {
    EntryResult entry;
    EntryFigures figures;
    size_t run = 0;  // the file it came from, in the order given: each file is a run
    double compute_s() const { return figures.compute.median; }  // the headline (per launch when so timed)
    double end_to_end_s() const { return figures.end_to_end.median; }
};
// A GPU entry's run() host time per call, median; nullopt for CPU entries.
std::optional<double> run_host_s(const ReportPoint &point);

// The name of the (first) GPU an entry ran on, where the sweep probed it; "" for a CPU entry.
std::string gpu_model(const EntryResult &entry);

// A column of a workload's table: one backend from one results file.
struct ReportColumn {
    std::string backend, source;  // source: the file's machine ("vm", "H100"...) when several
    bool gpu = false;
    std::map<uint64_t, ReportPoint> points;  // by size; verified entries only
    // Entries at a size `points` holds again (from a later entry or file): the tables show the
    // last, the answer fits them all (runs pooled: runner report --pool).
    std::vector<ReportPoint> repeats;
    std::optional<BuildRecord> build;        // the plugin's build record, where the file has it
    // The GPU model its entries ran on, where one file holds entries on several models (a
    // --devices sweep on unlike GPUs, merged shards of unlike machines): one column per model.
    std::string gpu_model;
    ColumnModels models;                     // fitted to its points (answer.hpp)
    std::string language() const { return build ? build->language : ""; }  // "" unknown
    std::string label() const {
        return backend + (gpu_model.empty() ? "" : " on " + gpu_model) +
               (source.empty() ? "" : " @ " + source);
    }
};

// The table of one workload (and one parameter setting: "sort [input=descending]").
struct WorkloadReport {
    std::string workload, params;
    std::vector<ReportColumn> columns;
    std::vector<uint64_t> sizes;                // every size any column measured, ascending
    std::string baseline;                       // the column label speedups are against
    // Per GPU column, in column order: its crossovers with the best CPU columns (answer.hpp).
    std::vector<ColumnAnswer> answers;

    std::string title() const { return params.empty() ? workload : workload + " [" + params + "]"; }
};

struct ReportOptions {
    std::string baseline_backend = "naive";  // --baseline
};

// Reads results documents (each with a label naming its source; "" for a single file).
std::vector<WorkloadReport> build_report(
    const std::vector<std::pair<std::string, ResultsDocument>> &labelled_documents,
    const ReportOptions &options);

// The metrics the points of `reports` have, one of each name in the order met (values and
// remarks are the first point's: use them for headings).
std::vector<EntryMetric> report_metrics(const std::vector<WorkloadReport> &reports);

// The speedup of `column` over the baseline at `size`: baseline time / column time, or
// nullopt when either lacks that size. `end_to_end` picks the time compared.
std::optional<double> speedup(const WorkloadReport &report, const ReportColumn &column,
                              uint64_t size, bool end_to_end);

// The Markdown tables, then the glossary of the flags that mark their entries.
void write_markdown(std::ostream &out, const std::vector<WorkloadReport> &reports);
// The studies' view (Markdown): per workload, at each size, every backend's figures as the
// studies tabulate them (execution time, CPU and GPU memory, CPU and GPU use, compile time,
// lines of code), backends grouped by language from their build records: compiled ones (C,
// C++, CUDA) first, then Python, then others, then unknown ones. Below each table, the lines
// of code the backends share, once.
void write_studies_markdown(std::ostream &out, const std::vector<WorkloadReport> &reports);
void write_csv(std::ostream &out, const std::vector<WorkloadReport> &reports);
nlohmann::json report_json(const std::vector<WorkloadReport> &reports);

}  // namespace gpubench
