// cuSOLVER for ann's CUDA backends (include from .cu files only): a dense handle on the
// runner's stream, and its statuses as gpubench errors.
#pragma once

#include <gpubench/plugin.hpp>

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <string>

namespace ann::cusolver {

// ALLOC_FAILED -> OutOfMemory, NOT_SUPPORTED/ARCH_MISMATCH -> NotSupported, else DEVICE_ERROR.
inline void check(cusolverStatus_t status, const char *what) {
    if (status == CUSOLVER_STATUS_SUCCESS) return;
    const std::string message = std::string(what) + ": cuSOLVER status " + std::to_string(int(status));
    if (status == CUSOLVER_STATUS_ALLOC_FAILED) throw gpubench::OutOfMemory(message);
    if (status == CUSOLVER_STATUS_NOT_SUPPORTED || status == CUSOLVER_STATUS_ARCH_MISMATCH)
        throw gpubench::NotSupported(message);
    throw gpubench::Error(GPUBENCH_DEVICE_ERROR, message);
}

class Handle {
public:
    explicit Handle(cudaStream_t stream) {
        check(cusolverDnCreate(&handle_), "cusolverDnCreate");
        if (cusolverStatus_t status = cusolverDnSetStream(handle_, stream);
            status != CUSOLVER_STATUS_SUCCESS) {
            cusolverDnDestroy(handle_);
            check(status, "cusolverDnSetStream");
        }
    }
    ~Handle() { cusolverDnDestroy(handle_); }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    cusolverDnHandle_t get() const { return handle_; }

private:
    cusolverDnHandle_t handle_ = nullptr;
};

}  // namespace ann::cusolver

#define ANN_CUSOLVER_CHECK(call) ::ann::cusolver::check((call), #call)
