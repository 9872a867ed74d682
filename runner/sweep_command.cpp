#include "sweep_plan.hpp"

#include "console.hpp"
#include "crossover_search.hpp"
#include "host_peaks.hpp"
#include "rank_world.hpp"
#include "roofline.hpp"
#include "sanitizer.hpp"
#include "shard_barrier.hpp"
#include "sweep.hpp"
#include "sweep_results.hpp"
#include "system_info.hpp"
#include "text_format.hpp"
#include "visible_devices.hpp"

#include <algorithm>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>

namespace gpubench {

namespace {

volatile std::sig_atomic_t stop_requested = 0;  // SIGINT or SIGTERM arrived

// Under a budget, the share of it the planned entries get beside --find-crossover's rounds.
constexpr double sweep_share_beside_crossover_search = 0.6;

extern "C" void request_stop(int) { stop_requested = 1; }

// The table on stdout and the progress line on stderr, as entries finish. `params_width`:
// the widest params of the sweep's entries (0: none has any, and the table has no PARAMS).
class ConsoleObserver final : public SweepObserver {
public:
    ConsoleObserver(bool quiet, size_t params_width)
        : quiet_(quiet), params_width_(params_width), progress_(Progress::style_for_stderr(quiet), 0) {}
    void planned(size_t entries) override {
        progress_ = Progress(Progress::style_for_stderr(quiet_), entries);
        if (!quiet_) print_sweep_header(std::cout, params_width_);
    }
    void put_back(const SweepEntry &entry) override { progress_.put_back(entry.plugin->name, entry.size, entry.params); }
    void begin(const SweepEntry &entry, int lane_gpu) override {
        progress_.begin(entry.plugin->name, entry.size, lane_gpu, entry.params);
    }
    void tick() override { progress_.tick(); }
    void finished(const EntryResult &entry, const std::string &params) override {
        progress_.clear();
        if (!quiet_) print_sweep_row(std::cout, entry, params, params_width_);
        progress_.end(entry.plugin, entry.size, params);
        last_finished_s_ = std::max(last_finished_s_, entry.sweep.finished_after_s);
    }
    ~ConsoleObserver() override { progress_.clear(); }
    // When the last entry this process measured ended, since the process started; 0: none.
    double last_finished_s() const { return last_finished_s_; }

private:
    bool quiet_;
    size_t params_width_;
    Progress progress_;
    double last_finished_s_ = 0;
};

// How entries' workers start: time-out, isolation, and compute-sanitizer with --sanitize
// (under which the plan turns off the stream audit and the held stream). Throws
// CommandFailure when compute-sanitizer is not installed.
WorkerLaunch worker_launch(const CommandLine &cli, const std::filesystem::path &runner_file) {
    WorkerLaunch launch;
    launch.runner = runner_file;
    launch.timeout_s = cli.timeout_s;
    launch.interrupted = stop_was_requested;
    launch.worker_per_entry = cli.worker_per_entry;
    launch.inherited_visible = inherited_visible_devices();
    launch.listed_gpus = listed_gpu_uuids(driver_gpu_listing());
    if (!cli.sanitize.empty()) {
        launch.sanitizer = sanitizer_tool_from_string(cli.sanitize);
        const auto program = find_compute_sanitizer(GPUBENCH_CUDA_BIN_DIR);
        if (!program)
            throw CommandFailure{"--sanitize: compute-sanitizer is not installed (looked in PATH, " +
                                 std::string(GPUBENCH_CUDA_BIN_DIR) + " and /usr/local/cuda/bin)"};
        launch.sanitizer_program = *program;
    }
    return launch;
}

// The first worker starts now, loading its plugin and creating its CUDA context while this
// process reads the host's peaks and writes the results header (after it has described the GPUs
// and measured the devices' idle power, which a worker's start would disturb). With several
// GPUs, that of the first CPU entry, which runs before the lanes (sweep.hpp): a lane starts its
// own workers, bound to its share of the host.
void prestart_first_worker(WorkerPool &pool, const CommandLine &cli, const SweepPlan &plan,
                           const SweepEntries &entries) {
    const bool lanes = plan.measure.cuda_devices.size() > 1;
    const auto runs_first =
        std::ranges::find_if(entries, [&](const SweepEntry &entry) { return !lanes || !entry.plugin->is_cuda(); });
    if (!cli.in_process && runs_first != entries.end()) pool.prestart(*runs_first->plugin, plan.measure);
}

// The lines above the table: version, GPUs, CPU threads and results file; a shard's part of
// the sweep; a rank's share of the host.
void print_sweep_banner(std::ostream &out, const SweepPlan &plan, const PlannedEntries &planned,
                        const std::vector<GpuInfo> &gpus, const SweepResults &results) {
    std::string gpu_names = gpus.front().available ? "" : "none (" + gpus.front().unavailable_reason + ")";
    for (const GpuInfo &each : gpus)
        if (each.available)
            gpu_names += (gpu_names.empty() ? "" : ", ") +
                         (gpus.size() > 1 ? std::to_string(each.device) + ": " : "") + each.name;
    if (plan.default_sweep && gpus.size() > 1 && plan.all_devices) gpu_names += " (every GPU here: the default sweep)";
    out << "gpubench " << build_context()["gpubench_version"].get<std::string>()
        << (gpus.size() > 1 ? " | GPUs: " : " | GPU: ") << gpu_names << " | CPU threads: " << plan.measure.cpu_threads
        << " | results: " << results.output << '\n';
    if (planned.shard)
        out << "shard " << shard_text(plan.shard->index, plan.shard->count) << " (" << plan.shard->source
            << "): " << planned.entries.size() << " of the sweep's " << planned.shard->planned.size()
            << " entries\n";
    if (const RankWorld &world = plan.measure.world; world.together())
        out << "rank " << world.rank << " of " << world.ranks << " (" << world.source
            << "): plugins that work across ranks measure each entry with all of them; they meet in "
            << world.folder << "\n";
    if (plan.rank_share)
        out << "this rank's share of the host: CPUs " << cpu_list_text(plan.rank_share->cpus) << " ("
            << plan.rank_share->basis << ")\n";
    out << '\n';
}

// What ranks launched together hold a failing exit at (shard_barrier.hpp), met beside the results
// file: the shards' barrier, or, for ranks that measure the same sweep, the same barrier over its
// entries (alike on every rank); nullptr for a run alone. Problems are warnings on stderr.
std::unique_ptr<ShardBarrier> start_barrier(const SweepPlan &plan, const PlannedEntries &planned,
                                            const std::string &output) {
    const RankWorld &world = plan.measure.world;
    if (!plan.shard && !world.together()) return nullptr;
    ShardSpec ranks{world.rank, world.ranks, world.source, true};
    nlohmann::json entries = nlohmann::json::array();  // the whole sweep's plan
    if (plan.shard) {
        ranks = *plan.shard;
        entries = plan.resumed ? plan.resumed->planned
                  : planned.shard ? nlohmann::json(planned.shard->planned)
                                  : nlohmann::json();
    } else {
        for (const SweepEntry &entry : planned.entries)
            entries.push_back({{"plugin", entry.plugin->name}, {"size", entry.size}, {"params", entry.params}});
    }
    if (!ranks.launched_ranks || ranks.count < 2) return nullptr;
    const EnvironmentLookup environment = process_environment();
    std::string problem;
    const BarrierTimes times = shard_barrier_times(environment, problem);
    if (!problem.empty()) std::cerr << "runner: warning: " << problem << '\n';
    const std::string job = launcher_job_identity(environment);
    ShardBarrier::Place place{shard_barrier_folder(output, shard_barrier_id(job, ranks.count, entries)),
                              ranks.index, ranks.count, job.empty(), plan.shard ? "shard" : "rank"};
    return std::make_unique<ShardBarrier>(std::move(place), times, std::cerr);
}

// The summary line below the table (or what an interruption left).
void print_sweep_summary(const SweepTally &tally, const SweepPlan &plan, int status, const SweepSetup &setup,
                         const std::string &output) {
    if (tally.interrupted) {
        std::cout << "\ninterrupted: the entries finished so far are in " << output
                  << "; runner --resume " << output << " (with the same options) continues\n";
        return;
    }
    std::cout << "\n" << tally.ok << " ok, " << tally.not_ok_text();
    if (tally.resumed) std::cout << " (" << tally.resumed << " of them already in the file)";
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup.started).count();
    std::cout << "; results written to " << output << " (" << format_seconds(took_s) << ")\n";
    if (tally.skipped && plan.shard && status == exit_ok)
        std::cout << "this shard exits with status 0: its skipped entries are recorded in " << output
                  << ", and runner merge reports them (exit status 3 there)\n";
}

// A shard's file (one with a "shard" record): its actual wall time, this process's `seconds`
// (from its start to its last entry's end) added to what the processes before it recorded
// (--resume). Throws std::runtime_error when the file cannot be written.
void record_shard_wall_time(ResultsFile &results, double seconds) {
    const nlohmann::json &document = results.document();
    if (!document.contains("shard")) return;
    const double before = document["shard"].value("actual_s", 0.0);
    results.set_field(nlohmann::json::json_pointer("/shard/actual_s"), before + seconds);
}

// Runs the sweep and prints its summary; returns the exit status. A shard's file then records
// its actual wall time, also when the sweep was interrupted.
int sweep_and_summarize(const SweepEntries &entries, const CommandLine &cli, const SweepPlan &plan,
                        const std::vector<GpuInfo> &gpus, ResultsFile &results, WorkerPool &pool,
                        const SweepSetup &setup, const std::string &output) {
    SweepTally tally;
    std::vector<WorkloadReport> answers;
    try {
        size_t params_width = 0;
        for (const SweepEntry &entry : entries) params_width = std::max(params_width, entry.params.size());
        ConsoleObserver console(cli.quiet, params_width);
        // --find-crossover under a budget: the rounds get what the sweep leaves of it.
        SweepSetup first = setup;
        if (cli.find_crossover) first.budget_s *= sweep_share_beside_crossover_search;
        tally = run_sweep(entries, plan.measure, gpus, results, pool, first, console);
        if (cli.find_crossover && !tally.interrupted) {
            const SweepTally more =
                search_crossovers(entries, plan.measure, gpus, results, pool, setup, console, std::cout);
            tally.ok += more.ok, tally.verification_failed += more.verification_failed, tally.errors += more.errors;
            tally.skipped += more.skipped, tally.interrupted = more.interrupted;
        }
        record_shard_wall_time(results, console.last_finished_s());
        if (!tally.interrupted && !plan.shard) {
            const std::vector<WorkloadReport> reports = report_so_far(results, output);
            if (!reports.empty()) record_answers(results, reports);
            answers = std::move(reports);
        }
        results.finish();  // interrupted or not: the document whole, the journal gone
    } catch (const std::exception &e) {  // the results file could not be written (a full disk)
        return fail(std::string(e.what()) + "; the entries recorded before are kept in " + output +
                        " (every runner command also reads its journal)",
                    exit_failed);
    }
    // A shard's skipped entries are not its failure: runner merge's status reports the sweep's.
    const int status =
        tally.interrupted ? exit_interrupted : sweep_exit_status(tally, tally.skipped && !plan.shard);
    print_sweep_summary(tally, plan, status, setup, output);
    print_answers(std::cout, answers);
    return status;
}

}  // namespace

