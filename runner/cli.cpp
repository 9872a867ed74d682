#include "cli.hpp"

#include "child_process.hpp"
#include "host_resources.hpp"
#include "host_share.hpp"
#include "plugin_catalog.hpp"
#include "rank_world.hpp"
#include "sanitizer.hpp"
#include "sizes.hpp"
#include "text_format.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gpubench {

namespace po = boost::program_options;

namespace {

const char *epilogue = R"(
With neither --plugin nor --sizes (the default sweep): every plugin at its default sizes, at
most 1 s of samples per entry (unless --max-time), and sizes whose run() is predicted from the
plugin's previous size to take over 2 s are skipped with the prediction (--sizes runs them).
Also: runner report RESULTS.json... (tables, speedups, crossover),
      runner compare BASELINE.json CANDIDATE.json (regressions) and
      runner merge SHARD.json... --output FILE (the shards of one sweep); each has --help.
Sharded sweeps: --shard I/N measures the 0-based shard I of N of the sweep; every shard
computes the same partition, on any machine. --shard auto takes I and N from a Slurm job
array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT or _MAX, _STEP), else from the task's rank:
SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/_SIZE or PMI_RANK/PMI_SIZE. Then runner
merge joins the shards' files, and runner --resume MERGED.json measures what none delivered.
Sizes: 10,100,1e6 | 2^10..2^20 (powers of two) | 10..1e6:*10 | 100..1000:+100
Plugins are searched in --plugin-dir, then $GPUBENCH_PLUGIN_PATH (':'-separated absolute
paths; relative ones are ignored with a warning), then <runner's folder>/../lib/gpubench/plugins;
never the current directory. Each file is first scanned in a process of its own (the result
cached by file), so a file that crashes, exits, hangs or has a malformed descriptor is listed
as refused and nothing else is affected. Files and folders writable by others than their
owner (you or root) are refused.
Entries run in worker processes (one per plugin, replaced after a failure): a crash, exit()
or hang there is recorded for that entry and the sweep goes on. The results file is complete
after every entry;
Ctrl-C stops at once, and --resume FILE continues where it stopped.
Ranks launched together (mpirun, srun) without --shard each measure the whole sweep on their
own GPU, and a plugin that works across ranks (allreduce_nccl) measures each entry with all of
them at once: one process per GPU, across hosts, as nccl-tests does (docs/scale-out.md).
Exit status: 0 all entries verified, 1 a verification failed or a plugin error (crashes and
time-outs included), 2 bad input, 3 some requested entries were skipped (out of range, no
GPU, out of memory), 130 interrupted. Under --shard, skipped entries exit 0 (runner merge
reports them), and ranks started together (--shard auto from SLURM_PROCID, OMPI_COMM_WORLD_RANK,
PMI_RANK) wait for one another before exiting with a failure (docs/scale-out.md).
)";

uint64_t parse_seed(const std::string &text) {
    uint64_t seed = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        throw std::invalid_argument("--seed '" + text + "' is not a whole number from 0 to 2^64-1");
    return seed;
}

template <class T>
void require_at_least(const char *option, T value, T minimum) {
    if (value < minimum)
        throw std::invalid_argument(std::string("--") + option + " must be at least " +
                                    std::to_string(minimum));
}

// The options as typed, read into a CommandLine once they are checked.
struct TypedOptions {
    int threads = static_cast<int>(allowed_cpus().size());  // what taskset or a launcher left us
    std::string sizes, seed, shard, devices;
    std::vector<std::string> params;
    bool oversubscribe = false, no_stream_hold = false, no_device_trace = false,
         no_thread_audit = false, no_nvtx = false, profile = false;
    size_t runs = 1;
    double budget_s = 0;
    double rank_timeout_s = 60;
};

