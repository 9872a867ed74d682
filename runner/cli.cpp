#include "cli.hpp"

#include "child_process.hpp"
#include "host_resources.hpp"
#include "host_share.hpp"
#include "rank_world.hpp"
#include "runner_options.hpp"
#include "sanitizer.hpp"
#include "text_format.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

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
    std::string sizes, seed = std::to_string(MeasureOptions{}.seed), shard, devices;
    std::vector<std::string> plugins, params;
    bool oversubscribe = false, no_stream_hold = false, no_device_trace = false,
         no_thread_audit = false, no_nvtx = false, profile = false;
    size_t runs = 1;
    double budget_s = 0;
    double rank_timeout_s = 60;
};

// Where a row of the option table (runner_options.hpp) is parsed into, made for its row: its
// value's name, and its default as the table prints it, which must be the member's own.
using Binding = std::function<po::value_semantic *(const RunnerOption &)>;

template <class T>
Binding value_into(T &member) {
    return [&member](const RunnerOption &row) -> po::value_semantic * {
        po::typed_value<T> *value = po::value<T>(&member)->value_name(row.value_name);
        if (!*row.default_text) return value;
        std::ostringstream member_default;
        member_default << member;
        if (member_default.str() != row.default_text)
            throw std::logic_error("--" + long_flag(row) + " defaults to " + member_default.str() +
                                   ", its row in the option table says " + row.default_text);
        return value->default_value(member, row.default_text);
    };
}
Binding list_into(std::vector<std::string> &member) {
    return [&member](const RunnerOption &row) { return po::value(&member)->value_name(row.value_name); };
}
Binding switch_into(bool &member) { return [&member](const RunnerOption &) { return po::bool_switch(&member); }; }
// A default that is this machine's (--threads): printed as it is here.
Binding machine_default_into(int &member) {
    return [&member](const RunnerOption &row) {
        return po::value(&member)->value_name(row.value_name)->default_value(member);
    };
}

// Each flag's member; none for a flag without a value (--help, --version, --list).
std::map<std::string, Binding> bindings(CommandLine &cli, TypedOptions &typed) {
    MeasureOptions &m = cli.measure;
    return {{"help", nullptr}, {"version", nullptr}, {"list", nullptr},
            {"format", value_into(cli.list_format)},
            {"plugin", list_into(typed.plugins)},
            {"sizes", value_into(typed.sizes)}, {"output", value_into(cli.output)},
            {"plugin-dir", list_into(cli.plugin_dirs)},
            {"allow-insecure-plugins", switch_into(cli.allow_insecure_plugins)},
            {"scan-timeout", value_into(cli.scan_timeout_s)},
            {"rescan-plugins", switch_into(cli.rescan_plugins)},
            {"reprobe-gpus", switch_into(cli.reprobe_gpus)},
            {"param", list_into(typed.params)},
            {"threads", machine_default_into(typed.threads)},
            {"oversubscribe", switch_into(typed.oversubscribe)},
            {"seed", value_into(typed.seed)},
            {"device", value_into(m.cuda_device)},
            {"devices", value_into(typed.devices)},
            {"warmup", value_into(m.warmup_runs)},
            {"min-samples", value_into(m.min_samples)}, {"max-samples", value_into(m.max_samples)},
            {"min-time", value_into(m.min_time_s)},
            {"max-noise", value_into(m.max_noise)},
            {"max-time", value_into(m.max_time_s)},
            {"budget", value_into(typed.budget_s)},
            {"find-crossover", switch_into(cli.find_crossover)},
            {"cold", switch_into(m.cold)},
            {"no-stream-hold", switch_into(typed.no_stream_hold)},
            {"no-device-trace", switch_into(typed.no_device_trace)},
            {"no-thread-audit", switch_into(typed.no_thread_audit)},
            {"counters", switch_into(m.counters)},
            {"no-nvtx", switch_into(typed.no_nvtx)},
            {"profile", switch_into(typed.profile)},
            {"runs", value_into(typed.runs)},
            {"timeout", value_into(cli.timeout_s)},
            {"resume", value_into(cli.resume)},
            {"quiet", switch_into(cli.quiet)},
            {"in-process", switch_into(cli.in_process)}, {"worker-per-entry", switch_into(cli.worker_per_entry)},
            {"sanitize", value_into(cli.sanitize)},
            {"shard", value_into(typed.shard)}, {"shard-costs", value_into(cli.shard_costs)},
            {"rank-dir", value_into(cli.rank_dir)}, {"rank-timeout", value_into(typed.rank_timeout_s)}};
}

// The table's flags, in its order (--help's), each bound to its member; a flag without one,
// or a member without its flag, is the table and this file disagreeing.
void declare_options(po::options_description &options, CommandLine &cli, TypedOptions &typed) {
    const std::map<std::string, Binding> bound = bindings(cli, typed);
    size_t flags = 0;
    for (const RunnerOption &row : runner_options()) {
        if (!*row.flag) continue;
        ++flags;
        const auto binding = bound.find(long_flag(row));
        if (binding == bound.end())
            throw std::logic_error("--" + long_flag(row) + " of the option table has no member in runner/cli.cpp");
        if (binding->second) options.add_options()(row.flag, binding->second(row), row.help);
        else options.add_options()(row.flag, row.help);
    }
    if (flags != bound.size()) throw std::logic_error("runner/cli.cpp binds a flag the option table lacks");
}

