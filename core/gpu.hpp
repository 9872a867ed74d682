// What the runner knows about the GPU, and its CUDA-event timer. Implemented by gpu_cuda.cpp
// when gpubench is built with the CUDA toolkit, by gpu_none.cpp otherwise.
#pragma once

#include "phase_timer.hpp"

#include <cstdint>
#include <memory>
#include <string>

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
    // Peak rates from device attributes (0 when not known for this architecture): FP32 and
    // FP64 without tensor cores, SMs x boost clock x lanes per SM x 2 (an FMA is 2 FLOP);
    // memory bandwidth, memory clock x bus width x 2 (double data rate).
    double peak_fp32_flops = 0, peak_fp64_flops = 0, peak_bytes_per_s = 0;
    double boost_clock_hz = 0;
};

// Looks for CUDA device `device`; never throws.
GpuInfo probe_gpu(int device);

// A timer recording CUDA events around each phase on a stream it owns, on `device`.
// Throws std::runtime_error when no CUDA device can be used.
std::unique_ptr<PhaseTimer> make_cuda_event_timer(int device);

// "" while the device is usable; otherwise the sticky error that made it unusable (after an
// illegal address, say, every later CUDA call in this process fails).
std::string cuda_sticky_error();

}  // namespace gpubench
