// The command line of a subcommand (report, compare, merge): its options and any number of
// results files as positional arguments.
#pragma once

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace gpubench {

// Parses argv (argv[0] is the subcommand's name, skipped as a program name would be) into
// the variables `described` names and `files`. Returns true when --help was asked for, after
// printing `described`. Throws boost::program_options::error on bad input.
bool parse_subcommand(int argc, const char *const *argv,
                      const boost::program_options::options_description &described,
                      std::vector<std::string> &files);

}  // namespace gpubench
