// The runner's command line (Boost.Program_options), declared from the option table
// (runner_options.hpp).
#pragma once

#include "measure.hpp"
#include "results_model.hpp"
#include "shard.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// The command line as parsed, never changed after: what is decided from it and this machine
// (devices, threads, the default sweep's limits...) is the sweep's plan (sweep_plan.hpp).
struct CommandLine {
    bool help = false, version = false, list = false;
    std::string list_format = "text";            // --list's and --help's form: text or markdown
                                                 // (plugin_list.hpp, runner_options.hpp)
    std::vector<std::string> plugin_patterns;    // empty: every available plugin
    std::optional<std::vector<uint64_t>> sizes;  // empty: each plugin's default sizes
    std::string output;                          // empty: results/<host>-<timestamp>.json
    std::vector<std::string> plugin_dirs;
    MeasureOptions measure;                      // as given (the sweep's: SweepPlan::measure);
                                                 // its params: the --param keys of one value
    ParamAxes param_axes;                        // every --param key with its values
    double timeout_s = 600;                      // per entry, in its worker process
    bool in_process = false;                     // no worker processes (for a debugger)
    bool worker_per_entry = false;               // a fresh worker for every entry
    bool quiet = false;                          // no rows, no progress: the summary only
    std::string resume;                          // results file to continue; "" = none
    std::string sanitize;                        // compute-sanitizer tool; "" = none
    bool max_time_given = false;                 // --max-time was on the command line
    std::optional<double> budget_s;              // --budget; nullopt: not given (0: none)
    bool find_crossover = false;                 // --find-crossover
    bool device_given = false;                   // --device was on the command line
    bool threads_given = false;                  // --threads was on the command line
    bool allow_insecure_plugins = false;         // load plugins others could have written
    double scan_timeout_s = 10;                  // per plugin file, in its scanner process
    bool rescan_plugins = false;                 // ignore the plugin scan cache
    bool reprobe_gpus = false;                   // ignore the GPU description cache
    std::optional<ShardSpec> shard;              // --shard: measure only this shard's entries
    std::string shard_costs;                     // --shard-costs: earlier results; "" = none
    // Ranks launched together (measure.world, rank_world.hpp): --rank-dir, the folder above
    // their meeting folder ("": the results file's); whether it or --rank-timeout was given.
    std::string rank_dir;
    bool rank_options_given = false;
    // --devices: the GPUs to run on at once, one worker each; all_devices: every one this
    // machine has (the runner resolves it). Neither: --device alone.
    std::vector<int> devices;
    bool all_devices = false;
    std::string usage;                           // the --help text
};

// Parses argv. Throws std::invalid_argument with a one-line message on bad input.
CommandLine parse_command_line(int argc, const char *const *argv);

// The results file's options.param_axes: {"key": ["value", ...], ...}.
nlohmann::json param_axes_json(const ParamAxes &axes);

// Exit statuses, documented in the README and --help.
enum ExitStatus : int {
    exit_ok = 0,            // every entry ran and verified
    exit_failed = 1,        // a verification failed or a plugin reported an error
    exit_usage = 2,         // bad command line or input
    exit_skipped = 3,       // nothing failed, but some requested entries were skipped
    exit_interrupted = 130, // stopped by SIGINT/SIGTERM (128 + SIGINT, as shells report it)
};

// A sweep's exit status from its entries: 1 when one failed, else 3 when `skipped` (entries
// that count as skipped), else 0.
int sweep_exit_status(const StatusTally &entries, bool skipped);

// SIGINT and SIGTERM only recorded from now on, so that a command stops where it can keep
// what it has (sweep_command.cpp); whether one arrived.
void catch_stop_signals();
bool stop_was_requested();

// A problem that ends the command, thrown where it is found: run() prints it as one line
// (fail) and exits with its status.
struct CommandFailure {
    std::string message;
    int status = exit_usage;
};

// Prints "runner: error: <message>" on stderr; returns `status`.
int fail(const std::string &message, int status);

}  // namespace gpubench
