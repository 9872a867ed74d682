// runner: discovers gpubench plugins and times them uniformly. See README.md.
#include "cli.hpp"
#include "console.hpp"
#include "gpu.hpp"
#include "host_peaks.hpp"
#include "host_resources.hpp"
#include "cache_files.hpp"
#include "plugin_catalog.hpp"
#include "plugin_scan.hpp"
#include "progress.hpp"
#include "results.hpp"
#include "roofline.hpp"
#include "sanitizer.hpp"
#include "shard_barrier.hpp"
#include "sharding.hpp"
#include "sweep.hpp"
#include "system_info.hpp"
#include "text_format.hpp"
#include "subcommands.hpp"
#include "work_query.hpp"
#include "worker_main.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

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

// The default sweep's wall-time target (--budget): one H100 with the Python backends should
// finish in about three minutes.
constexpr double default_sweep_budget_s = 150;

nlohmann::json options_json(const CommandLine &cli, bool default_sweep, double budget_s) {
    nlohmann::json options = measure_options_json(cli.measure);
    options["timeout_s"] = cli.timeout_s;
    options["isolation"] = cli.in_process           ? "in-process"
                           : !cli.sanitize.empty()    ? "worker process per entry (sanitized)"
                           : cli.worker_per_entry     ? "worker process per entry"
                                                      : "worker process per plugin";
    if (!cli.sanitize.empty()) options["sanitize"] = cli.sanitize;
    if (!cli.param_axes.empty()) options["param_axes"] = param_axes_json(cli.param_axes);
    if (budget_s > 0) options["budget_s"] = budget_s;
    if (default_sweep)
        options["default_sweep"] = "at most 1 s of samples per entry unless --max-time, cut to fit the budget "
                                   "(budget_s) unless --budget; sizes predicted to run over 2 s per run() "
                                   "skipped; every GPU unless --device or --devices";
    return options;
}

// A shard's skipped entries are not its failure: runner merge's status reports the sweep's.
int exit_status(const SweepTally &tally, bool shard) {
    if (tally.interrupted) return exit_interrupted;
    if (tally.verification_failed || tally.errors) return exit_failed;
    if (tally.skipped && !shard) return exit_skipped;
    return exit_ok;
}

// The table on stdout and the progress line on stderr, as entries finish. `params_width`:
// the widest params of the sweep's entries (0: none has any, and the table has no PARAMS).
class ConsoleObserver final : public SweepObserver {
public:
    ConsoleObserver(std::ostream &out, bool quiet, size_t params_width)
        : out_(out), quiet_(quiet), params_width_(params_width),
          progress_(Progress::style_for_stderr(quiet), 0) {}
    void planned(size_t entries) override {
        progress_ = Progress(Progress::style_for_stderr(quiet_), entries);
        if (!quiet_) print_sweep_header(out_, params_width_);
    }
    void begin(const PluginInfo &plugin, uint64_t size) override { progress_.begin(plugin.name, size); }
    void tick() override { progress_.tick(); }
    void finished(const EntryResult &entry, const std::string &params) override {
        progress_.clear();
        if (!quiet_) print_sweep_row(out_, entry, params, params_width_);
        progress_.end();
    }
    ~ConsoleObserver() override { progress_.clear(); }

private:
    std::ostream &out_;
    bool quiet_;
    size_t params_width_;
    Progress progress_;
};

// --devices: the listed devices, or every one here (all), become cuda_device and the rest.
// A listed device this machine lacks is an error; on a machine with no CUDA device at all,
// the GPU entries are recorded as skipped with the reason, as without --devices. The default
// sweep takes every GPU of a host with several, unless --device names one.
std::string choose_devices(CommandLine &cli, bool default_sweep) {
    if (default_sweep && cli.devices.empty() && !cli.device_given && cuda_device_count() > 1)
        cli.all_devices = true;
    if (cli.devices.empty() && !cli.all_devices) return "";
    const int count = cuda_device_count();
    std::vector<int> devices = cli.devices;
    if (cli.all_devices)
        for (int device = 0; device < count; ++device) devices.push_back(device);
    for (int device : devices)
        if (count > 0 && device >= count)
            return "--devices: CUDA device " + std::to_string(device) + " does not exist (" +
                   std::to_string(count) + " found)";
    if (devices.empty()) devices.push_back(cli.measure.cuda_device);
    cli.measure.cuda_device = devices.front();
    cli.measure.cuda_devices = devices;
    return "";
}

// The sweep's GPUs, probed: cuda_device's first (`probed` when the caller has it already).
std::vector<GpuInfo> probe_gpus(const MeasureOptions &options, const std::optional<GpuInfo> &probed) {
    std::vector<GpuInfo> gpus;
    for (int device : selected_cuda_devices(options))
        gpus.push_back(gpus.empty() && probed ? *probed : probe_gpu(device));
    return gpus;
}