// What to run and where plugins are found. The three groups of options print in --help in
// the order they are added.
void add_selection_options(po::options_description &options, CommandLine &cli, TypedOptions &typed) {
    options.add_options()
        ("help,h", "show this help")
        ("version", "show the version")
        ("list,l", "list discovered plugins and refused files")
        ("format", po::value<std::string>(&cli.list_format)->default_value(cli.list_format),
         "--list's form: text (each plugin's status here, sizes, parameters, file) or markdown "
         "(a Markdown table of each plugin's name, language, device, sizes and description, "
         "the same on every machine: the one in docs/plugins.md)")
        ("plugin,p", po::value<std::vector<std::string>>(),
         "plugins to run: names, comma lists or globs ('matmul_*'); default: all available")
        ("sizes,s", po::value<std::string>(&typed.sizes),
         "sizes to run (see below); default: each plugin's default sizes")
        ("output,o", po::value<std::string>(&cli.output),
         "results file; default results/<host>-<timestamp>.json (-2, -3... when taken)")
        ("plugin-dir", po::value<std::vector<std::string>>(&cli.plugin_dirs),
         "extra plugin directory (repeatable)")
        ("allow-insecure-plugins", po::bool_switch(&cli.allow_insecure_plugins),
         "load plugin files and folders that users other than their owner and root can write "
         "(refused by default: a plugin runs with your rights)")
        ("scan-timeout", po::value<double>(&cli.scan_timeout_s)->default_value(cli.scan_timeout_s),
         "seconds a plugin file may take to load and describe itself in its scanner process "
         "(or to declare its work, for --shard)")
        ("rescan-plugins", po::bool_switch(&cli.rescan_plugins),
         "scan every plugin file again instead of trusting the scan cache")
        ("reprobe-gpus", po::bool_switch(&cli.reprobe_gpus),
         "ask CUDA about the GPUs again instead of trusting the GPU description cache (the "
         "answer is cached again)")
        ("param", po::value<std::vector<std::string>>(&typed.params),
         "plugin parameter key=value, or key=v1,v2,... to sweep its values (repeatable, one "
         "key each): each plugin is measured at every combination of the values of the keys "
         "it reads, in one results file; a key that no selected plugin reads is an error");
}

