// What an entry uses, beside its times: CPU time over the wall time of its samples, the
// worker's peak resident memory, the device memory it holds at its peak, and how busy the
// GPU was while it was sampled.
#pragma once

#include "gpubench/descriptor.hpp"
#include "host_load.hpp"
#include "host_resources.hpp"
#include "phase_timer.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct EntryResources {
    double sampling_wall_s = 0;      // wall time of the timed samples, warm-up excluded
    double sampling_cpu_s = 0;       // user + system CPU time of the worker meanwhile
    uint64_t peak_rss_bytes = 0;     // the worker's largest resident set (setup included)
    bool on_device = false;          // the device figures below were read
    uint64_t device_allocated_bytes = 0;  // device memory at the peak, above that before setup
    uint64_t device_used_bytes = 0;       // all device memory in use at that peak (anyone's)
    uint64_t device_total_bytes = 0;
    double gpu_busy = 0;             // device-timed phases over sampling_wall_s; 0 on a CPU
    // The GPU's state (NVML) as sampling began and ended; absent for CPU entries. Readings
    // NVML cannot give are absent inside; gpu_state_note says why when NVML is missing.
    std::optional<GpuState> gpu_before, gpu_after;
    std::string gpu_state_note;
    // The host while sampling: how much the rest of the machine took, how long the worker's
    // threads waited for a CPU, and whether that makes the entry "contended".
    std::optional<HostLoad> host_load;
    bool gpu_shared() const {
        return (gpu_before && gpu_before->shared()) || (gpu_after && gpu_after->shared());
    }
    bool throttled() const {
        return (gpu_before && gpu_before->throttled()) || (gpu_after && gpu_after->throttled());
    }
    // Joules the GPU used while sampling, from NVML's energy counter; nullopt without it, or
    // when sampling was too short for the counter (which advances in steps of milliseconds).
    std::optional<double> sampling_energy_j() const;
    static constexpr double energy_window_min_s = 0.2;
    double cpu_cores() const { return sampling_wall_s > 0 ? sampling_cpu_s / sampling_wall_s : 0; }
    // Whether they were watched: an entry sampled has a sampling wall time; one never sampled,
    // and an entry of a file from before resources were recorded, has none.
    bool watched() const { return sampling_wall_s > 0; }
};

// Reads device memory at chosen points (before setup, then after each stage) and keeps the
// peak; times the sampling loop with the CPU time spent in it.
class ResourceWatch {
public:
    explicit ResourceWatch(const PhaseTimer &timer);  // call before setup
    void note_device_memory();                       // a point where the entry holds its memory
    void begin_sampling();
    // device_timed_s: the sum of the timed phases of the samples; run_calls: how many run()
    // calls sampling made (traced checks and discarded cycles included), for values per run.
    void end_sampling(double device_timed_s, size_t run_calls);
    EntryResources finish();                         // after the last stage
    // The runner's own measured values that are metrics (metric_format.hpp), to be appended
    // to the entry's: read by end_sampling.
    const std::vector<Metric> &metrics() const { return metrics_; }

private:
    const PhaseTimer &timer_;
    EntryResources resources_;
    uint64_t used_before_ = 0, peak_used_ = 0;
    std::chrono::steady_clock::time_point sampling_began_{};
    ProcessUsage usage_before_;
    HostLoadWatch host_load_;
    std::vector<Metric> metrics_;
};

}  // namespace gpubench