// The default results file, stem.json, or stem-2.json, stem-3.json... when runners started
// in the same second on one host (a CI matrix, ctest -j) hold the earlier names. `output`
// names the file tried last (for an error message).
std::unique_ptr<ResultsFile> open_default_results(const std::string &stem, const nlohmann::json &document,
                                                  std::string &output) {
    namespace fs = std::filesystem;
    for (int copy = 1; copy <= 100; ++copy) {
        output = copy == 1 ? stem + ".json" : stem + "-" + std::to_string(copy) + ".json";
        if (fs::exists(output) || fs::exists(output + ".lock")) continue;
        try {
            return std::make_unique<ResultsFile>(output, document);
        } catch (const std::exception &) {
            if (!fs::exists(output + ".lock")) throw;  // not another runner's race: a real error
        }
    }
    throw std::runtime_error("the default names are all taken: name one with --output");
}

// Runs the sweep and prints its summary; returns the exit status.
int sweep_and_summarize(const SweepEntries &entries, const CommandLine &cli, const std::vector<GpuInfo> &gpus,
                        ResultsFile &results, WorkerPool &pool, const SweepMode &mode, const std::string &output) {
    SweepTally tally;
    try {
        size_t params_width = 0;
        for (const SweepEntry &entry : entries) params_width = std::max(params_width, entry.params.size());
        ConsoleObserver console(std::cout, cli.quiet, params_width);
        tally = run_sweep(entries, cli.measure, gpus, results, pool, mode, console);
    } catch (const std::exception &e) {  // the results file could not be written (a full disk)
        return fail(std::string(e.what()) + "; the entries written before are in " + output, exit_failed);
    }
    const int status = exit_status(tally, cli.shard.has_value());
    if (tally.interrupted) {
        std::cout << "\ninterrupted: the entries finished so far are in " << output
                  << "; runner --resume " << output << " (with the same options) continues\n";
        return status;
    }
    std::cout << "\n" << tally.ok << " ok, " << tally.verification_failed
              << " failed verification, " << tally.errors << " errors, " << tally.skipped
              << " skipped";
    if (tally.resumed) std::cout << " (" << tally.resumed << " of them already in the file)";
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - mode.started).count();
    std::cout << "; results written to " << output << " (" << format_seconds(took_s) << ")\n";
    if (tally.skipped && cli.shard && status == exit_ok)
        std::cout << "this shard exits with status 0: its skipped entries are recorded in " << output
                  << ", and runner merge reports them (exit status 3 there)\n";
    return status;
}

// Ranks launched together on one host share it, as lanes do (sharding.hpp): this rank's
// share, taken (bound to, and --threads unless given), or nullopt with a note where its
// launcher bound it to fewer CPUs than the host has.
std::optional<HostShare> take_rank_share(CommandLine &cli) {
    if (!cli.shard || !cli.shard->launched_ranks) return std::nullopt;
    std::optional<HostShare> share = local_rank_share(process_environment());
    if (!share) {
        if (allowed_cpus().size() < logical_cores())
            std::cout << "note: this rank may use " << allowed_cpus().size() << " of this host's " << logical_cores()
                      << " CPUs (its launcher's binding: Open MPI's mpirun binds each rank to one core unless "
                         "--bind-to none, and then ranks on one host share it by themselves)\n";
        return std::nullopt;
    }
    if (std::string why = apply_host_share(share->cpus, share->threads); !why.empty()) {
        std::cerr << "runner: warning: " << why << "; this rank keeps every CPU\n";
        return std::nullopt;
    }
    if (!cli.threads_given) cli.measure.cpu_threads = share->threads;
    return share;
}

