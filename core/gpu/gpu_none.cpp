// The GPU module of a build without the CUDA toolkit: no CUDA plugins can exist or run.
#include "gpu.hpp"
#include "l2_bandwidth.hpp"

#include <stdexcept>

namespace gpubench {

GpuInfo probe_gpu(int device) {
    GpuInfo info;
    info.device = device;
    info.unavailable_reason = "gpubench was built without the CUDA toolkit";
    return info;
}

int cuda_device_count() { return 0; }

int built_cuda_runtime_version() { return 0; }

double measure_l2_read_bytes_per_s(uint64_t, int) { return 0; }  // no kernel to measure with

std::unique_ptr<PhaseTimer> make_cuda_event_timer(int) {
    throw std::runtime_error("gpubench was built without the CUDA toolkit");
}

std::unique_ptr<PhaseTimer> make_multi_device_timer(const std::vector<int> &) {
    throw std::runtime_error("gpubench was built without the CUDA toolkit");
}

std::string cuda_sticky_error() { return ""; }

std::vector<PersistingL2> read_persisting_l2(const std::vector<int> &, const std::vector<void *> &) { return {}; }

std::string restore_persisting_l2(const std::vector<PersistingL2> &, const std::vector<int> &,
                                  const std::vector<void *> &) {
    return "";
}

}  // namespace gpubench
