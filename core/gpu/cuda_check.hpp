// Checked CUDA runtime calls for the core's GPU code (the timers, the probe): a failure is a
// std::runtime_error naming the call and the error.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace gpubench::cuda_check {

inline std::string describe(cudaError_t status) {
    return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

inline void check(cudaError_t status, const char *what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + describe(status));
}

// Waits for `event`; with a deadline, gives up there with std::runtime_error(`why`): work that
// waits for other processes (a collective whose peer stopped) may never end.
inline void wait_for_event(cudaEvent_t event, const char *what,
                           std::optional<std::chrono::steady_clock::time_point> deadline,
                           const std::string &why) {
    if (!deadline) return check(cudaEventSynchronize(event), what);
    for (;;) {
        const cudaError_t status = cudaEventQuery(event);
        if (status == cudaSuccess) return;
        if (status != cudaErrorNotReady) check(status, what);
        if (std::chrono::steady_clock::now() >= *deadline) throw std::runtime_error(why);
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
}

}  // namespace gpubench::cuda_check