// --profile and --runs go together, and the sampling options --profile replaces are refused
// beside it (before their own checks: the conflict is the message).
void refuse_beside_profile(const po::variables_map &vm, const TypedOptions &typed) {
    if (!typed.profile && !vm["runs"].defaulted())
        throw std::invalid_argument("--runs counts the run() calls of --profile: it needs --profile");
    if (!typed.profile) return;
    for (const char *option : {"min-samples", "max-samples", "min-time", "max-time", "max-noise", "budget",
                               "find-crossover"})
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

// --param's "key=value[,value...]" as an axis; throws std::invalid_argument naming an empty
// key or value, a key with spaces, or a value given twice.
ParamAxis parse_param_axis(const std::string &text) {
    // Trimmed: ' dtype=float64' is the key the user meant, never a key of its own.
    const size_t eq = text.find('=');
    ParamAxis axis{eq == std::string::npos ? "" : trim(text.substr(0, eq)), {}};
    if (axis.key.empty()) throw std::invalid_argument("--param '" + text + "' is not key=value");
    if (axis.key.find_first_of(" \t=,") != std::string::npos)
        throw std::invalid_argument("--param '" + text + "': a key has no spaces or commas");
    for (std::string &value : split_list(text.substr(eq + 1), ',', true)) {  // empty values kept, to be refused
        if (value.empty())
            throw std::invalid_argument("--param '" + text + "': an empty value (key=value or key=v1,v2)");
        if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end())
            throw std::invalid_argument("--param '" + text + "': the value '" + value + "' is listed twice");
        axis.values.push_back(std::move(value));
    }
    if (axis.values.size() > 1 && std::count(axis.values.begin(), axis.values.end(), "*"))
        throw std::invalid_argument("--param '" + text + "': '*' (every declared value) stands alone");
    return axis;
}

// --param's axes, each key once; the keys of one value are the sweep's own params.
void read_param_axes(const std::vector<std::string> &params, CommandLine &cli) {
    for (const std::string &p : params) {
        ParamAxis axis = parse_param_axis(p);
        for (const ParamAxis &earlier : cli.param_axes)
            if (earlier.key == axis.key)
                throw std::invalid_argument("--param " + axis.key +
                                            " is given twice: list its values in one, " + axis.key + "=a,b");
        if (axis.values.size() == 1 && axis.values.front() != "*")
            cli.measure.params += (cli.measure.params.empty() ? "" : ",") + axis.key + "=" + axis.values.front();
        cli.param_axes.push_back(std::move(axis));
    }
}

// What to run: --help, --version, --list (--format: the form of either), --plugin, --sizes, --param, --seed.
void read_selection(const po::variables_map &vm, const TypedOptions &typed, CommandLine &cli) {
    cli.help = vm.count("help") > 0;
    cli.max_time_given = vm.count("max-time") && !vm["max-time"].defaulted();
    cli.version = vm.count("version") > 0;
    cli.list = vm.count("list") > 0;
    if (cli.list_format != "text" && cli.list_format != "markdown")
        throw std::invalid_argument("--format '" + cli.list_format + "' is not text or markdown");
    if (!cli.list && !cli.help && !vm["format"].defaulted())
        throw std::invalid_argument("--format chooses the form of --list or --help: it needs one of them");
    for (const std::string &arg : typed.plugins)
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

// "0,2,3" as device indices; throws std::invalid_argument naming a bad or repeated one.
std::vector<int> parse_device_list(const std::string &text) {
    std::vector<int> devices;
    for (const std::string &word : split_list(text)) {
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
    if (cli.find_crossover && cli.shard)
        throw std::invalid_argument("--find-crossover chooses sizes from the whole sweep's entries: it cannot go "
                                    "with --shard, which measures a part of them");
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
    if (cli.find_crossover)
        throw std::invalid_argument("--find-crossover: ranks launched together (" + world->source +
                                    ") would each choose sizes from their own clock's entries; run it alone");
    if (cli.budget_s && *cli.budget_s > 0)
        throw std::invalid_argument("--budget: ranks launched together (" + world->source +
                                    ") measure the same entries, and a budget would skip others on each "
                                    "rank's own clock; drop it, or split the sweep with --shard");
    cli.measure.world = *world;
    cli.measure.world.timeout_s = typed.rank_timeout_s;
}

}  // namespace

int sweep_exit_status(const StatusTally &entries, bool skipped) {
    if (entries.any_failed()) return exit_failed;
    return skipped ? exit_skipped : exit_ok;
}

int fail(const std::string &message, int status) {
    std::cerr << "runner: error: " << message << '\n';
    return status;
}

CommandLine parse_command_line(int argc, const char *const *argv) {
    CommandLine cli;
    TypedOptions typed;
    po::options_description options("Usage: runner [options]\nOptions");
    declare_options(options, cli, typed);
    std::ostringstream usage;
    usage << options << epilogue;
    cli.usage = usage.str();

    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
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

nlohmann::json param_axes_json(const ParamAxes &axes) {
    nlohmann::json json = nlohmann::json::object();
    for (const ParamAxis &axis : axes) json[axis.key] = axis.values;
    return json;
}

}  // namespace gpubench
