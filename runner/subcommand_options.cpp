#include "subcommand_options.hpp"

#include <iostream>

namespace gpubench {

namespace po = boost::program_options;

bool parse_subcommand(int argc, const char *const *argv, const po::options_description &described,
                      std::vector<std::string> &files) {
    po::options_description hidden;
    hidden.add_options()("files", po::value<std::vector<std::string>>(&files));
    po::options_description all;
    all.add(described).add(hidden);
    po::positional_options_description positional;
    positional.add("files", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
    if (!vm.count("help")) return false;
    std::cout << described;
    return true;
}

}  // namespace gpubench
