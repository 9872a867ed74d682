// cuBLAS helpers for plugins written with gpubench/plugin.hpp: checked calls that throw the
// right gpubench exception, and a handle bound to the runner's stream with a workspace the
// plugin owns (so no allocation happens inside a timed run). Include from .cu/.cpp files
// that link CUDA::cublas.
#pragma once

#include <gpubench/cuda.hpp>

#include <cublas_v2.h>

#include <string>

namespace gpubench::cublas {

// ALLOC_FAILED -> OutOfMemory, NOT_SUPPORTED/ARCH_MISMATCH -> NotSupported, else DEVICE_ERROR.
inline void check(cublasStatus_t status, const char *what) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    const std::string message = std::string(what) + ": " + cublasGetStatusName(status) + " (" +
                                cublasGetStatusString(status) + ")";
    if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemory(message);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH)
        throw NotSupported(message);
    throw Error(GPUBENCH_DEVICE_ERROR, message);
}

// A cuBLAS handle on `stream` in the default math mode (true FP32: no TF32 tensor cores),
// with its own workspace.
class Handle {
public:
    // 32 MiB is cuBLAS's recommended workspace for Hopper.
    explicit Handle(cudaStream_t stream, size_t workspace_bytes = size_t{32} << 20)
        : workspace_(workspace_bytes) {
        check(cublasCreate(&handle_), "cublasCreate");
        try {
            // SetStream resets the workspace to cuBLAS's pool, so it comes first.
            check(cublasSetStream(handle_, stream), "cublasSetStream");
            check(cublasSetWorkspace(handle_, workspace_.data(), workspace_.bytes()),
                  "cublasSetWorkspace");
            check(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
        } catch (...) {
            cublasDestroy(handle_);
            throw;
        }
    }
    ~Handle() { cublasDestroy(handle_); }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;

    cublasHandle_t get() const { return handle_; }

private:
    cuda::DeviceBuffer<unsigned char> workspace_;
    cublasHandle_t handle_ = nullptr;
};

}  // namespace gpubench::cublas

#define GPUBENCH_CUBLAS_CHECK(call) ::gpubench::cublas::check((call), #call)
