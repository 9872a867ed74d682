// runner: discovers gpubench plugins and times them uniformly. See README.md.
#include "cli.hpp"
#include "console.hpp"
#include "gpu.hpp"
#include "plugin_catalog.hpp"
#include "results.hpp"
#include "sweep.hpp"
#include "system_info.hpp"
#include "subcommands.hpp"
#include "worker.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <csignal>
#include <cstdlib>
#include <iostream>

using namespace gpubench;

namespace {

volatile std::sig_atomic_t stop_requested = 0;  // SIGINT or SIGTERM arrived

extern "C" void request_stop(int) { stop_requested = 1; }

// Ctrl-C ends the sweep after recording what is finished; the worker under way gets the
// same SIGINT from the terminal, or is killed by measure_in_worker.
void catch_stop_signals() {
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

int fail(const std::string &message, int status) {
    std::cerr << "runner: error: " << message << '\n';
    return status;
}

nlohmann::json options_json(const CommandLine &cli) {
    nlohmann::json options = measure_options_json(cli.measure);
    options["timeout_s"] = cli.timeout_s;
    options["isolation"] = cli.in_process ? "in-process" : "worker process per entry";
    return options;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc > 1 && std::string(argv[1]) == "report") return report_command(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "compare") return compare_command(argc - 1, argv + 1);
    CommandLine cli;
    try {
        cli = parse_command_line(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "runner: error: " << e.what() << " (see runner --help)\n";
        return exit_usage;
    }
    if (!cli.worker_request.empty()) return run_worker(cli.worker_request, cli.worker_report_fd);
    if (cli.help) {
        std::cout << cli.usage;
        return exit_ok;
    }
    if (cli.version) {
        std::cout << "gpubench runner " << build_context()["gpubench_version"].get<std::string>()
                  << " (" << build_context()["git_revision"].get<std::string>() << "), plugin ABI "
                  << GPUBENCH_ABI_MAJOR << "." << GPUBENCH_ABI_MINOR << '\n';
        return exit_ok;
    }
    for (const std::string &dir : cli.plugin_dirs)
        if (!std::filesystem::is_directory(dir))
            return fail("plugin directory '" + dir + "' does not exist", exit_usage);

    std::error_code ec;
    std::filesystem::path exe_dir = boost::dll::program_location(ec).parent_path();
    PluginCatalog catalog = discover_plugins(
        plugin_search_path(exe_dir, cli.plugin_dirs, std::getenv(plugin_path_variable)));
    GpuInfo gpu = probe_gpu(cli.measure.cuda_device);
    if (cli.list) {
        print_plugin_list(std::cout, catalog, gpu);
        return exit_ok;
    }

    std::vector<const Plugin *> selected;
    if (cli.plugin_patterns.empty()) {
        // The default sweep: every plugin that can run here.
        for (const Plugin &p : catalog.plugins)
            if (!p.is_cuda() || gpu.available)
                selected.push_back(&p);
            else
                std::cout << "note: " << p.name() << " unavailable: " << gpu.unavailable_reason << '\n';
    } else {
        try {
            selected = select_plugins(catalog, cli.plugin_patterns);
        } catch (const std::exception &e) {
            return fail(e.what(), exit_usage);
        }
    }
    if (selected.empty()) return fail("no plugins to run (runner --list shows what was found)", exit_usage);
    // A mistyped key would otherwise be measured as the default, silently.
    if (std::string problem = unread_param_problem(selected, cli.measure.params); !problem.empty())
        return fail(problem, exit_usage);

    std::string output = !cli.output.empty() ? cli.output
                         : !cli.resume.empty() ? cli.resume
                                               : "results/" + host_name() + "-" + utc_timestamp(true) + ".json";
    nlohmann::json document = {{"schema_version", results_schema_version},
                               {"created", utc_timestamp()},
                               {"command_line", std::vector<std::string>(argv, argv + argc)},
                               {"host", host_context()},
                               {"build", build_context()},
                               {"gpu", gpu_json(gpu)},
                               {"options", options_json(cli)}};
    std::unique_ptr<ResultsFile> results;
    try {
        if (cli.resume.empty())
            results = std::make_unique<ResultsFile>(output, document);
        else
            results = std::make_unique<ResultsFile>(ResultsFile::resume(
                cli.resume, output,
                {{"created", document["created"]},
                 {"command_line", document["command_line"]},
                 {"options", document["options"]}}));
    } catch (const std::exception &e) {
        return fail(cli.resume.empty() ? "cannot write results file '" + output + "': " + e.what()
                                       : "cannot resume: " + std::string(e.what()),
                    exit_usage);
    }
    std::cout << "gpubench " << document["build"]["gpubench_version"].get<std::string>() << " | GPU: "
              << (gpu.available ? gpu.name : "none (" + gpu.unavailable_reason + ")")
              << " | CPU threads: " << cli.measure.cpu_threads << " | results: " << output << "\n\n";

    catch_stop_signals();
    SweepMode mode;
    mode.isolated = !cli.in_process;
    mode.quiet = cli.quiet;
    std::error_code no_exe;
    mode.launch.runner = boost::dll::program_location(no_exe);
    mode.launch.timeout_s = cli.timeout_s;
    mode.launch.interrupted = [] { return stop_requested != 0; };
    SweepTally tally = run_sweep(selected, cli.sizes, cli.measure, gpu, *results, std::cout, mode);
    if (tally.interrupted) {
        std::cout << "\ninterrupted: the entries finished so far are in " << output
                  << "; runner --resume " << output << " (with the same options) continues\n";
        return tally.exit_status();
    }
    std::cout << "\n" << tally.ok << " ok, " << tally.verification_failed
              << " failed verification, " << tally.errors << " errors, " << tally.skipped
              << " skipped";
    if (tally.resumed) std::cout << " (" << tally.resumed << " of them already in the file)";
    std::cout << "; results written to " << output << '\n';
    return tally.exit_status();
}