// How each entry is measured: threads, inputs, devices, sampling and its limits.
void add_measurement_options(po::options_description &options, MeasureOptions &m, TypedOptions &typed) {
    options.add_options()
        ("threads", po::value<int>(&typed.threads)->default_value(typed.threads),
         "CPU threads a CPU plugin may use (at most the host's logical cores, unless "
         "--oversubscribe)")
        ("oversubscribe", po::bool_switch(&typed.oversubscribe),
         "allow --threads above the host's logical cores")
        ("seed", po::value<std::string>(&typed.seed)->default_value(std::to_string(m.seed)),
         "input seed, a whole number from 0 to 2^64-1")
        ("device", po::value<int>(&m.cuda_device)->default_value(0), "CUDA device index")
        ("devices", po::value<std::string>(&typed.devices),
         "run on these CUDA devices at once: 0,1,... or all. Entries that take one GPU run "
         "concurrently, one worker per device, each entry on one device; CPU entries and "
         "plugins across several GPUs (allreduce_nccl) run alone, the latter on all of them")
        ("warmup", po::value<int>(&m.warmup_runs)->default_value(m.warmup_runs),
         "untimed warm-up cycles per entry")
        ("min-samples", po::value<size_t>(&m.min_samples)->default_value(m.min_samples),
         "fewest timed samples per entry")
        ("max-samples", po::value<size_t>(&m.max_samples)->default_value(m.max_samples),
         "most timed samples per entry")
        ("min-time", po::value<double>(&m.min_time_s)->default_value(m.min_time_s),
         "seconds of timed run() to collect per entry")
        ("max-noise", po::value<double>(&m.max_noise)->default_value(m.max_noise),
         "keep sampling until the median's relative standard error is below this "
         "(0.005 = 0.5%; 0: stop at --min-samples and --min-time)")
        ("max-time", po::value<double>(&m.max_time_s)->default_value(m.max_time_s),
         "seconds after which an entry stops sampling (it keeps >= 1 sample)")
        ("budget", po::value<double>(&typed.budget_s),
         "seconds the whole sweep should end within: before each entry, what is left is "
         "shared among the entries still to run, after their predicted starts and set-ups, and "
         "the entry's --max-time is cut to its part (default sweep: 150; 0: no budget)")
        ("cold", po::bool_switch(&m.cold),
         "flush the GPU's L2 cache before each timed run() (default: hot, inputs may be "
         "cached from the previous run)")
        ("no-stream-hold", po::bool_switch(&typed.no_stream_hold),
         "do not hold the GPU stream while run() enqueues: GPU times then include the host's "
         "path to the first launch and any gaps between launches")
        ("no-device-trace", po::bool_switch(&typed.no_device_trace),
         "do not trace the checked calls' device work with CUPTI (for a profiler that holds "
         "CUPTI itself): only work that outlives its span by ~100 us is then caught")
        ("no-thread-audit", po::bool_switch(&typed.no_thread_audit),
         "do not check that a CPU plugin's threads are done when run() returns (a library "
         "whose own pool wakes after the call would otherwise be refused)")
        ("counters", po::bool_switch(&m.counters),
         "after each entry's samples, one more run() whose hardware counters are read (a CPU "
         "entry's cycles, instructions and cache misses through perf_event_open); they are "
         "recorded as metrics, or the entry says why none could be read")
        ("no-nvtx", po::bool_switch(&typed.no_nvtx),
         "do not name each plugin call in an NVTX range (\"vecadd_cuda 1e+08 run\"), which "
         "profilers use to tell entries and phases apart")
        ("profile", po::bool_switch(&typed.profile),
         "a run for a profiler (docs/profiling.md): per entry one warm-up, then exactly --runs "
         "calls of run(), with no sampling rule, no stream hold, no audits and no per-launch "
         "samples; its entries are flagged 'profile', and compare and history refuse them")
        ("runs", po::value<size_t>(&typed.runs)->default_value(typed.runs),
         "--profile: the calls of run() per entry after the warm-up");
}

// --profile and --runs go together, and the sampling options --profile replaces are refused
// beside it (before their own checks: the conflict is the message).
void refuse_beside_profile(const po::variables_map &vm, const TypedOptions &typed) {
    if (!typed.profile && !vm["runs"].defaulted())
        throw std::invalid_argument("--runs counts the run() calls of --profile: it needs --profile");
    if (!typed.profile) return;
    for (const char *option : {"min-samples", "max-samples", "min-time", "max-time", "max-noise", "budget"})
        if (vm.count(option) && !vm[option].defaulted())
            throw std::invalid_argument(std::string("--profile makes exactly --runs calls of run(): --") + option +
                                        " has no place beside it");
}

// --profile: a fixed count of run() calls for a profiler and nothing else around them
// (docs/profiling.md); --no-nvtx.
void read_profile(const TypedOptions &typed, CommandLine &cli) {
    MeasureOptions &m = cli.measure;
    m.nvtx = !typed.no_nvtx;
    if (!typed.profile) return;
    require_at_least<size_t>("runs", typed.runs, 1);
    m.profile_runs = m.min_samples = m.max_samples = typed.runs;
    m.min_time_s = m.max_noise = 0;
    m.max_time_s = cli.timeout_s;  // no limit short of the entry's time-out
    m.hold_stream = m.audit_streams = m.trace_device = m.audit_threads = false;
}

