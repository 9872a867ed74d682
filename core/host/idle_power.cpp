#include "idle_power.hpp"

#include "counter_change.hpp"
#include "cpu_energy.hpp"
#include "elapsed.hpp"
#include "json_fields.hpp"
#include "nvml_probe.hpp"
#include "text_format.hpp"

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace gpubench {

using nlohmann::json;

void to_json(json &j, const EnergySourceRecord &r) {
    j = {{"source", r.source ? json(*r.source) : json(nullptr)}};
    if (!r.source) j["reason"] = r.reason;
    if (r.idle_w) j["idle_w"] = *r.idle_w;
    if (!r.note.empty()) j["note"] = r.note;
}

void from_json(const json &j, EnergySourceRecord &r) {
    json_fields::get(j, "source", r.source);
    json_fields::get(j, "reason", r.reason);
    json_fields::get(j, "idle_w", r.idle_w);
    json_fields::get(j, "note", r.note);
}

GPUBENCH_JSON_FIELDS_AS(SweepEnergy, put_sweep_energy, get_sweep_energy, gpu, cpu)

void to_json(json &j, const SweepEnergy &energy) { put_sweep_energy(j, energy); }

void from_json(const json &j, SweepEnergy &energy) { get_sweep_energy(j, energy); }

namespace {

using Clock = std::chrono::steady_clock;


// NVML on the sweep's first GPU, its source named in `record` (or why there is none).
std::unique_ptr<NvmlProbe> gpu_energy_probe(const GpuInfo &gpu, EnergySourceRecord &record) {
    if (!gpu.available || gpu.pci_bus_id.empty()) {
        record.reason = "no GPU in the sweep";
        if (!gpu.unavailable_reason.empty()) record.reason += " (" + gpu.unavailable_reason + ")";
        return nullptr;
    }
    std::string why_not;
    std::unique_ptr<NvmlProbe> probe = NvmlProbe::open(gpu.pci_bus_id, why_not);
    const std::string which = "GPU " + std::to_string(gpu.device) + " (" + gpu.name + ")";
    if (!probe) record.reason = "NVML: " + why_not;
    else if (probe->energy_mj()) record.source = "NVML energy counter of " + which;
    else if (probe->power_w()) record.source = "NVML power readings of " + which + " (no energy counter)";
    else record.reason = "NVML gives neither an energy counter nor power readings for " + which;
    return record.source ? std::move(probe) : nullptr;
}

void add_note(EnergySourceRecord &record, const std::string &note) {
    record.note += (record.note.empty() ? "" : "; ") + note;
}

// Waits for the board's power to settle (await_settled_power), saying so in `record` where it
// took longer than the one second it always takes, or did not settle.
void settle_board(const NvmlProbe &nvml, EnergySourceRecord &record) {
    const PowerSettling s = await_settled_power(
        [&nvml] { return nvml.power_w(); },
        [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); });
    if (!s.settled)
        add_note(record, format_text("its power was still falling after %.0f s: idle_w may read high", s.waited_s));
    else if (s.waited_s > 1.5)
        add_note(record, format_text("measured once its power had stopped falling, %.1f s on (it was busy before)",
                                     s.waited_s));
}

// Both over one window: the GPU board from one change of its counter to the next after
// idle_window_s (its power readings averaged where it has none), the CPU packages meanwhile.
void measure_idle(const NvmlProbe *nvml, const CpuEnergySource *cpu, SweepEnergy &energy) {
    if (nvml) settle_board(*nvml, energy.gpu);
    const bool counter = nvml && nvml->energy_mj();
    const auto read = [nvml] { return nvml->energy_mj(); };
    std::optional<CounterChange> start;
    if (counter && !(start.emplace(read)).await())
        add_note(energy.gpu, not_aligned_note("start"));
    const std::optional<std::vector<uint64_t>> cpu_before = cpu ? cpu->read() : std::nullopt;
    const Clock::time_point began = Clock::now();
    double power_sum = 0;
    int powers = 0;
    for (Clock::time_point now = began; seconds_between(began, now) < idle_window_s; now = Clock::now()) {
        if (const std::optional<double> watts = nvml && !counter ? nvml->power_w() : std::nullopt) {
            power_sum += *watts;
            ++powers;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(nvml && !counter ? 50 : 10));
    }
    if (const auto after = cpu_before ? cpu->read() : std::nullopt)
        energy.cpu.idle_w = cpu->joules_between(*cpu_before, *after) / seconds_between(began, Clock::now());
    if (counter) {
        CounterChange end(read);
        if (!end.await()) add_note(energy.gpu, not_aligned_note("end"));
        if (end.readable() && end.value() >= start->value() && end.at() > start->at())
            energy.gpu.idle_w = double(end.value() - start->value()) / 1000.0 / seconds_between(start->at(), end.at());
    } else if (powers > 0) {
        energy.gpu.idle_w = power_sum / powers;
        add_note(energy.gpu, format_text("the mean of %d power readings over %.2g s: NVML gives no energy counter",
                                         powers, idle_window_s));
    }
}

}  // namespace

PowerSettling await_settled_power(const std::function<std::optional<double>()> &read_w,
                                  const std::function<void(double)> &sleep_s) {
    constexpr double step_s = 0.1, falling = 0.01;
    constexpr size_t second = 10;  // readings a second apart
    std::vector<double> readings;
    PowerSettling s;
    for (std::optional<double> w = read_w(); w; w = read_w()) {
        readings.push_back(*w);
        if (readings.size() > second && readings.back() >= (1 - falling) * readings[readings.size() - 1 - second])
            return s;
        if (s.waited_s >= idle_settle_limit_s) return s.settled = false, s;
        sleep_s(step_s);
        s.waited_s += step_s;
    }
    return s;
}

SweepEnergy measure_idle_power(const GpuInfo &gpu) {
    SweepEnergy energy;
    const std::unique_ptr<NvmlProbe> nvml = gpu_energy_probe(gpu, energy.gpu);
    std::string why_not;
    const CpuEnergySource *cpu = host_cpu_energy(&why_not);
    if (cpu) energy.cpu.source = cpu->name();
    else energy.cpu.reason = why_not;
    if (nvml || cpu) measure_idle(nvml.get(), cpu, energy);
    return energy;
}

}  // namespace gpubench
