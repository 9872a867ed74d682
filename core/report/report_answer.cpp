// --format answer (report_formats.hpp): the answer line of each workload that has a GPU
// backend (answer.hpp), one per line: what a CI job greps, and what the README quotes.
#include "report_formats.hpp"

namespace gpubench {

void write_answer_report(std::ostream &out, const ReportInput &input) {
    for (const WorkloadReport &r : input.reports)
        if (const std::string line = answer_line(r); !line.empty()) out << line << '\n';
}

}  // namespace gpubench
