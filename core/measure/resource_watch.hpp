// What an entry uses, beside its times: CPU time over the wall time of its samples, the
// worker's peak resident memory, the device memory it holds at its peak, and how busy the
// GPU was while it was sampled.
#pragma once

#include "energy_windows.hpp"
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
    // The GPU board's energy over a window aligned to NVML's counter, and the CPU packages'
    // (cpu_energy.hpp) over the same window, or over the sampling for a CPU entry; absent where
    // not read (energy_windows.hpp). The notes say why not, or what to know (not aligned).
    std::optional<EnergyWindow> gpu_energy, cpu_energy;
    std::string gpu_energy_note, cpu_energy_note;
    // A GPU window this long at least, which sampling goes on for (sampling.hpp): NVML's
    // counter steps about every 100 ms on an H200, and a window read at two of its steps 0.5 s
    // apart is timed to a read's 4 ms, under 1% of it.
    static constexpr double energy_window_min_s = 0.5;
    // A CPU window this long at least: RAPL's counters are updated about every millisecond, a
    // few percent of 50 ms.
    static constexpr double cpu_energy_window_min_s = 0.05;
    // Files from before the window: the counter as sampling began and ended, over the sampling's
    // wall time, read where that lasted this long.
    static constexpr double earlier_energy_window_min_s = 0.2;
    // The GPU board's window: gpu_energy, else (a file from before it) the earlier reading.
    std::optional<EnergyWindow> gpu_board_energy() const;
    double cpu_cores() const { return sampling_wall_s > 0 ? sampling_cpu_s / sampling_wall_s : 0; }
    // Whether they were watched: an entry sampled has a sampling wall time; one never sampled,
    // and an entry of a file from before resources were recorded, has none.
    bool watched() const { return sampling_wall_s > 0; }
};

// Reads device memory at chosen points (before setup, then after each stage) and keeps the
// peak; times the sampling loop with the CPU time spent in it, and reads the energy over it.
class ResourceWatch {
public:
    // Call before setup. `cpu`: the CPU packages' energy source, nullptr where there is none.
    explicit ResourceWatch(const PhaseTimer &timer, const CpuEnergySource *cpu = host_cpu_energy());
    void note_device_memory();                       // a point where the entry holds its memory
    // energy_aligned: sampling may go on for the GPU's energy window (EnergyWindows::begin).
    void begin_sampling(bool energy_aligned);
    EnergyWindows &energy_windows() { return energy_; }
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
    EnergyWindows energy_;
    std::vector<Metric> metrics_;
};

}  // namespace gpubench
