// `runner report FILE...` and `runner compare BASELINE CANDIDATE`: answers from results
// files, without running anything. Each returns the process's exit status.
#pragma once

namespace gpubench {

int report_command(int argc, const char *const *argv);   // argv[0] is "report"
int compare_command(int argc, const char *const *argv);  // argv[0] is "compare"

}  // namespace gpubench