int run(int argc, char **argv) {
    const auto started = std::chrono::steady_clock::now();
    if (is_worker_command_line(argc, argv)) return worker_main(argc, argv);
    if (is_scan_command_line(argc, argv)) return scan_main(argc, argv);
    if (is_work_query_command_line(argc, argv)) return work_query_main(argc, argv);
    if (argc > 1 && std::string(argv[1]) == "report") return report_command(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "compare") return compare_command(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "merge") return merge_command(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "history") return history_command(argc - 1, argv + 1);
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
    // Resuming a shard's or a merged file: the entries it was planned to hold.
    std::optional<ResumedPlan> resumed;
    if (!cli.resume.empty()) try {
            resumed = resumed_plan(cli);
        } catch (const std::exception &e) {
            return fail("cannot resume: " + std::string(e.what()), exit_usage);
        }
    if (resumed) cli.plugin_patterns = plugin_names(resumed->entries);
    // The default sweep is an overview that should take minutes: a tighter time per entry,
    // and no size predicted to run for long (SweepMode::predicted_run_limit_s).
    const bool default_sweep = resumed ? resumed->default_sweep : cli.plugin_patterns.empty() && !cli.sizes;
    if (std::string problem = choose_devices(cli, default_sweep); !problem.empty()) return fail(problem, exit_usage);
    const std::optional<HostShare> rank_share = take_rank_share(cli);
    const double budget_s = cli.budget_s.value_or(default_sweep ? default_sweep_budget_s : 0);

    std::error_code ec;
    const std::filesystem::path runner_file = boost::dll::program_location(ec);
    PluginSearch search;
    PluginSearchPath path =
        plugin_search_path(runner_file.parent_path(), cli.plugin_dirs, std::getenv(plugin_path_variable));
    for (const std::string &warning : path.warnings) std::cerr << "runner: warning: " << warning << '\n';
    search.dirs = std::move(path.dirs);
    search.allow_insecure = cli.allow_insecure_plugins;
    search.scan.runner = runner_file;
    search.scan.timeout_s = cli.scan_timeout_s;
    search.scan.cache = cache_file("plugin-scan.json");
    search.scan.rescan = cli.rescan_plugins;
    // With --plugin, only files named like a pattern are scanned (the rest when none matches).
    PluginCatalog catalog =
        discover_plugins(search, cli.list ? std::vector<std::string>{} : cli.plugin_patterns);
    if (cli.list) {
        print_plugin_list(std::cout, catalog, probe_gpu(cli.measure.cuda_device));
        return exit_ok;
    }

    // The default sweep needs the GPU's answer first: it runs what can run here. A shard of
    // it plans every plugin, so that shards on unlike machines plan the same sweep (what
    // cannot run here is recorded as skipped).
    std::optional<GpuInfo> probed;
    if (cli.plugin_patterns.empty()) probed = probe_gpu(cli.measure.cuda_device);
    std::vector<const PluginInfo *> selected;
    if (cli.plugin_patterns.empty()) {
        for (const PluginInfo &p : catalog.plugins)
            if ((p.is_available() && (!p.is_cuda() || probed->available)) || cli.shard)
                selected.push_back(&p);
            else
                std::cout << "note: " << p.name << " unavailable: "
                          << (p.is_available() ? probed->unavailable_reason : p.unavailable_reason) << '\n';
    } else {
        try {
            selected = select_plugins(catalog, cli.plugin_patterns);
        } catch (const std::exception &e) {
            return fail(e.what(), exit_usage);
        }
    }
    if (selected.empty()) return fail("no plugins to run (runner --list shows what was found)", exit_usage);
    // Not an error (a stray file in a plugin folder must not stop a sweep), but not silent.
    if (!catalog.refused.empty())
        std::cout << "note: " << catalog.refused.size()
                  << (catalog.refused.size() == 1 ? " file was" : " files were")
                  << " refused as plugins (runner --list says why)\n";
    // A mistyped key would otherwise be measured as the default, silently.
    if (std::string problem = unread_param_problem(selected, param_keys(cli.param_axes)); !problem.empty())
        return fail(problem, exit_usage);

    WorkerLaunch launch;
    std::error_code no_exe;
    launch.runner = boost::dll::program_location(no_exe);
    launch.timeout_s = cli.timeout_s;
    launch.interrupted = [] { return stop_requested != 0; };
    launch.worker_per_entry = cli.worker_per_entry;
    if (!cli.sanitize.empty()) {
        launch.sanitizer = sanitizer_tool_from_string(cli.sanitize);
        const auto program = find_compute_sanitizer(GPUBENCH_CUDA_BIN_DIR);
        if (!program)
            return fail("--sanitize: compute-sanitizer is not installed (looked in PATH, " +
                            std::string(GPUBENCH_CUDA_BIN_DIR) + " and /usr/local/cuda/bin)",
                        exit_usage);
        launch.sanitizer_program = *program;
        cli.measure.audit_streams = false;  // the sanitizer's own device work outlives spans
        cli.measure.hold_stream = false;    // spans under a sanitizer are not timings anyway
    }
    if (default_sweep && !cli.max_time_given) cli.measure.max_time_s = 1.0;
    SweepEntries entries;
    nlohmann::json shard_header;
    try {
        entries = resumed ? entries_with_plugins(selected, resumed->entries)
                          : sweep_entries(selected, cli.sizes, cli.param_axes);
        if (cli.shard && !resumed) {
            ShardedSweep sharded = shard_sweep(entries, cli, runner_file);
            for (const std::string &note : sharded.notes) std::cout << "note: " << note << '\n';
            entries = std::move(sharded.own);
            shard_header = std::move(sharded.record);
        }
    } catch (const std::exception &e) {
        return fail(e.what(), exit_usage);
    }
    // The first worker starts now, loading its plugin and creating its CUDA context while
    // this process probes the GPU, reads the host's peaks and writes the results header.
    // With several GPUs, that of the first entry to run alone: a lane starts its own workers,
    // bound to its share of the host.
    WorkerPool pool(launch);
    const bool lanes = cli.measure.cuda_devices.size() > 1;
    const auto runs_first = std::find_if(entries.begin(), entries.end(), [&](const SweepEntry &entry) {
        return !lanes || !entry.plugin->is_cuda() || entry.plugin->max_devices > 1;
    });
    if (!cli.in_process && runs_first != entries.end()) pool.prestart(*runs_first->plugin, cli.measure.cuda_device);
    const std::vector<GpuInfo> gpus = probe_gpus(cli.measure, probed);
    const GpuInfo &gpu = gpus.front();
    std::optional<HostPeaks> peaks;
    for (const PluginInfo *plugin : selected)
        if (!plugin->is_cuda() && !peaks) peaks = host_peaks();  // measured once per machine
    if (peaks) pool.set_host_roofline(launch.host_roofline = host_roofline(*peaks));

    // Shards started together on one host (mpirun) get files of their own by default.
    const std::string shard_suffix =
        cli.shard ? "-shard-" + std::to_string(cli.shard->index) + "of" + std::to_string(cli.shard->count) : "";
    const bool default_output = cli.output.empty() && cli.resume.empty();
    const std::string default_stem = "results/" + host_name() + "-" + utc_timestamp(true) + shard_suffix;
    std::string output = !cli.output.empty() ? cli.output
                         : !cli.resume.empty() ? cli.resume
                                               : default_stem + ".json";
    nlohmann::json document =
        results_header(std::vector<std::string>(argv, argv + argc), gpu, options_json(cli, default_sweep, budget_s),
                       peaks ? std::optional<Roofline>(launch.host_roofline) : std::nullopt);
    if (!shard_header.is_null() && rank_share) shard_header["host_share"] = host_share_json(*rank_share);
    if (!shard_header.is_null()) document["shard"] = shard_header;
    if (!cli.measure.cuda_devices.empty()) {
        document["gpus"] = nlohmann::json::array();
        for (const GpuInfo &each : gpus) document["gpus"].push_back(gpu_json(each));
    }
    std::unique_ptr<ResultsFile> results;
    try {
        if (default_output)
            results = open_default_results(default_stem, document, output);
        else if (cli.resume.empty())
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
    std::string gpu_names = gpu.available ? "" : "none (" + gpu.unavailable_reason + ")";
    for (const GpuInfo &each : gpus)
        if (each.available)
            gpu_names += (gpu_names.empty() ? "" : ", ") +
                         (gpus.size() > 1 ? std::to_string(each.device) + ": " : "") + each.name;
    if (default_sweep && gpus.size() > 1 && cli.all_devices) gpu_names += " (every GPU here: the default sweep)";
    std::cout << "gpubench " << document["build"]["gpubench_version"].get<std::string>()
              << (gpus.size() > 1 ? " | GPUs: " : " | GPU: ") << gpu_names
              << " | CPU threads: " << cli.measure.cpu_threads << " | results: " << output << '\n';
    if (!shard_header.is_null())
        std::cout << "shard " << cli.shard->index << "/" << cli.shard->count << " (" << cli.shard->source
                  << "): " << entries.size() << " of the sweep's " << shard_header["planned"].size()
                  << " entries\n";
    if (rank_share)
        std::cout << "this rank's share of the host: CPUs " << cpu_list_text(rank_share->cpus) << " ("
                  << rank_share->basis << ")\n";
    std::cout << '\n';

    catch_stop_signals();
    SweepMode mode;
    mode.isolated = !cli.in_process;
    mode.launch = launch;
    mode.started = started;
    if (default_sweep) mode.predicted_run_limit_s = 2.0;
    mode.budget_s = budget_s;
    // Ranks started together hold a failing exit until the others are done (docs/scale-out.md).
    const std::unique_ptr<ShardBarrier> barrier =
        cli.shard ? start_shard_barrier(*cli.shard, resumed ? resumed->planned : shard_header["planned"],
                                        output, process_environment(), std::cerr)
                  : nullptr;
    const int status = sweep_and_summarize(entries, cli, gpus, *results, pool, mode, output);
    return barrier ? barrier->finish(status, [] { return stop_requested != 0; }, std::cout) : status;
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
