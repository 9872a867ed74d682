// An entry's record: the options it is measured with, the worker's measurement and the runner's
// notes on it (results/entry_json.hpp encodes them). Measuring it is measure.hpp's.
#pragma once

#include "entry_identity.hpp"
#include "gpu.hpp"
#include "host_share.hpp"
#include "rank_world.hpp"
#include "resource_watch.hpp"

#include <gpubench/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct MeasureOptions {
    uint64_t seed = 42;
    int cpu_threads = 1;
    int cuda_device = 0;
    // The run's CUDA devices for plugins across GPUs (ABI 1.5); empty: cuda_device alone.
    std::vector<int> cuda_devices;
    std::string params;         // "key=value,..." passed to the plugin (see ParamAxis)
    int warmup_runs = 1;        // full upload/run/download cycles before sampling
    size_t min_samples = 10;
    size_t max_samples = 1000;
    double min_time_s = 0.5;    // sample at least this much run() time...
    double max_noise = 0.005;   // ...and until the median's relative error is this (0: off)...
    double max_time_s = 10.0;   // ...but stop once an entry has taken this long (>= 1 sample)
    bool cold = false;          // flush the GPU's L2 before each timed run()
    // The stream audit (stream_audit.hpp). Off under --sanitize: the sanitizer's own device
    // work outlives the spans.
    bool audit_streams = true;
    // Its CUPTI trace (--no-device-trace: e.g. under a profiler that holds CUPTI itself).
    bool trace_device = true;
    bool hold_stream = true;     // run_hold.hpp (--no-stream-hold)
    bool audit_threads = true;   // thread_audit.hpp (--no-thread-audit)
    bool nvtx = true;            // nvtx_range.hpp (--no-nvtx)
    bool counters = false;       // the counting pass (hardware_counters.hpp; --counters)
    // --profile: the warm-up, then exactly this many run() calls and no other (no per-launch
    // samples, no traced or audited cycles); 0: the sampling rule decides.
    size_t profile_runs = 0;
    // The ranks launched together (rank_world.hpp): a plugin whose run() is a collective
    // across them (GPUBENCH_WORK_RUN_ACROSS_RANKS) is measured in lock-step (sampling.hpp).
    RankWorld world;
    // The entry's folder in world.folder where its ranks meet: set by the sweep per entry.
    std::string rendezvous;
};

// An entry measured in lock-step across ranks calls run() as often on each rank, so nothing
// that depends on time (noise, --min-time, --max-time, a budget, a launch's length) decides
// how often: it takes exactly --min-samples samples, then as many per-launch samples of this
// many back-to-back launches each (nccl-tests' default iterations, -n 20).
inline constexpr size_t lockstep_launches = 20;

// What an entry's record holds of the options it was measured with: its identity's params,
// seed and threads (how it was sampled is its Timing's). The rest are the results file's "options".
struct EntrySettings {
    std::string params;
    uint64_t seed = 42;
    int cpu_threads = 1;
};
EntrySettings entry_settings(const MeasureOptions &options);

// One --param key with its values ("--param dtype=float32,float64"): a sweep measures each
// plugin at every combination of the values of the keys it reads (param_settings, sweep.hpp).
struct ParamAxis {
    std::string key;
    std::vector<std::string> values;  // in command-line order, each once, none empty
};
using ParamAxes = std::vector<ParamAxis>;  // in command-line order, each key once

enum class EntryStatus { ok, verification_failed, error, skipped };
const char *to_string(EntryStatus status);
EntryStatus entry_status_from_string(const std::string &text);  // throws std::invalid_argument

