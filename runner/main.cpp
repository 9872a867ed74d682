// runner: discovers gpubench plugins and times them uniformly. See README.md.
#include "cache_files.hpp"
#include "cli.hpp"
#include "plugin_list.hpp"
#include "plugin_scan.hpp"
#include "runner_options.hpp"
#include "subcommands.hpp"
#include "sweep_plan.hpp"
#include "system_info.hpp"
#include "work_query.hpp"
#include "worker_main.hpp"

#include <boost/program_options.hpp>

#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

using namespace gpubench;

namespace po = boost::program_options;

bool gpubench::parse_subcommand(int argc, const char *const *argv, const po::options_description &described,
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

namespace {

// `runner NAME ...`: history reports its own errors; the others throw theirs, each printed as
// one line: a CommandFailure with its status, any other exception as bad input.
std::optional<int> run_subcommand(const std::string &name, int argc, const char *const *argv) {
    if (name == "history") return history_command(argc, argv);
    const std::map<std::string, int (*)(int, const char *const *)> throwing = {
        {"report", report_command}, {"compare", compare_command}, {"merge", merge_command},
        {"checks", checks_command}, {"check", check_command}, {"new-plugin", new_plugin_command}};
    const auto command = throwing.find(name);
    if (command == throwing.end()) return std::nullopt;
    try {
        return command->second(argc, argv);
    } catch (const CommandFailure &failure) {
        std::cerr << "runner " << name << ": error: " << failure.message << '\n';
        return failure.status;
    } catch (const std::exception &e) {
        std::cerr << "runner " << name << ": error: " << e.what() << '\n';
        return exit_usage;
    }
}

// The runner's other roles: a worker, a plugin scanner or a work query (processes the runner
// starts), or a subcommand. nullopt: a sweep's or --list's command line.
std::optional<int> run_other_role(int argc, char **argv) {
    const std::string role = argc > 1 ? argv[1] : "";
    if (role == worker_flag) return worker_main(argc, argv);
    if (role == scan_flag) return scan_main(argc, argv);
    if (role == work_query_flag) return work_query_main(argc, argv);
    return argc > 1 ? run_subcommand(argv[1], argc - 1, argv + 1) : std::nullopt;
}

// --list --plugin's plugins: a pattern that matches none is bad input.
std::vector<const PluginInfo *> selected_plugins(PluginCatalog &catalog, const std::vector<std::string> &patterns) {
    try {
        return select_plugins(catalog, patterns);
    } catch (const std::invalid_argument &e) {
        throw CommandFailure{e.what()};
    }
}

int run(int argc, char **argv) {
    const auto started = std::chrono::steady_clock::now();
    if (std::optional<int> status = run_other_role(argc, argv)) return *status;
    std::optional<CommandLine> parsed;
    try {
        parsed = parse_command_line(argc, argv);
    } catch (const std::exception &e) {
        return fail(e.what() + std::string(" (see runner --help)"), exit_usage);
    }
    const CommandLine &cli = *parsed;  // as parsed, from here on: what is decided from it is the plan
    if (cli.help) {
        std::cout << (cli.list_format == "markdown" ? runner_options_markdown() : cli.usage);
        return exit_ok;
    }
    if (cli.version) {
        std::cout << "gpubench runner " << build_context()["gpubench_version"].get<std::string>() << " ("
                  << build_context()["git_revision"].get<std::string>() << "), plugin ABI " << GPUBENCH_ABI_MAJOR
                  << "." << GPUBENCH_ABI_MINOR << '\n';
        return exit_ok;
    }
    try {
        const SweepPlan plan = plan_sweep(cli);
        PluginCatalog catalog = find_plugins(cli, plan);
        if (cli.list) {
            if (cli.list_format == "markdown")
                print_plugin_table(std::cout, std::cerr, catalog);
            else if (plan.plugin_patterns.empty())
                print_plugin_list(std::cout, catalog, probe_runner_gpu(plan.measure.cuda_device, cli.reprobe_gpus));
            else
                print_plugin_descriptions(std::cout, selected_plugins(catalog, plan.plugin_patterns),
                                          probe_runner_gpu(plan.measure.cuda_device, cli.reprobe_gpus));
            return exit_ok;
        }
        return measure_sweep(cli, plan, catalog, std::vector<std::string>(argv, argv + argc), started);
    } catch (const CommandFailure &failure) {
        return fail(failure.message, failure.status);
    }
}

}  // namespace

int main(int argc, char **argv) {
    // Past a file-size limit (ulimit -f) a write fails with EFBIG, reported as one line,
    // instead of the signal ending the runner.
    std::signal(SIGXFSZ, SIG_IGN);
    export_cache_dir();  // before any worker starts: they and their plugins inherit it
    // Every error is meant to be handled where it happens; this is the last line of defence,
    // so that even an unforeseen one is a single line and a failure status, never an abort.
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        return fail(std::string("unexpected: ") + e.what(), exit_failed);
    } catch (...) {
        return fail("unexpected error", exit_failed);
    }
}
