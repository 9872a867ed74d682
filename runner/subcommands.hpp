// `runner report FILE...`, `runner compare BASELINE CANDIDATE` and `runner merge SHARD...`:
// answers from results files, without running anything. Each returns the process's exit
// status.
#pragma once

namespace gpubench {

int report_command(int argc, const char *const *argv);   // argv[0] is "report"
int compare_command(int argc, const char *const *argv);  // argv[0] is "compare"
int merge_command(int argc, const char *const *argv);    // argv[0] is "merge"

}  // namespace gpubench
