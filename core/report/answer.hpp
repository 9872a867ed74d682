// The answer to "from which size does the GPU win, by how much, and how sure is that?", per
// workload: each column's cost models (compute-only, end to end, node energy), each GPU
// column's crossovers with the best CPU columns of its source, and the answer line every report
// starts with. Computed from the columns' samples (core/crossover); the same file gives the
// same answer.
#pragma once

#include "cost_model.hpp"
#include "crossover.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct WorkloadReport;
struct ReportColumn;

// What is compared: the time of run() (per launch where so timed), the time with the
// transfers, and the node's energy per result.
enum class Compared { compute, end_to_end, energy };
inline constexpr Compared all_compared[] = {Compared::compute, Compared::end_to_end, Compared::energy};
const char *compared_name(Compared compared);  // "compute", "end_to_end", "energy"

// A column's cost model of each figure (unfitted where it has too few sizes or no such figure).
struct ColumnModels {
    CostModel compute, end_to_end, energy;
    const CostModel &of(Compared compared) const;
    CostModel &of(Compared compared) { return const_cast<CostModel &>(std::as_const(*this).of(compared)); }
};

// A GPU column against the best CPU columns of its source.
struct ColumnAnswer {
    std::string gpu;  // the GPU column's label
    Crossover compute, end_to_end, energy;
    const Crossover &of(Compared compared) const;
    Crossover &of(Compared compared) { return const_cast<Crossover &>(std::as_const(*this).of(compared)); }
};

// The answer of the GPU column labelled `gpu`; nullptr for a CPU column.
const ColumnAnswer *answer_of(const WorkloadReport &report, const std::string &gpu);

// `column`'s series of `compared`: its points' samples (energy: the node's power times each
// run time, where the entry has node energy) and working-set levels.
Series column_series(const ReportColumn &column, Compared compared);

// Fills each column's models and the report's answers (report.cpp's complete() calls it).
void answer_workload(WorkloadReport &report);

// n* as the reports write it ("10.6k", "never", "always"), its interval ("9.10k–12.0k",
// "<100–2.30k", ">1.00M" past the sizes compared) and a ratio with its interval.
std::string crossover_size_text(const Crossover &crossover);
std::string crossover_interval_text(const Crossover &crossover);
std::string estimate_text(const Estimate &ratio);

// "sort: end to end, the GPU never wins up to 100M; compute-only, cuda wins from 10.6k
// (9.10k–12.0k) keys, by 8.30× (7.90–8.80) at 100M, and ..." ("" with no GPU column).
std::string answer_line(const WorkloadReport &report);

// The most runs any of the report's crossovers pooled (Crossover::runs; runner report --pool).
size_t pooled_runs(const WorkloadReport &report);
// Whom the intervals are for: "a repeat run", or "a repeat of the 4 runs pooled".
std::string repeat_words(size_t runs);

// The answers and models as the JSON and HTML reports and the results file hold them.
nlohmann::json answers_json(const WorkloadReport &report);

}  // namespace gpubench