// Whether each timed phase's device work stayed on the runner's stream and within its span
// (checks/stream_audit.hpp says how).
struct StreamAudit {
    size_t checks = 0;             // phase calls checked
    // The busy-after check, the verdict where nothing traces:
    std::string worst_phase;       // the phase whose device work outlived its span the most
    double timed_s = 0;            // that phase's median timed span at the checks
    double device_busy_after_s = 0;  // its least wait for the device after the span ended
    bool outside_stream = false;   // device_busy_after_s beyond the rule: invalid entry
    // The trace of the same calls, where one traced them...
    struct Trace {
        std::string by;            // what traced them ("CUPTI 13.0"); "" when nothing did
        size_t calls = 0;
        double run_device_work_s = 0;  // run()'s traced device work, first start to last end
        double run_operations = 0;     // kernels, copies and memsets per traced run() (median)
        // Why CUPTI stayed in the process during the entry ("" where it left after each
        // traced cycle): its host times then include CUPTI's cost (check cupti_attached).
        std::string stays_attached;
    } traced;
    std::string untraced;          // ...else why not
    std::string problem;           // what the trace found wrong: makes the entry invalid
    double audit_wall_s = 0;       // what the checks cost the entry: busy-after waits, traced cycles
};

// Whether a CPU plugin's work stayed inside run() (checks/thread_audit.hpp says how).
struct ThreadAudit {
    size_t calls = 0;              // run() calls audited
    std::string resolution;        // "ns", or "clock ticks" where only /proc stat was readable
    size_t threads = 0;            // the most plugin threads seen at once
    size_t started_by_run = 0;     // the most threads one run() started and left running
    size_t worked_after_return = 0;  // threads that worked after run() returned, idle in it
    double cpu_after_return_s = 0;   // CPU those threads took after the returns, all calls
    double audit_wall_s = 0;       // what the audit itself cost the entry (wall time)
    std::string problem;           // the refusal: makes the entry invalid; "" when none
};

// The headline time of a short GPU run, per launch (empty method: from single launches).
struct PerLaunch {
    std::string method;            // "graph" or "batch" (", reset subtracted"); "": none
    size_t launches_per_sample = 0;  // run() launches per sample
    std::vector<double> samples;   // seconds per launch, one value per sample
};

// How an entry was sampled, and its samples: the stored half of the results file's "timing"
// block, named as the file names it (times in seconds). The summaries beside them there are
// figures (entry_figures.hpp).
struct Timing {
    std::string clock;              // which PhaseTimer measured it
    int warmup_runs = 1;
    size_t profile_runs = 0;        // a profile run's count of run() calls (--profile); 0: none
    double load = 0;                // loading the plugin library in a fresh worker process
    double setup = 0;               // create(): allocation and input generation
    double first_run = 0;           // run() of the first warm-up cycle (cold: lazy init etc.)
    std::string stop_reason;
    std::string cache = "hot";      // "cold": L2 flushed before each timed run()
    struct Noise {
        double median_rel_stderr = 0;  // relative standard error of the median run() time
        double max_noise = 0.005;      // 0: the noise criterion was not asked for
        bool converged = false;        // median_rel_stderr <= max_noise when sampling stopped
    } noise;
    struct Samples {  // one value per sample, if any
        std::vector<double> run, upload, download;
        // GPU entries: run()'s own host time (the enqueueing), per call of a back-to-back
        // series after the samples, and per sample within the sampled cycles (after their upload).
        std::vector<double> run_host, run_host_in_cycle;
    } samples;
    PerLaunch per_launch;           // short GPU runs: the per-launch headline
    std::string per_launch_note;    // why a graph was not used, when it was not
    std::string stream_hold;        // "held", or why the spans were not ("" for a host clock)
    size_t warm_calls = 0;          // untimed run()s before unheld sampled ones (sampling.cpp)
};

// A metric of an entry: the plugin's, a figure about the result (the same from the same
// inputs), or one the runner measured, with the noise of any measurement: `runner compare`,
// which has one value a side, judges only the former.
struct EntryMetric : Metric {
    bool measured = false;
};

// The ceilings an entry is held to, as the results file's throughput.ceiling names them: the
// peak of its math (gpubench_work.math) and the bandwidth of the level its working set fits in
// (hold_to_level); 0: unknown.
struct Ceiling {
    double flops = 0;
    double bytes_per_s = 0;
    std::string level;          // "L1", "L2", "DRAM", "HBM", "NVLink"...; "": not held
    double level_margin = 0;    // the margin on bytes_per_s, that level's
    std::string level_source;   // the interconnect's: how its peak was read, or why not
    uint64_t cache_bytes = 0;   // the largest cache's capacity
    double margin = 0;          // the margin on flops
};

