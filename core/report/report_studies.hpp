// The studies' view of a report (runner report, Markdown): per workload, at each size, every
// backend's figures as the studies tabulate them (execution time, CPU and GPU memory, CPU and
// GPU use, compile time, lines of code), backends grouped by language from their build
// records: compiled ones (C, C++, CUDA) first, then Python, then others, then unknown ones.
// Below each table, the lines of code the backends share, once.
#pragma once

#include "report.hpp"

#include <ostream>
#include <vector>

namespace gpubench {

void write_studies_markdown(std::ostream &out, const std::vector<WorkloadReport> &reports);

}  // namespace gpubench
