#include "resource_watch.hpp"

#include "host_resources.hpp"

#include <algorithm>

namespace gpubench {

ResourceWatch::ResourceWatch(const PhaseTimer &timer) : timer_(timer) {
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

std::optional<double> EntryResources::sampling_energy_j() const {
    if (!gpu_before || !gpu_after || !gpu_before->energy_mj || !gpu_after->energy_mj ||
        *gpu_after->energy_mj <= *gpu_before->energy_mj || sampling_wall_s < energy_window_min_s)
        return std::nullopt;
    return static_cast<double>(*gpu_after->energy_mj - *gpu_before->energy_mj) / 1000.0;
}

void ResourceWatch::begin_sampling() {
    note_device_memory();
    resources_.gpu_before = timer_.gpu_state();
    resources_.gpu_state_note = timer_.gpu_state_note();
    usage_before_ = process_usage();
    host_load_.begin();
    sampling_began_ = std::chrono::steady_clock::now();
}

void ResourceWatch::end_sampling(double device_timed_s, size_t run_calls) {
    run_calls_ = run_calls;
    resources_.sampling_wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sampling_began_).count();
    const ProcessUsage usage = process_usage();
    resources_.sampling_cpu_s = usage.cpu_s - usage_before_.cpu_s;
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
