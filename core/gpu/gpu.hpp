// What the runner knows about the GPU, and its CUDA-event timer. Implemented by gpu_cuda.cpp
// when gpubench is built with the CUDA toolkit, by gpu_none.cpp otherwise.
#pragma once

#include "phase_timer.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpubench {

struct GpuInfo {
    bool available = false;
    std::string unavailable_reason;  // why CUDA plugins cannot run, when !available
    int device = 0;
    std::string name;
    int compute_major = 0, compute_minor = 0;
    int sm_count = 0;
    uint64_t memory_bytes = 0;
    uint64_t l2_bytes = 0;
    int driver_version = 0;   // the CUDA version the driver supports, e.g. 13000 for 13.0
    std::string driver_release;  // the kernel driver's own version, e.g. "580.159.04"
    int runtime_version = 0;
    std::string pci_bus_id;
    std::string uuid;  // "GPU-xxxxxxxx-...", as nvidia-smi -L prints it: stable across reboots
    // Peaks from device attributes (0: architecture not known): FP32 and FP64 without tensor
    // cores, SMs x boost clock x lanes x 2; memory clock x bus width x 2 (double data rate).
    double peak_fp32_flops = 0, peak_fp64_flops = 0, peak_bytes_per_s = 0;
    double boost_clock_hz = 0;
    int memory_bus_bits = 0;
    // The L2's read bandwidth, all SMs together: measured (l2_bandwidth.hpp); 0 until then.
    double l2_bytes_per_s = 0;
};

// Looks for CUDA device `device`; never throws.
GpuInfo probe_gpu(int device);

// How many CUDA devices this process sees (0 without a driver or a toolkit); never throws.
int cuda_device_count();

// CUDART_VERSION of the build (e.g. 12080), 0 without the toolkit; makes no CUDA call.
int built_cuda_runtime_version();

// Which device an entry ran on (--devices): enough to tell two GPUs of one model apart.
struct DeviceIdentity {
    int index = 0;
    std::string name, uuid, pci_bus_id;  // "" when the device was not probed
};
inline DeviceIdentity identity_of(const GpuInfo &gpu) {
    return {gpu.device, gpu.name, gpu.uuid, gpu.pci_bus_id};
}

// A timer recording CUDA events around each phase on a stream it owns, on `device`.
// Throws std::runtime_error when no CUDA device can be used.
std::unique_ptr<PhaseTimer> make_cuda_event_timer(int device);

// The timer of a plugin across several GPUs (ABI 1.5): a phase's time is the longest of the
// per-device spans; the first device gives the memory, NVML and roofline readings.
std::unique_ptr<PhaseTimer> make_multi_device_timer(const std::vector<int> &devices);

// "" while the device is usable; else the sticky error that made every later CUDA call fail.
std::string cuda_sticky_error();

// A device's L2 set aside for persisting accesses, and the access-policy window on the
// runner's stream there: what a plugin may change (persisting_l2_cuda.cpp).
struct PersistingL2 {
    size_t set_aside_bytes = 0;
    size_t window_bytes = 0;
};
// Read on each of `devices`, with the runner's `streams` in the same order (none without CUDA).
std::vector<PersistingL2> read_persisting_l2(const std::vector<int> &devices, const std::vector<void *> &streams);
// After an entry: what its plugin left changed from `before` ("" where nothing), each set back.
std::string restore_persisting_l2(const std::vector<PersistingL2> &before, const std::vector<int> &devices,
                                  const std::vector<void *> &streams);

}  // namespace gpubench
