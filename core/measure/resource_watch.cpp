#include "resource_watch.hpp"

#include "elapsed.hpp"
#include "host_resources.hpp"

#include <algorithm>
#include <cmath>

namespace gpubench {

ResourceWatch::ResourceWatch(const PhaseTimer &timer, const CpuEnergySource *cpu)
    : timer_(timer), energy_(timer, cpu) {
    reset_peak_rss();
    if (const auto memory = timer_.device_memory()) {
        resources_.on_device = true;
        resources_.device_total_bytes = memory->total;
        used_before_ = peak_used_ = memory->total - memory->free;
    }
}

void ResourceWatch::note_device_memory() {
    if (const auto memory = timer_.device_memory())
        peak_used_ = std::max(peak_used_, memory->total - memory->free);
}

std::optional<EnergyWindow> EntryResources::gpu_board_energy() const {
    if (gpu_energy) return gpu_energy;
    if (!gpu_before || !gpu_after || !gpu_before->energy_mj || !gpu_after->energy_mj ||
        *gpu_after->energy_mj <= *gpu_before->energy_mj)
        return std::nullopt;
    return EnergyWindow{static_cast<double>(*gpu_after->energy_mj - *gpu_before->energy_mj) / 1000.0,
                        sampling_wall_s};
}

void ResourceWatch::begin_sampling(bool energy_aligned) {
    note_device_memory();
    resources_.gpu_before = timer_.gpu_state();
    resources_.gpu_state_note = timer_.gpu_state_note();
    energy_.begin(energy_aligned);  // its wait for the counter is not sampling's
    host_load_.begin();
    usage_before_ = process_usage();  // after the reads above: their faults are not sampling's
    sampling_began_ = std::chrono::steady_clock::now();
}

void ResourceWatch::end_sampling(double device_timed_s, size_t run_calls) {
    resources_.sampling_wall_s = seconds_since(sampling_began_);
    energy_.end(resources_);
    const ProcessUsage usage = process_usage();
    resources_.sampling_cpu_s = usage.cpu_s - usage_before_.cpu_s;
    // A run() that takes fresh memory each call (a temporary array above malloc's mmap
    // threshold, a NumPy result) pays for its pages every time. The runner's own bookkeeping
    // takes a few faults per sampling, whatever its length: fewer than 16 in all count as none,
    // so that an entry of one or two runs does not read as a few faults per run.
    const auto faults = [](const rusage &u) { return u.ru_minflt + u.ru_majflt; };
    const long sampling_faults = faults(usage.counters) - faults(usage_before_.counters);
    if (run_calls > 0)
        metrics_.push_back({"page_faults_per_run",
                            sampling_faults < 16 ? 0.0 : std::round(double(sampling_faults) / run_calls), "",
                            "", GPUBENCH_BETTER_LOWER});
    resources_.host_load = host_load_.end();
    if (resources_.on_device && resources_.sampling_wall_s > 0)
        resources_.gpu_busy = std::min(1.0, device_timed_s / resources_.sampling_wall_s);
    resources_.gpu_after = timer_.gpu_state();
    note_device_memory();
}

EntryResources ResourceWatch::finish() {
    resources_.peak_rss_bytes = peak_rss_bytes();
    if (resources_.on_device) {
        resources_.device_used_bytes = peak_used_;
        resources_.device_allocated_bytes = peak_used_ - used_before_;
    }
    return resources_;
}

}  // namespace gpubench
