// The GPU's clocks, temperature, power, energy and throttle reasons, the CPUs near it and its
// links to other GPUs, read through NVML (the driver's libnvidia-ml.so.1, loaded at run time).
// A reading NVML cannot give is absent ("n/a"), never an error.
#pragma once

#include "interconnect_peak.hpp"
#include "json_fields.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct GpuState {
    std::optional<unsigned> sm_clock_mhz, memory_clock_mhz, temperature_c;
    std::optional<unsigned> utilization_percent;  // NVML's sampled "GPU busy" of the last period
    std::optional<double> power_w;
    std::optional<uint64_t> energy_mj;           // since the driver loaded
    std::optional<uint64_t> throttle_reasons;    // NVML's clock event reasons (bitmask)
    std::optional<uint64_t> memory_used_bytes;   // the whole device's, anyone's
    std::optional<unsigned> compute_processes;   // processes with a CUDA context on it, ours included

    // A power or thermal slowdown (not idle, application clocks or sync boost) is active.
    bool throttled() const;
    // Another process computes on this GPU too: device times and used memory are not ours alone.
    bool shared() const { return compute_processes && *compute_processes > 1; }
};

// Its one encoding, the results file's and the worker's: absent readings are left out.
GPUBENCH_JSON_FIELDS(GpuState, sm_clock_mhz, memory_clock_mhz, temperature_c, utilization_percent,
                     power_w, energy_mj, throttle_reasons, memory_used_bytes, compute_processes)

class NvmlProbe {
public:
    // The device with this PCI bus id ("0000:65:00.0"), or nullptr with the reason in `why_not`.
    static std::unique_ptr<NvmlProbe> open(const std::string &pci_bus_id, std::string &why_not);
    GpuState read() const;
    // Single readings of GpuState, each one NVML call (about 4 ms on an H200): what is read
    // many times in a row, waiting for the energy counter to change.
    std::optional<uint64_t> energy_mj() const;
    std::optional<double> power_w() const;
    std::optional<unsigned> compute_processes() const;  // GpuState::compute_processes alone
    // The CPUs local to the device (NVML's ideal affinity), ascending; empty when not known.
    std::vector<int> local_cpus() const;
    std::optional<int> numa_node() const;
    LinkAnswers link_answers() const;

private:
    explicit NvmlProbe(void *device) : device_(device) {}
    void *device_;  // nvmlDevice_t
};

// The link answers of the device at this PCI bus id, or why NVML cannot be asked.
LinkAnswers link_answers_of(const std::string &pci_bus_id);

}  // namespace gpubench
