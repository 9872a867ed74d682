// Checked CUDA runtime calls for the core's GPU code (the timers, the probe): a failure is a
// std::runtime_error naming the call and the error.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpubench::cuda_check {

inline std::string describe(cudaError_t status) {
    return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

inline void check(cudaError_t status, const char *what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + describe(status));
}

}  // namespace gpubench::cuda_check
