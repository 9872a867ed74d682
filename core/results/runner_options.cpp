#include "runner_options.hpp"

#include <gpubench/plugin.h>

#include <regex>

// "1.10": the plugin ABI as text, for --version's example.
#define GPUBENCH_NUMBER_TEXT_(number) #number
#define GPUBENCH_NUMBER_TEXT(number) GPUBENCH_NUMBER_TEXT_(number)
#define GPUBENCH_ABI_TEXT GPUBENCH_NUMBER_TEXT(GPUBENCH_ABI_MAJOR) "." GPUBENCH_NUMBER_TEXT(GPUBENCH_ABI_MINOR)

namespace gpubench {

namespace {

// The table itself: a row per option, in --help's order, then the keys only recorded.
const RunnerOption rows[] = {
    // What to run and where plugins are found.
    {"", "help,h", "", "", "show this help (with --format markdown: the options as a Markdown table)",
     "show the help and exit; with `--format markdown`, this table"},
    {"", "version", "", "", "show the version",
     "the version, git revision and plugin ABI: `gpubench runner 0.1.0 (471c611198bf-dirty), plugin ABI "
     GPUBENCH_ABI_TEXT "`"},
    {"", "list,l", "", "", "list discovered plugins and refused files",
     "list the discovered plugins and the refused files ([above](#listing-plugins))"},
    {"", "format", "F", "text",
     "--list's and --help's form: text, or markdown: for --list a Markdown table of each plugin's name, "
     "language, device, sizes and description, the same on every machine (the one in docs/plugins.md); "
     "for --help the options as a Markdown table (the one in docs/user-guide.md)",
     "with `--list` or `--help`: `text` or `markdown`, the plugins' descriptors as one Markdown table "
     "([above](#listing-plugins)), or this table of options"},
    {"", "plugin,p", "P", "", "plugins to run: names, comma lists or globs ('matmul_*'); default: all available",
     "plugins to run: names, comma lists and globs (`'matmul_*'`), repeatable; default: every available plugin"},
    {"", "sizes,s", "S", "", "sizes to run (see below); default: each plugin's default sizes",
     "sizes to run ([below](#sizes)); default: each plugin's default sizes"},
    {"", "output,o", "F", "", "results file; default results/<host>-<timestamp>.json (-2, -3... when taken)",
     "the results file; default `results/<host>-<timestamp>.json` (`-2`, `-3`… added when another runner "
     "took that name in the same second; a shard's ends in `-shard-<I>of<N>`, a rank's of ranks launched "
     "together in `-rank-<r>of<n>`)"},
    {"", "plugin-dir", "D", "", "extra plugin directory (repeatable)",
     "an extra plugin folder, repeatable ([below](#where-plugins-are-found))"},
    {"", "allow-insecure-plugins", "", "",
     "load plugin files and folders that users other than their owner and root can write (refused by "
     "default: a plugin runs with your rights)",
     "load plugin files and folders that users other than their owner (you or root) can write; refused by "
     "default, since a plugin runs with your rights"},
    {"", "scan-timeout", "S", "10",
     "seconds a plugin file may take to load and describe itself in its scanner process (or to declare its "
     "work, for --shard)",
     "seconds a plugin file may take to load and describe itself in its scanner process, or to declare its "
     "work for `--shard`"},
    {"", "rescan-plugins", "", "", "scan every plugin file again instead of trusting the scan cache",
     "scan every plugin file again instead of trusting the scan cache"},
    {"", "reprobe-gpus", "", "",
     "ask CUDA about the GPUs again instead of trusting the GPU description cache (the answer is cached again)",
     "ask CUDA about the GPUs again instead of trusting the [GPU description cache](#the-gpus-descriptions) "
     "(the answer is cached again)"},
    {"param_axes", "param", "k=v", "",
     "plugin parameter key=value, or key=v1,v2,... to sweep its values (repeatable, one key each): each "
     "plugin is measured at every combination of the values of the keys it reads, in one results file; a "
     "key that no selected plugin reads, or a value outside a plugin's declared ones, is an error; key=* "
     "sweeps every value of a declared choice",
     "a plugin parameter, repeatable, passed to every selected plugin; a key that no selected plugin reads is "
     "refused ([parameters](#parameters)); `k=v1,v2` sweeps several values ([parameter "
     "axes](#parameter-axes)), `k=*` every value of a declared choice; a value outside a plugin's declaration is "
     "refused; recorded as each key with its values"},
    // How each entry is measured: threads, inputs, devices, sampling and its limits.
    {"cpu_threads", "threads", "N", "",
     "CPU threads a CPU plugin may use (at most the host's logical cores, unless --oversubscribe)",
     "CPU threads a CPU plugin may use (default: the logical CPUs this process may run on, which taskset, a "
     "cgroup or an MPI launcher's binding may narrow; at most the host's logical cores unless "
     "`--oversubscribe`)"},
    {"", "oversubscribe", "", "", "allow --threads above the host's logical cores",
     "allow `--threads` above the host's logical cores"},
    {"seed", "seed", "N", "42", "input seed, a whole number from 0 to 2^64-1",
     "seed of every plugin's deterministic inputs, a whole number from 0 to 2⁶⁴−1"},
    {"cuda_device", "device", "N", "0", "CUDA device index",
     "the CUDA device (the default sweep takes every GPU of a host with several unless `--device` or "
     "`--devices` is given)"},
    {"cuda_devices", "devices", "L", "",
     "run on these CUDA devices at once: 0,1,... or all. Entries that take one GPU run concurrently, one "
     "worker per device, each entry on one device; CPU entries and plugins across several GPUs "
     "(allreduce_nccl) run alone, the latter on all of them",
     "run on several CUDA devices at once: `0,1,...` or `all`; each device's lane gets its own share of the "
     "host's CPUs (`--threads` at most its share), while CPU plugins and plugins across GPUs run alone with "
     "every core ([scale-out.md](scale-out.md#every-gpu-of-a-host---devices)); recorded empty for "
     "`--device` alone"},
    {"warmup_runs", "warmup", "N", "1", "untimed warm-up cycles per entry", "untimed warm-up cycles per entry"},
    {"min_samples", "min-samples", "N", "10", "fewest timed samples per entry", "fewest timed samples per entry"},
    {"max_samples", "max-samples", "N", "1000", "most timed samples per entry", "most timed samples per entry"},
    {"min_time_s", "min-time", "S", "0.5", "seconds of timed run() to collect per entry",
     "seconds of timed `run()` to collect per entry"},
    {"max_noise", "max-noise", "F", "0.005",
     "keep sampling until the median's relative standard error is below this (0.005 = 0.5%; 0: stop at "
     "--min-samples and --min-time)",
     "keep sampling until the median's relative standard error is below F (0.005 = 0.5%; 0 turns the "
     "criterion off: stop at `--min-samples` and `--min-time`)"},
    {"max_time_s", "max-time", "S", "10", "seconds after which an entry stops sampling (it keeps >= 1 sample)",
     "seconds after which an entry stops sampling, keeping at least one sample (1 in the default sweep); an "
     "entry stopped before `--max-noise` was met is flagged `noisy`"},
    {"budget_s", "budget", "S", "",
     "seconds the whole sweep should end within: before each entry, what is left is shared among the "
     "entries still to run, after their predicted starts and set-ups, and the entry's --max-time is cut to "
     "its part (default sweep: 150; 0: no budget)",
     "seconds the whole sweep should end within: before each entry, what is left is shared among the "
     "entries still to run, and the entry's `--max-time` is cut to its part ([the budget of a "
     "sweep](user-guide.md#the-budget-of-a-sweep); default sweep: 150; 0: none)"},
    {"find_crossover", "find-crossover", "", "",
     "after the sweep, measure each workload's CPU and GPU backends at sizes between those that bracket a "
     "crossover (or within a near tie's reach), in rounds, until its 95% interval is within 25% of it, or the "
     "budget or 8 rounds run out",
     "after the sweep, measure each workload's CPU and GPU backends at sizes between those that bracket a "
     "crossover (or within a near tie's reach), in rounds, until its 95% interval is within 25% of it, or the "
     "budget or 8 rounds run out ([the answer](user-guide.md#the-answer))"},
    {"cold", "cold", "", "",
     "flush the GPU's L2 cache before each timed run() (default: hot, inputs may be cached from the "
     "previous run)",
     "flush the GPU's L2 cache before each timed `run()` (false: hot, inputs may be cached from the "
     "previous run)"},
    {"hold_stream", "no-stream-hold", "", "",
     "do not hold the GPU stream while run() enqueues: GPU times then include the host's path to the "
     "first launch and any gaps between launches",
     "turns off holding the GPU stream while `run()` enqueues (recorded `hold_stream`: false, as under "
     "`--sanitize` and `--profile`): GPU times then include the host's path to the first launch and the "
     "gaps between launches "
     "([measurement.md](measurement.md#device-time-alone-the-held-stream))"},
    {"trace_device", "no-device-trace", "", "",
     "do not trace the checked calls' device work with CUPTI (for a profiler that holds CUPTI itself): only "
     "work that outlives its span by ~100 us is then caught",
     "turns off tracing the checked calls' device work with CUPTI (recorded `trace_device`: false, as "
     "under `--profile`), for a profiler that holds CUPTI itself: only work that outlives its span by "
     "~100 µs is then caught "
     "([measurement.md](measurement.md#checks-on-every-entry))"},
    {"audit_threads", "no-thread-audit", "", "",
     "do not check that a CPU plugin's threads are done when run() returns (a library whose own pool wakes "
     "after the call would otherwise be refused)",
     "turns off the check that a CPU plugin's threads are done when `run()` returns (recorded "
     "`audit_threads`: false, as under `--profile`), for a library whose own pool wakes after the call "
     "and is refused wrongly "
     "([measurement.md](measurement.md#checks-on-every-entry))"},
    {"counters", "counters", "", "",
     "after each entry's samples, one more run() whose hardware counters are read (a CPU entry's cycles, "
     "instructions and cache misses through perf_event_open); they are recorded as metrics, or the entry "
     "says why none could be read. Under a budget, each series' smallest and largest size alone",
     "after each entry's samples, one more `run()` whose hardware counters are read and recorded as "
     "measured metrics; where none can be read, the entry says why in one line. Under a budget (the "
     "default sweep's), only each series' smallest and largest size are counted "
     "([profiling.md](profiling.md#hardware-counters---counters))"},
    {"nvtx", "no-nvtx", "", "",
     "do not name each plugin call in an NVTX range (\"vecadd_cuda 1e+08 run\"), which profilers use to "
     "tell entries and phases apart",
     "turns off naming each plugin call in an NVTX range (`vecadd_cuda 1e+08 run`; recorded `nvtx`: "
     "false), which profilers use to tell entries and phases apart "
     "([profiling.md](profiling.md#nvtx-ranges))"},
    {"", "profile", "", "",
     "a run for a profiler (docs/profiling.md): per entry one warm-up, then exactly --runs calls of run(), "
     "with no sampling rule, no stream hold, no audits and no per-launch samples; its entries are flagged "
     "'profile', and compare and history refuse them",
     "a run for a profiler: per entry one warm-up (`--warmup`), then exactly `--runs` calls of `run()`, "
     "with no sampling rule, no stream hold, no audits and no per-launch samples; entries are flagged "
     "`profile`, and `compare` and `history add` refuse them "
     "([profiling.md](profiling.md#--profile-a-fixed-count-of-calls))"},
    {"profile_runs", "runs", "N", "1", "--profile: the calls of run() per entry after the warm-up",
     "with `--profile`: the calls of `run()` per entry after the warm-up (recorded 0 without `--profile`: "
     "the sampling rule decides)"},
    // How entries run: time-outs, resuming, output, isolation, sanitizing and shards.
    {"timeout_s", "timeout", "S", "600",
     "seconds an entry may take in all (setup to teardown) before its worker is killed",
     "seconds an entry may take in all, setup to teardown, before its worker is killed"},
    {"", "resume", "FILE", "",
     "continue this results file: keep its entries, measure only those it lacks (written back to it unless "
     "--output names another)",
     "continue FILE: keep its entries, measure only those it lacks, write back to FILE (or to `--output`)"},
    {"", "quiet,q", "", "",
     "print no table rows and no progress, only the summary (the results file is the same)",
     "no rows and no progress, only the summary line (the results file is the same)"},
    {"", "in-process", "", "",
     "measure in the runner's own process, not in workers (for a debugger; a crash then ends the sweep)",
     "measure in the runner's own process, not in workers (for a debugger; a crash then ends the sweep)"},
    {"", "worker-per-entry", "", "",
     "a fresh worker process for every entry (default: one per plugin): no state a library keeps in its "
     "process carries from one size to the next, at the cost of the worker's start (and CUDA context) per "
     "entry",
     "a fresh worker process for every entry instead of one per plugin: no state a library keeps in its "
     "process carries from one size to the next, at the cost of a worker start (and CUDA context) per "
     "entry ([measurement.md](measurement.md#workers))"},
    {"sanitize", "sanitize", "TOOL", "",
     "run each entry's worker under compute-sanitizer with this tool (memcheck, racecheck, initcheck or "
     "synccheck): entries with errors fail, and their times are marked not comparable (flag 'sanitized')",
     "run each entry's worker under compute-sanitizer (`memcheck`, `racecheck`, `initcheck`, `synccheck`): "
     "entries with errors fail, and all are flagged `sanitized`"},
    {"", "shard", "I/N", "",
     "measure only shard I of N of the sweep: I/N, 0-based (0/4 ... 3/4), or auto (from Slurm's or MPI's "
     "variables, see below); the results file records the whole plan",
     "measure only shard I of N of the sweep, 0-based (`0/4` … `3/4`); `auto` takes I and N from Slurm's or "
     "MPI's variables ([scale-out.md](scale-out.md#sharded-sweeps-slurm-mpi-ci))"},
    {"", "shard-costs", "F", "",
     "balance the shards by each entry's wall time recorded in this earlier results file or history "
     "database (runner history add), the most recent one of each entry; entries it lacks are predicted "
     "(default: ranks all on this host use its newest earlier sweep in the results folder that records "
     "every entry, else every entry is predicted from the plugins' declared work); every shard must be "
     "given the same file",
     "balance the shards by the entries' wall times recorded in F: an earlier results file, or a history "
     "database (`runner history add`; the most recent of each entry); entries F lacks are predicted "
     "(default: ranks that the launcher put all on this host use its newest earlier sweep in the results "
     "folder that records every entry, else every entry is predicted from the plugins' declared work); "
     "give every shard the same file ([how costs are chosen](scale-out.md#sharded-sweeps-slurm-mpi-ci))"},
    {"", "rank-dir", "D", "",
     "ranks launched together (mpirun, srun, without --shard): the folder, on a file system every rank "
     "reaches, that they meet in (default: the results file's)",
     "ranks launched together (mpirun, srun, without `--shard`: each measures the whole sweep, and "
     "`allreduce_nccl` measures across them): the folder, on a file system every rank reaches, where they "
     "meet (default: the results file's) ([scale-out.md](scale-out.md#one-rank-per-gpu-mpirun-and-srun))"},
    {"", "rank-timeout", "S", "60",
     "ranks launched together: seconds a rank waits for the others (at an entry's start, and for a "
     "collective's end) before the entry fails, naming the cause",
     "ranks launched together: seconds a rank waits for the others (for an entry's start, and for a "
     "collective's end) before that entry fails, naming the cause (at most 1e6); in a run that is alone "
     "both are checked, noted and have no effect"},
    // Keys only recorded: decided from several options, or from the run.
    {"params", "", "", "", "",
     "the `--param` settings of one value (`key=value,...`), passed to every plugin; each entry records "
     "its own setting"},
    {"audit_streams", "", "", "", "",
     "whether each entry's device work was checked to stay on the runner's stream and within its timed "
     "span ([measurement.md](measurement.md#checks-on-every-entry)); off under `--sanitize` and "
     "`--profile`"},
    {"world", "", "", "", "",
     "ranks launched together (mpirun, srun, without `--shard`), from the launcher's variables: this rank, "
     "their count, the folder they meet in (`--rank-dir`), how long a rank waits for the others "
     "(`--rank-timeout`) and this rank's share of the host; recorded only for ranks launched together"},
    {"isolation", "", "", "", "",
     "where entries were measured: a worker process per plugin, one per entry (`--worker-per-entry`, "
     "`--sanitize`), or the runner's own process (`--in-process`)"},
    {"default_sweep", "", "", "", "",
     "the sweep ran at the default sizes and limits: neither `--plugin` nor `--sizes` was given ([the "
     "default sweep](user-guide.md#the-default-sweep))"},
};

}  // namespace

std::span<const RunnerOption> runner_options() { return rows; }

std::string long_flag(const RunnerOption &option) {
    const std::string flag = option.flag;
    return flag.substr(0, flag.find(','));
}

const RunnerOption *runner_option_by_key(const std::string &key) {
    for (const RunnerOption &option : runner_options())
        if (!key.empty() && key == option.key) return &option;
    return nullptr;
}

std::string recorded_option_meaning(const std::string &key) {
    const RunnerOption *option = runner_option_by_key(key);
    if (!option) return "";
    // Plain text: a link's words without its address, code without its backticks.
    static const std::regex link(R"(\[([^\]]*)\]\([^)]*\))");
    std::string meaning = std::regex_replace(option->explanation, link, "$1");
    std::erase(meaning, '`');
    return *option->flag ? "--" + long_flag(*option) + ": " + meaning : meaning;
}

std::string runner_options_markdown() {
    std::string table = "| option | default | meaning |\n| --- | --- | --- |\n";
    for (const RunnerOption &option : runner_options()) {
        if (!*option.flag) continue;
        const std::string flag = option.flag;
        const size_t comma = flag.find(',');
        std::string name = "`--" + long_flag(option) + (*option.value_name ? " " : "") + option.value_name + "`";
        if (comma != std::string::npos) name = "`-" + flag.substr(comma + 1) + "`, " + name;
        const std::string default_text = *option.default_text ? "`" + std::string(option.default_text) + "`" : "";
        table += "| " + name + " | " + default_text + " | " + option.explanation + " |\n";
    }
    return table;
}

}  // namespace gpubench
