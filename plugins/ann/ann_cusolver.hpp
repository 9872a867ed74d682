// The normal equations' solve for ann's CUDA backends (include from .cu files only): the
// ridge, a cuSOLVER dense handle on the runner's stream, and its statuses as gpubench errors.
#pragma once

#include "ann_common.hpp"

#include <gpubench/plugin.hpp>

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <string>

namespace ann {

// gram (kNeurons x kNeurons; only its diagonal is touched, so either storage order) gets
// kRidge * trace(gram) / kNeurons added to its diagonal. One block of kRidgeThreads, the
// trace summed in a fixed tree. Internal linkage: each backend's .so has its own copy.
constexpr int kRidgeThreads = 256;
static __global__ void __launch_bounds__(kRidgeThreads) add_ridge(double *gram) {
    __shared__ double partial[kRidgeThreads];
    double sum = 0;
    for (int k = threadIdx.x; k < int(kNeurons); k += kRidgeThreads)
        sum += gram[size_t(k) * (kNeurons + 1)];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kRidgeThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    const double ridge = kRidge * partial[0] / double(kNeurons);
    for (int k = threadIdx.x; k < int(kNeurons); k += kRidgeThreads)
        gram[size_t(k) * (kNeurons + 1)] += ridge;
}

}  // namespace ann

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