// How entries run: time-outs, resuming, output, isolation, sanitizing and shards.
void add_run_options(po::options_description &options, CommandLine &cli, TypedOptions &typed) {
    options.add_options()
        ("timeout", po::value<double>(&cli.timeout_s)->default_value(cli.timeout_s),
         "seconds an entry may take in all (setup to teardown) before its worker is killed")
        ("resume", po::value<std::string>(&cli.resume),
         "continue this results file: keep its entries, measure only those it lacks "
         "(written back to it unless --output names another)")
        ("quiet,q", po::bool_switch(&cli.quiet),
         "print no table rows and no progress, only the summary (the results file is the same)")
        ("in-process", po::bool_switch(&cli.in_process),
         "measure in the runner's own process, not in workers (for a debugger; a crash "
         "then ends the sweep)")
        ("worker-per-entry", po::bool_switch(&cli.worker_per_entry),
         "a fresh worker process for every entry (default: one per plugin): no state a "
         "library keeps in its process carries from one size to the next, at the cost of "
         "the worker's start (and CUDA context) per entry")
        ("sanitize", po::value<std::string>(&cli.sanitize),
         "run each entry's worker under compute-sanitizer with this tool (memcheck, "
         "racecheck, initcheck or synccheck): entries with errors fail, and their times "
         "are marked not comparable (flag 'sanitized')")
        ("shard", po::value<std::string>(&typed.shard),
         "measure only shard I of N of the sweep: I/N, 0-based (0/4 ... 3/4), or auto (from "
         "Slurm's or MPI's variables, see below); the results file records the whole plan")
        ("shard-costs", po::value<std::string>(&cli.shard_costs),
         "balance the shards by each entry's wall time recorded in this earlier results file "
         "or history database (runner history add), the most recent one of each entry; "
         "entries it lacks are predicted (default: every entry predicted from the plugins' "
         "declared work); every shard must be given the same file")
        ("rank-dir", po::value<std::string>(&cli.rank_dir),
         "ranks launched together (mpirun, srun, without --shard): the folder, on a file system "
         "every rank reaches, that they meet in (default: the results file's)")
        ("rank-timeout", po::value<double>(&typed.rank_timeout_s)->default_value(typed.rank_timeout_s),
         "ranks launched together: seconds a rank waits for the others (at an entry's start, "
         "and for a collective's end) before the entry fails, naming the cause");
}

// --param's axes, each key once; the keys of one value are the sweep's own params.
void read_param_axes(const std::vector<std::string> &params, CommandLine &cli) {
    for (const std::string &p : params) {
        ParamAxis axis = parse_param_axis(p);
        for (const ParamAxis &earlier : cli.param_axes)
            if (earlier.key == axis.key)
                throw std::invalid_argument("--param " + axis.key +
                                            " is given twice: list its values in one, " + axis.key + "=a,b");
        // The sweep's own params: the keys of one value (entries record their own).
        if (axis.values.size() == 1)
            cli.measure.params += (cli.measure.params.empty() ? "" : ",") + axis.key + "=" + axis.values.front();
        cli.param_axes.push_back(std::move(axis));
    }
}

// What to run: --help, --version, --list (--format), --plugin, --sizes, --param, --seed.
void read_selection(const po::variables_map &vm, const TypedOptions &typed, CommandLine &cli) {
    cli.help = vm.count("help") > 0;
    cli.max_time_given = vm.count("max-time") && !vm["max-time"].defaulted();
    cli.version = vm.count("version") > 0;
    cli.list = vm.count("list") > 0;
    if (cli.list_format != "text" && cli.list_format != "markdown")
        throw std::invalid_argument("--format '" + cli.list_format + "' is not text or markdown");
    if (!cli.list && !vm["format"].defaulted())
        throw std::invalid_argument("--format chooses the form of --list: it needs --list");
    if (vm.count("plugin"))
        for (const std::string &arg : vm["plugin"].as<std::vector<std::string>>())
            for (const std::string &pattern : split_list(arg)) cli.plugin_patterns.push_back(pattern);
    if (vm.count("sizes")) cli.sizes = parse_sizes(typed.sizes);
    read_param_axes(typed.params, cli);
    cli.measure.seed = parse_seed(typed.seed);
}

