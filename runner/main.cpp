// runner: discovers gpubench plugins and times them uniformly. See README.md.
#include "cli.hpp"
#include "console.hpp"
#include "gpu.hpp"
#include "plugin_catalog.hpp"
#include "results.hpp"
#include "sweep.hpp"
#include "system_info.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <cstdlib>
#include <iostream>

using namespace gpubench;

namespace {

int fail(const std::string &message, int status) {
    std::cerr << "runner: error: " << message << '\n';
    return status;
}

nlohmann::json options_json(const CommandLine &cli) {
    const MeasureOptions &m = cli.measure;
    return {{"seed", m.seed},
            {"cpu_threads", m.cpu_threads},
            {"cuda_device", m.cuda_device},
            {"params", m.params},
            {"warmup_runs", m.warmup_runs},
            {"min_samples", m.min_samples},
            {"max_samples", m.max_samples},
            {"min_time_s", m.min_time_s},
            {"max_time_s", m.max_time_s}};
}

}  // namespace

int main(int argc, char **argv) {
    CommandLine cli;
    try {
        cli = parse_command_line(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "runner: error: " << e.what() << " (see runner --help)\n";
        return exit_usage;
    }
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

    std::string output = cli.output.empty()
                             ? "results/" + host_name() + "-" + utc_timestamp(true) + ".json"
                             : cli.output;
    nlohmann::json document = {{"schema_version", results_schema_version},
                               {"created", utc_timestamp()},
                               {"command_line", std::vector<std::string>(argv, argv + argc)},
                               {"host", host_context()},
                               {"build", build_context()},
                               {"gpu", gpu_json(gpu)},
                               {"options", options_json(cli)}};
    std::unique_ptr<ResultsFile> results;
    try {
        results = std::make_unique<ResultsFile>(output, document);
    } catch (const std::exception &e) {
        return fail("cannot write results file '" + output + "': " + e.what(), exit_usage);
    }
    std::cout << "gpubench " << document["build"]["gpubench_version"].get<std::string>() << " | GPU: "
              << (gpu.available ? gpu.name : "none (" + gpu.unavailable_reason + ")")
              << " | CPU threads: " << cli.measure.cpu_threads << " | results: " << output << "\n\n";

    SweepTally tally = run_sweep(selected, cli.sizes, cli.measure, gpu, *results, std::cout);
    std::cout << "\n" << tally.ok << " ok, " << tally.verification_failed
              << " failed verification, " << tally.errors << " errors, " << tally.skipped
              << " skipped; results written to " << output << '\n';
    return tally.exit_status();
}