// Ctrl-C ends the sweep after recording what is finished; the worker under way gets the
// same SIGINT from the terminal, or is killed by measure_in_worker.
void catch_stop_signals() {
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

bool stop_was_requested() { return stop_requested != 0; }

int measure_sweep(const CommandLine &cli, const SweepPlan &plan, PluginCatalog &catalog,
                  const std::vector<std::string> &command_line, std::chrono::steady_clock::time_point started) {
    const SweepSelection selection = select_sweep_plugins(cli, plan, catalog);
    WorkerLaunch launch = worker_launch(cli, plan.runner_file);
    const PlannedEntries planned = plan_entries(cli, plan, selection.plugins);
    std::vector<GpuInfo> gpus;  // the sweep's GPUs, described: cuda_device's first
    for (int device : selected_cuda_devices(plan.measure))
        gpus.push_back(gpus.empty() && selection.probed ? *selection.probed
                                                        : probe_runner_gpu(device, cli.reprobe_gpus));
    // The devices at idle, before a worker loads its plugin and creates its CUDA context beside them.
    const SweepEnergy energy = measure_idle_power(gpus.front());
    WorkerPool pool(launch);
    prestart_first_worker(pool, cli, plan, planned.entries);
    std::vector<DeviceIdentity> identities;
    for (const GpuInfo &gpu : gpus)
        if (gpu.available) identities.push_back(identity_of(gpu));
    pool.set_gpus(launch.gpus = identities);  // later workers are shown their GPUs by UUID
    std::optional<Roofline> roofline;  // the host's, measured once per machine, for CPU plugins
    if (std::ranges::any_of(selection.plugins, [](const PluginInfo *p) { return !p->is_cuda(); })) {
        roofline = host_roofline(host_peaks());
        pool.set_host_roofline(launch.host_roofline = *roofline);
    }
    // Ranks launched together meet in a folder of their job's; those of jobs gone for a day are removed.
    if (plan.measure.world.together()) remove_stale_siblings(plan.measure.world.folder);
    const SweepResults results = open_sweep_results(cli, plan, planned, gpus, roofline, energy, command_line);
    print_sweep_banner(std::cout, plan, planned, gpus, results);

    catch_stop_signals();
    const SweepSetup setup{.isolated = !cli.in_process, .launch = launch, .started = started,
                           .predicted_run_limit_s = plan.default_sweep ? 2.0 : 0, .budget_s = plan.budget_s};
    // Ranks started together hold a failing exit until the others are done (docs/scale-out.md).
    const std::unique_ptr<ShardBarrier> barrier = start_barrier(plan, planned, results.output);
    const int status =
        sweep_and_summarize(planned.entries, cli, plan, gpus, *results.file, pool, setup, results.output);
    return barrier ? barrier->finish(status, stop_was_requested, std::cout) : status;
}

}  // namespace gpubench
