// `runner report FILE...`, `runner compare BASELINE CANDIDATE`, `runner merge SHARD...` and
// `runner history ...`:
// answers from results files, without running anything. Each returns the process's exit
// status.
#pragma once

namespace gpubench {

int report_command(int argc, const char *const *argv);   // argv[0] is "report"
int compare_command(int argc, const char *const *argv);  // argv[0] is "compare"
int merge_command(int argc, const char *const *argv);    // argv[0] is "merge"
int history_command(int argc, const char *const *argv);  // argv[0] is "history"

}  // namespace gpubench
