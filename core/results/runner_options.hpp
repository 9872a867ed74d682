// The runner's options, one table (runner_options.cpp): what each is called on the command
// line and in the results file's "options", its --help line and what it means. The runner
// declares its command line from it (runner/cli.cpp), the HTML report explains a file's
// options with it, and `runner --help --format markdown` prints the user guide's table of it.
#pragma once

#include <span>
#include <string>

namespace gpubench {

struct RunnerOption {
    const char *key;           // as the results file's options record it; "" when not recorded
    const char *flag;          // the command line's, as Boost.Program_options names it ("quiet,q");
                               // "" for a key only recorded
    const char *value_name;    // the type of its value, as --help and the docs name it: N a
                               // count, S seconds, F a fraction, FILE...; "" for a switch
    const char *default_text;  // its default as --help prints it (the member's, checked as the
                               // runner binds it); "" when it has none or it is the machine's
    const char *help;          // its --help text
    const char *explanation;   // what it means, for the HTML report and the user guide (Markdown:
                               // `code` and [links](page.md#part), relative to docs/)
};

// Every option, in --help's order, then the keys only recorded.
std::span<const RunnerOption> runner_options();

// The row of a recorded key; nullptr if none.
const RunnerOption *runner_option_by_key(const std::string &key);

// "quiet" of "quiet,q"; "" for a key only recorded.
std::string long_flag(const RunnerOption &option);

// What a recorded key means, as plain text: "--min-time: seconds of ..." ("" for an unknown key).
std::string recorded_option_meaning(const std::string &key);

// The options that have a flag as one Markdown table (docs/user-guide.md's).
std::string runner_options_markdown();

}  // namespace gpubench
