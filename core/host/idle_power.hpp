// The devices' energy sources as a sweep records them in its results file's header ("energy"),
// and their power at idle, measured as the sweep starts: what a CPU entry's node power counts
// for the GPU board (entry_figures.hpp), and a reader's baseline for the others.
#pragma once

#include "gpu.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace gpubench {

// One device's: {"source": "...", "idle_w": 71.9} or {"source": null, "reason": "..."}.
struct EnergySourceRecord {
    std::optional<std::string> source;  // its one-line name; nullopt: none...
    std::string reason;                 // ...and why
    std::optional<double> idle_w;       // its power at idle, where measured
    std::string note;                   // how idle_w was read, where that matters
};
void to_json(nlohmann::json &json, const EnergySourceRecord &record);
void from_json(const nlohmann::json &json, EnergySourceRecord &record);

// The header's "energy": the sweep's first GPU's board (NVML) and the CPU packages (cpu_energy.hpp).
struct SweepEnergy {
    EnergySourceRecord gpu, cpu;
};
void to_json(nlohmann::json &json, const SweepEnergy &energy);
void from_json(const nlohmann::json &json, SweepEnergy &energy);

// Long enough for NVML's counter (EntryResources::energy_window_min_s says why), short beside
// a sweep: both devices are measured at once over one window.
inline constexpr double idle_window_s = 0.5;

// A board busy a moment ago (the sweep before this one) reads above its idle for seconds while
// its clocks come down (125 W against 78 W on an H200, a sweep straight after another): the
// idle window waits until the board's power has stopped falling, by less than 1% over the last
// second, or for idle_settle_limit_s at most.
inline constexpr double idle_settle_limit_s = 15;
struct PowerSettling {
    double waited_s = 0;  // 1 s at least where there are readings
    bool settled = true;  // false: still falling at the limit
};
// `read_w`: the board's power now (nullopt: no readings, nothing to wait for); `sleep_s` waits.
PowerSettling await_settled_power(const std::function<std::optional<double>()> &read_w,
                                  const std::function<void(double)> &sleep_s);

// Finds both sources and measures their idle power over one window of idle_window_s: the GPU
// board of `gpu` from one change of NVML's energy counter to another (counter_change.hpp), or
// NVML's power readings averaged where it has no counter; the CPU packages (host_cpu_energy())
// over the same span, after await_settled_power(). No window where neither source exists.
SweepEnergy measure_idle_power(const GpuInfo &gpu);

}  // namespace gpubench
