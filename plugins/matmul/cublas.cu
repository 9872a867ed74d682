// cuBLAS GEMM on the runner's stream: the vendor reference the hand-written kernel is
// measured against. Default math mode, so float stays true FP32 (no TF32 tensor cores).
#include "matmul_gpu.hpp"

#include <cublas_v2.h>

#include <string>
#include <type_traits>

namespace {

void check_cublas(cublasStatus_t status, const char *what) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    const std::string message = std::string(what) + ": " + cublasGetStatusName(status) + " (" +
                                cublasGetStatusString(status) + ")";
    if (status == CUBLAS_STATUS_ALLOC_FAILED) throw gpubench::OutOfMemory(message);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH)
        throw gpubench::NotSupported(message);
    throw gpubench::Error(GPUBENCH_DEVICE_ERROR, message);
}

#define CUBLAS_CHECK(call) check_cublas((call), #call)

// cuBLAS's recommended workspace for Hopper; owning it keeps allocations out of timed runs.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

template <class T>
class CublasKernel {
public:
    CublasKernel(size_t n, const gpubench::Setup &setup)
        : n_(static_cast<int>(n)), workspace_(kWorkspaceBytes) {
        CUBLAS_CHECK(cublasCreate(&handle_));
        try {
            // SetStream resets the workspace to cuBLAS's pool, so it comes first.
            CUBLAS_CHECK(cublasSetStream(handle_, gpubench::cuda::stream_of(setup)));
            CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_.data(), workspace_.bytes()));
            CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
        } catch (...) {
            cublasDestroy(handle_);
            throw;
        }
    }
    ~CublasKernel() { cublasDestroy(handle_); }
    CublasKernel(const CublasKernel &) = delete;
    CublasKernel &operator=(const CublasKernel &) = delete;

    // Row-major C = A*B is column-major C^T = B^T * A^T: cuBLAS sees our row-major B as
    // column-major B^T, so B goes first and no transposes are needed.
    void multiply(const T *a, const T *b, T *c) {
        const T one = 1, zero = 0;
        if constexpr (std::is_same_v<T, float>)
            CUBLAS_CHECK(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &one, b, n_,
                                     a, n_, &zero, c, n_));
        else
            CUBLAS_CHECK(cublasDgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &one, b, n_,
                                     a, n_, &zero, c, n_));
    }

private:
    int n_;
    gpubench::cuda::DeviceBuffer<unsigned char> workspace_;
    cublasHandle_t handle_ = nullptr;
};

template <class T>
using CublasProblem = matmul::DeviceProblem<T, CublasKernel<T>>;
using CublasPlugin = matmul::Plugin<matmul::Backend::cublas, CublasProblem>;

}  // namespace

GPUBENCH_PLUGIN(CublasPlugin, matmul::make_info(matmul::Backend::cublas))
