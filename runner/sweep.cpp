#include "sweep.hpp"

#include "cli.hpp"
#include "console.hpp"
#include "progress.hpp"

#include <memory>

namespace gpubench {

int SweepTally::exit_status() const {
    if (interrupted) return exit_interrupted;
    if (verification_failed || errors) return exit_failed;
    if (skipped) return exit_skipped;
    return exit_ok;
}

namespace {

void count(SweepTally &tally, EntryStatus status) {
    switch (status) {
        case EntryStatus::ok: ++tally.ok; break;
        case EntryStatus::verification_failed: ++tally.verification_failed; break;
        case EntryStatus::error: ++tally.errors; break;
        case EntryStatus::skipped: ++tally.skipped; break;
    }
}

// Measures in the runner's own process, one CUDA timer for the whole sweep. A sticky CUDA
// error poisons the context for the rest of the process: later CUDA entries are skipped.
class InProcess {
public:
    explicit InProcess(GpuInfo &gpu) : gpu_(gpu) {}
    EntryResult measure(const Plugin &plugin, uint64_t size, const MeasureOptions &options) {
        if (plugin.is_cuda() && gpu_.available && !gpu_timer_) {
            try {
                gpu_timer_ = make_cuda_event_timer(options.cuda_device);
            } catch (const std::exception &e) {
                gpu_.available = false;
                gpu_.unavailable_reason = e.what();
                return unavailable(plugin, size, gpu_);
            }
        }
        EntryResult entry =
            measure_entry(plugin, size, options, plugin.is_cuda() ? *gpu_timer_ : cpu_timer_);
        if (plugin.is_cuda())
            if (std::string lost = note_lost_cuda_context(entry); !lost.empty()) {
                gpu_.available = false;  // the rest of this process cannot use it
                gpu_.unavailable_reason = lost;
            }
        return entry;
    }
    static EntryResult unavailable(const Plugin &plugin, uint64_t size, const GpuInfo &gpu) {
        EntryResult entry;
        entry.plugin = plugin.name();
        entry.size = size;
        entry.status = EntryStatus::skipped;
        entry.message = "unavailable: " + gpu.unavailable_reason;
        return entry;
    }

private:
    GpuInfo &gpu_;
    SteadyClockTimer cpu_timer_;
    std::unique_ptr<PhaseTimer> gpu_timer_;  // created at the first CUDA entry
};

}  // namespace

SweepTally run_sweep(const std::vector<const Plugin *> &plugins,
                     const std::optional<std::vector<uint64_t>> &sizes,
                     const MeasureOptions &options, GpuInfo gpu, ResultsFile &results,
                     std::ostream &out, const SweepMode &mode) {
    SweepTally tally;
    // What to measure: every (plugin, size) the results file does not hold yet.
    std::vector<std::pair<const Plugin *, uint64_t>> todo;
    for (const Plugin *plugin : plugins) {
        results.add_plugin(plugin_json(*plugin));
        const gpubench_plugin &api = plugin->api();
        for (uint64_t size : sizes ? *sizes
                                   : std::vector<uint64_t>(api.default_sizes,
                                                           api.default_sizes + api.default_size_count)) {
            if (const nlohmann::json *done =
                    results.find_entry(plugin->name(), size, options.params, options.seed)) {
                count(tally, entry_status_from_string(done->value("status", "error")));
                ++tally.resumed;
            } else {
                todo.emplace_back(plugin, size);
            }
        }
    }
    InProcess in_process(gpu);
    Progress progress(Progress::style_for_stderr(mode.quiet), todo.size());
    WorkerLaunch launch = mode.launch;
    launch.tick = [&] { progress.tick(); };
    const auto interrupted = [&] { return launch.interrupted && launch.interrupted(); };
    if (!mode.quiet) print_sweep_header(out);
    for (const auto &[plugin, size] : todo) {
        if (interrupted()) {
            tally.interrupted = true;
            break;
        }
        progress.begin(plugin->name(), size);
        EntryResult entry;
        if (plugin->is_cuda() && !gpu.available) {
            entry = InProcess::unavailable(*plugin, size, gpu);
        } else if (mode.isolated) {
            std::optional<EntryResult> measured = measure_in_worker(*plugin, size, options, launch);
            if (!measured) {
                tally.interrupted = true;
                break;
            }
            entry = std::move(*measured);
        } else {
            entry = in_process.measure(*plugin, size, options);
        }
        if (plugin->is_cuda()) {
            entry.peak_flops = gpu.peak_fp32_flops;
            entry.peak_bytes_per_s = gpu.peak_bytes_per_s;
        }
        count(tally, entry.status);
        progress.clear();
        if (!mode.quiet) print_sweep_row(out, entry);
        results.add_entry(entry_json(entry, options));
        progress.end();
    }
    progress.clear();
    return tally;
}

}  // namespace gpubench
