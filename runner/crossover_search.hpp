// The answer after a sweep: each workload's crossovers read from the results file as it stands,
// printed below the table and recorded in the file; and --find-crossover's rounds of entries at
// the sizes that narrow their intervals (core/crossover/refine.hpp), each recorded like any other.
#pragma once

#include "report.hpp"
#include "results.hpp"
#include "sweep.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace gpubench {

// The report of the entries `results` holds so far (each checked as a reader would).
std::vector<WorkloadReport> report_so_far(const ResultsFile &results, const std::string &output);

// The next round's entries: for each GPU answer (compute-only or end to end) whose interval is
// wider than crossover_precision, every plugin of `planned` of that workload and parameter
// setting at the sizes sizes_to_refine gives, within its range; none when all are narrow.
SweepEntries next_crossover_round(const std::vector<WorkloadReport> &reports, const SweepEntries &planned);

// Rounds of next_crossover_round until none is left, `max_rounds` were run, the sweep is
// interrupted or `setup`'s budget is spent; each round's entries are measured by run_sweep and
// announced on `out`. Returns their tally.
SweepTally search_crossovers(const SweepEntries &planned, const MeasureOptions &options,
                             const std::vector<GpuInfo> &gpus, ResultsFile &results, WorkerPool &pool,
                             const SweepSetup &setup, SweepObserver &observer, std::ostream &out);
constexpr size_t max_crossover_rounds = 8;

// The answer lines of `reports` under a heading on `out` (nothing without a GPU answer), and
// the answers recorded in `results` ("answers": answers_json per workload).
void print_answers(std::ostream &out, const std::vector<WorkloadReport> &reports);
void record_answers(ResultsFile &results, const std::vector<WorkloadReport> &reports);

}  // namespace gpubench