// What measuring one entry found, as measure_entry returns it and a worker sends it to the
// runner. Work and Verification are the SDK's own C++ forms (gpubench/plugin.hpp).
struct Measurement {
    std::string plugin;
    uint64_t size = 0;
    EntrySettings settings;         // set by measure_entry, and by the sweep for every entry
    EntryStatus status = EntryStatus::error;
    std::string message;            // why it was skipped or failed; "" when ok
    // The check (checks/check.hpp) whose finding made it invalid, an error or skipped; "" for
    // an ok entry and for a failure the plugin reported itself.
    std::string refused_by;
    // Skipped for the time a --budget sweep is behind by: --devices' lanes take it up again.
    bool behind_schedule = false;
    Work work;
    Timing timing;
    StreamAudit stream_audit;
    ThreadAudit thread_audit;       // CPU plugins (host clock) only
    Verification verification;
    // The plugin's figures about the result (ABI 1.1), then the runner's measured values.
    std::vector<EntryMetric> metrics;
    EntryResources resources;       // CPU, memory and GPU use (see resource_watch.hpp)
    Ceiling ceiling;
    std::string item_name;          // what work.items counts ("" = none)
    gpubench_headline headline = GPUBENCH_HEADLINE_AUTO;
    bool unoptimized = false;       // the plugin's build_info says it was built without -O
    std::string sanitizer;          // "memcheck: 0 errors"... when run under compute-sanitizer
    std::string counters;           // --counters: the source that read them, or "not read: why"
    std::string persisting_l2_left;  // GPU state the plugin left and the runner undid, or ""
    // Wall time inside the plugin's calls (and their device work), beside the harness's.
    double plugin_time_s = 0;
    std::vector<int> cuda_devices;  // the CUDA devices it ran on (ABI 1.5); empty: a CPU plugin
    // A collective across ranks: this rank of those that measured it together; else 0 of 1.
    uint32_t rank = 0, ranks = 1;
    bool across_ranks() const { return ranks > 1; }

    EntryIdentity identity() const { return {plugin, size, settings.params, settings.seed}; }
};

// What the runner notes about an entry around its measurement: where it ran and when. The
// worker knows none of it.
struct SweepNotes {
    // The devices it ran on, as the sweep probed them (else an index alone).
    std::vector<DeviceIdentity> devices;
    // The CPUs its worker had in a --devices sweep; nullopt in a sweep on one GPU.
    std::optional<HostShare> host_share;
    // In a merged file: the shard that delivered it (runner merge sets it); nullopt elsewhere.
    std::optional<uint32_t> shard;
    double entry_wall_s = 0;        // request to report, as the runner saw it
    bool worker_started = false;    // a worker process was started for this entry
    size_t worker_entries_before = 0;  // entries its worker measured before it (0: fresh)
    double finished_after_s = 0;    // since the runner started
    double sampling_budget_s = 0;   // max_time_s as --budget cut it for this entry (0: not cut)
};

// An entry as the results file records it: the measurement, and the runner's notes on it.
struct EntryResult : Measurement {
    SweepNotes sweep;

    EntryResult() = default;
    explicit EntryResult(Measurement measured) : Measurement(std::move(measured)) {}
    // Its wall time outside sampling: a started worker, set-up, warm-up, checks, teardown.
    double outside_sampling_s() const { return std::max(0.0, sweep.entry_wall_s - resources.sampling_wall_s); }
};

// The headline compute time's samples, and how they were taken: per launch (per_launch.method)
// for short GPU runs, else "single" run() calls.
const std::vector<double> &headline_run_samples(const Measurement &entry);
std::string headline_method(const Measurement &entry);

// Whether an entry of this work is measured in lock-step with the other ranks launched with
// this run: its run() is a collective across them (GPUBENCH_WORK_RUN_ACROSS_RANKS).
bool measured_across_ranks(const Work &work, const MeasureOptions &options);

// Told the name of each stage as it begins ("work", "setup", "warm-up", "samples",
// "verify", "metrics", "teardown"), so that a crash can be placed.
using StageObserver = std::function<void(const char *stage)>;

}  // namespace gpubench
