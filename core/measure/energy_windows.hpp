// The windows an entry's energy is read over (docs/measurement.md): the GPU board's, NVML's
// counter read at two of its changes (counter_change.hpp) where sampling may go on for it, and
// the CPU packages' (cpu_energy.hpp) over the same span; a CPU entry's over its sampling.
#pragma once

#include "counter_change.hpp"
#include "cpu_energy.hpp"
#include "phase_timer.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// What a device's energy counter counted over a window of an entry's sampling.
struct EnergyWindow {
    double joules = 0, seconds = 0;
};

struct EntryResources;

class EnergyWindows {
public:
    EnergyWindows(const PhaseTimer &timer, const CpuEnergySource *cpu) : timer_(timer), cpu_(cpu) {}
    // As sampling begins. `aligned`: sampling may go on for the GPU's window (not a profile run,
    // not ranks in lock-step), which then opens at the counter's next change (a wait of up to
    // counter_change_limit_s); otherwise it opens now.
    void begin(bool aligned);
    // The GPU's window is open and aligned: sampling goes on until it closes (sampling.hpp).
    bool extends() const { return extends_; }
    double gpu_window_s() const;  // since it opened
    // After a cycle, once the window has lasted EntryResources::energy_window_min_s: reads the
    // counter and closes the window at its change, or unaligned once it has not changed for
    // counter_change_limit_s. True once closed.
    bool close_at_change();
    // As sampling ends: closes what is still open (unaligned) and records both windows.
    void end(EntryResources &resources);

private:
    using Clock = std::chrono::steady_clock;
    CounterChange::Read gpu_counter() const {
        return [this] { return timer_.gpu_energy_mj(); };
    }
    void close_gpu(const CounterChange &at);
    void close_cpu();

    const PhaseTimer &timer_;
    const CpuEnergySource *cpu_;  // nullptr: none on this host
    std::optional<uint64_t> gpu_begin_mj_;
    Clock::time_point gpu_begin_at_{}, cpu_begin_at_{};
    std::optional<CounterChange> gpu_end_;  // the wait for the closing change
    std::optional<std::vector<uint64_t>> cpu_begin_;
    std::optional<EnergyWindow> gpu_window_, cpu_window_;
    std::string gpu_note_, cpu_note_;
    bool extends_ = false, gpu_closed_ = false, cpu_closed_ = false;
};

}  // namespace gpubench
