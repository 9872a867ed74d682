// `runner report FILE...`, `runner compare BASELINE CANDIDATE`, `runner merge SHARD...`,
// `runner history ...` and `runner checks`: answers from results files or from the runner's
// own tables, without running anything. Each returns the process's exit
// status.
#pragma once

namespace gpubench {

int report_command(int argc, const char *const *argv);   // argv[0] is "report"
int compare_command(int argc, const char *const *argv);  // argv[0] is "compare"
int merge_command(int argc, const char *const *argv);    // argv[0] is "merge"
int history_command(int argc, const char *const *argv);  // argv[0] is "history"
int checks_command(int argc, const char *const *argv);   // argv[0] is "checks"
// Runs plugins (a conformance test of them), unlike the others.
int check_command(int argc, const char *const *argv);    // argv[0] is "check"

}  // namespace gpubench
