#include "subcommands.hpp"

#include <boost/program_options.hpp>

#include <iostream>
#include <stdexcept>

namespace gpubench {

namespace po = boost::program_options;

bool parse_subcommand(int argc, const char *const *argv, const po::options_description &described,
                      std::vector<std::string> *files) {
    std::vector<std::string> refused;  // the arguments of a subcommand that takes none
    po::options_description hidden;
    hidden.add_options()("files", po::value<std::vector<std::string>>(files ? files : &refused));
    po::options_description all;
    all.add(described).add(hidden);
    po::positional_options_description positional;
    positional.add("files", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << described;
        return true;
    }
    if (!refused.empty()) throw std::invalid_argument("unexpected argument '" + refused.front() + "'");
    return false;
}

}  // namespace gpubench