// The numbers: finite, and in range.
void check_numbers(const po::variables_map &vm, const TypedOptions &typed, CommandLine &cli) {
    MeasureOptions &m = cli.measure;
    for (const auto &[name, value] : {std::pair<const char *, double>{"min-time", m.min_time_s},
                                      {"max-time", m.max_time_s},
                                      {"budget", typed.budget_s},
                                      {"max-noise", m.max_noise},
                                      {"timeout", cli.timeout_s},
                                      {"scan-timeout", cli.scan_timeout_s},
                                      {"rank-timeout", typed.rank_timeout_s}})
        if (!std::isfinite(value))
            throw std::invalid_argument(std::string("--") + name + " must be a finite number");
    if (m.max_noise >= 1)
        throw std::invalid_argument("--max-noise is a fraction below 1 (0.005 = 0.5%)");
    m.hold_stream = !typed.no_stream_hold;
    m.trace_device = !typed.no_device_trace;
    m.audit_threads = !typed.no_thread_audit;
    if (typed.threads > static_cast<int>(logical_cores()) && !typed.oversubscribe)
        throw std::invalid_argument("--threads " + std::to_string(typed.threads) + " is more than the " +
                                    std::to_string(logical_cores()) +
                                    " logical cores of this host (--oversubscribe allows it)");
    require_at_least("threads", typed.threads, 1);
    require_at_least("warmup", m.warmup_runs, 0);
    require_at_least<size_t>("min-samples", m.min_samples, 1);
    require_at_least<size_t>("max-samples", m.max_samples, m.min_samples);
    require_at_least("min-time", m.min_time_s, 0.0);
    require_at_least("max-time", m.max_time_s, 0.0);
    require_at_least("max-noise", m.max_noise, 0.0);
    require_at_least("budget", typed.budget_s, 0.0);
    if (vm.count("budget")) cli.budget_s = typed.budget_s;
    if (!(cli.timeout_s > 0)) throw std::invalid_argument("--timeout must be above 0");
    if (!(cli.scan_timeout_s > 0)) throw std::invalid_argument("--scan-timeout must be above 0");
}

// Where entries run: --sanitize, --shard, --device(s), --threads, and what goes with what.
void read_placement(const po::variables_map &vm, const TypedOptions &typed, CommandLine &cli) {
    if (!cli.sanitize.empty() && !sanitizer_tool_from_string(cli.sanitize))
        throw std::invalid_argument("--sanitize '" + cli.sanitize +
                                    "' is not one of memcheck, racecheck, initcheck, synccheck");
    if (!cli.sanitize.empty() && cli.in_process)
        throw std::invalid_argument("--sanitize runs workers: it cannot go with --in-process");
    if (vm.count("shard")) cli.shard = parse_shard_option(typed.shard, process_environment());
    if (!cli.shard_costs.empty() && !cli.shard)
        throw std::invalid_argument("--shard-costs balances shards: it needs --shard");
    cli.device_given = !vm["device"].defaulted();
    cli.threads_given = !vm["threads"].defaulted();
    if (vm.count("devices")) {
        if (!vm["device"].defaulted())
            throw std::invalid_argument("--device and --devices both choose GPUs: give one");
        if (cli.in_process)
            throw std::invalid_argument("--devices runs a worker per GPU: it cannot go with --in-process");
        if (trim(typed.devices) == "all")
            cli.all_devices = true;
        else
            cli.devices = parse_device_list(typed.devices);
    }
    cli.measure.cpu_threads = typed.threads;
}

// Ranks launched together without --shard (rank_world.hpp), and what goes with them: their
// folder and time-out, and no --budget (each rank's own clock would skip other entries). The
// rank options are checked alone too (one script may start ranks or a single run), and have no
// effect there (the sweep notes it).
void read_world(const po::variables_map &vm, const TypedOptions &typed, CommandLine &cli) {
    if (!(typed.rank_timeout_s > 0)) throw std::invalid_argument("--rank-timeout must be above 0");
    if (typed.rank_timeout_s > 1e6) throw std::invalid_argument("--rank-timeout must be at most 1e6 seconds");
    if (vm.count("rank-dir") && cli.rank_dir.empty()) throw std::invalid_argument("--rank-dir is empty");
    cli.rank_options_given = vm.count("rank-dir") || !vm["rank-timeout"].defaulted();
    const std::optional<RankWorld> world = launched_world(process_environment(), cli.shard.has_value());
    if (!world) return;
    if (cli.budget_s && *cli.budget_s > 0)
        throw std::invalid_argument("--budget: ranks launched together (" + world->source +
                                    ") measure the same entries, and a budget would skip others on each "
                                    "rank's own clock; drop it, or split the sweep with --shard");
    cli.measure.world = *world;
    cli.measure.world.timeout_s = typed.rank_timeout_s;
}

}  // namespace

