#include "sweep.hpp"

#include "cli.hpp"
#include "console.hpp"

#include <memory>

namespace gpubench {

int SweepTally::exit_status() const {
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

}  // namespace

SweepTally run_sweep(const std::vector<const Plugin *> &plugins,
                     const std::optional<std::vector<uint64_t>> &sizes,
                     const MeasureOptions &options, GpuInfo gpu, ResultsFile &results,
                     std::ostream &out) {
    SweepTally tally;
    SteadyClockTimer cpu_timer;
    std::unique_ptr<PhaseTimer> gpu_timer;  // created at the first CUDA entry
    print_sweep_header(out);
    for (const Plugin *plugin : plugins) {
        results.add_plugin(plugin_json(*plugin));
        const gpubench_plugin &api = plugin->api();
        std::vector<uint64_t> plugin_sizes =
            sizes ? *sizes : std::vector<uint64_t>(api.default_sizes,
                                                   api.default_sizes + api.default_size_count);
        for (uint64_t size : plugin_sizes) {
            EntryResult entry;
            if (plugin->is_cuda() && gpu.available && !gpu_timer) {
                try {
                    gpu_timer = make_cuda_event_timer(options.cuda_device);
                } catch (const std::exception &e) {
                    gpu.available = false;
                    gpu.unavailable_reason = e.what();
                }
            }
            if (plugin->is_cuda() && !gpu.available) {
                entry.plugin = plugin->name();
                entry.size = size;
                entry.status = EntryStatus::skipped;
                entry.message = "unavailable: " + gpu.unavailable_reason;
            } else {
                PhaseTimer &timer = plugin->is_cuda() ? *gpu_timer : cpu_timer;
                entry = measure_entry(*plugin, size, options, timer);
                if (plugin->is_cuda()) {
                    // A sticky error (illegal address...) poisons the CUDA context for the
                    // rest of this process: later CUDA entries are skipped, not run into it.
                    if (std::string lost = cuda_sticky_error(); !lost.empty()) {
                        gpu.available = false;
                        gpu.unavailable_reason = "the CUDA context was lost (" + lost + ")";
                        if (entry.status == EntryStatus::ok) {
                            entry.status = EntryStatus::error;
                            entry.message = gpu.unavailable_reason;
                        }
                    }
                }
            }
            count(tally, entry.status);
            print_sweep_row(out, entry);
            results.add_entry(entry_json(entry, options));
        }
    }
    return tally;
}

}  // namespace gpubench
