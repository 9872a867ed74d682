// `runner report FILE...`, `runner compare BASELINE CANDIDATE`, `runner merge SHARD...`,
// `runner history ...` and `runner checks`: answers from results files or from the runner's
// own tables, without running anything; `runner new-plugin`: a plugin repository from the
// SDK's template. Each returns the process's exit status; all but history throw their errors
// (CommandFailure, or any exception for bad input), which main.cpp prints.
#pragma once

#include <boost/program_options/options_description.hpp>

#include <string>
#include <vector>

namespace gpubench {

int report_command(int argc, const char *const *argv);   // argv[0] is "report"
int compare_command(int argc, const char *const *argv);  // argv[0] is "compare"
int merge_command(int argc, const char *const *argv);    // argv[0] is "merge"
int history_command(int argc, const char *const *argv);  // argv[0] is "history"
int checks_command(int argc, const char *const *argv);   // argv[0] is "checks"
// Runs plugins (a conformance test of them), unlike the others.
int check_command(int argc, const char *const *argv);    // argv[0] is "check"
int new_plugin_command(int argc, const char *const *argv);  // argv[0] is "new-plugin"

// A subcommand's command line (main.cpp): its options, `described`, and its
// positional arguments, into `files` (nullptr: it takes none). argv[0], its name, is skipped as a
// program name would be. Returns true when --help was asked for, after printing `described`.
// Throws boost::program_options::error on bad input, std::invalid_argument on an argument that
// `files` cannot take.
bool parse_subcommand(int argc, const char *const *argv,
                      const boost::program_options::options_description &described,
                      std::vector<std::string> *files = nullptr);

}  // namespace gpubench