int fail(const std::string &message, int status) {
    std::cerr << "runner: error: " << message << '\n';
    return status;
}

CommandLine parse_command_line(int argc, const char *const *argv) {
    CommandLine cli;
    TypedOptions typed;
    po::options_description options("Usage: runner [options]\nOptions");
    add_selection_options(options, cli, typed);
    add_measurement_options(options, cli.measure, typed);
    add_run_options(options, cli, typed);
    po::options_description all;
    all.add(options);
    std::ostringstream usage;
    usage << options << epilogue;
    cli.usage = usage.str();

    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).run(), vm);
        po::notify(vm);
    } catch (const po::error &e) {
        throw std::invalid_argument(e.what());
    }
    read_selection(vm, typed, cli);
    refuse_beside_profile(vm, typed);
    check_numbers(vm, typed, cli);
    read_profile(typed, cli);
    read_placement(vm, typed, cli);
    read_world(vm, typed, cli);
    return cli;
}

ParamAxis parse_param_axis(const std::string &text) {
    // Trimmed: ' dtype=float64' is the key the user meant, never a key of its own.
    const size_t eq = text.find('=');
    ParamAxis axis{eq == std::string::npos ? "" : trim(text.substr(0, eq)), {}};
    if (axis.key.empty()) throw std::invalid_argument("--param '" + text + "' is not key=value");
    if (axis.key.find_first_of(" \t=,") != std::string::npos)
        throw std::invalid_argument("--param '" + text + "': a key has no spaces or commas");
    const std::string values = text.substr(eq + 1);
    for (size_t begin = 0;;) {  // not split_list: it would drop an empty value silently
        const size_t end = std::min(values.find(',', begin), values.size());
        std::string value = trim(values.substr(begin, end - begin));
        if (value.empty())
            throw std::invalid_argument("--param '" + text + "': an empty value (key=value or key=v1,v2)");
        if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end())
            throw std::invalid_argument("--param '" + text + "': the value '" + value + "' is listed twice");
        axis.values.push_back(std::move(value));
        if (end == values.size()) break;
        begin = end + 1;
    }
    return axis;
}

nlohmann::json param_axes_json(const ParamAxes &axes) {
    nlohmann::json json = nlohmann::json::object();
    for (const ParamAxis &axis : axes) json[axis.key] = axis.values;
    return json;
}

std::string param_keys(const ParamAxes &axes) {
    std::string keys;
    for (const ParamAxis &axis : axes) keys += (keys.empty() ? "" : ",") + axis.key + "=";
    return keys;
}

std::vector<int> parse_device_list(const std::string &text) {
    std::vector<int> devices;
    for (const std::string &item : split_list(text)) {
        const std::string word = trim(item);
        int device = -1;
        if (!parse_small_int(word.c_str(), device) || device < 0 || device > 1023)
            throw std::invalid_argument("--devices '" + text + "': '" + word +
                                        "' is not a CUDA device index (0, 1, ...) or all");
        if (std::find(devices.begin(), devices.end(), device) != devices.end())
            throw std::invalid_argument("--devices '" + text + "': device " + word +
                                        " is listed twice");
        devices.push_back(device);
    }
    if (devices.empty()) throw std::invalid_argument("--devices needs a device list or all");
    return devices;
}

}  // namespace gpubench
