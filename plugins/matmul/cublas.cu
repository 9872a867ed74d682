// cuBLAS GEMM on the runner's stream: the vendor reference the hand-written kernel is
// measured against. Default math mode, so float stays true FP32 (no TF32 tensor cores);
// math=tf32 is cuBLAS's fast TF32 mode, a labelled lower-accuracy reference.
#include "matmul_gpu.hpp"

#include <gpubench/cublas.hpp>

#include <type_traits>

namespace {

const gpubench::BackendSpec kCublas{
    "matmul_cublas", "cublas", GPUBENCH_DEVICE_CUDA,
    "C = A*B with cublasSgemm/cublasDgemm on the runner's stream, row-major mapped, "
    "default math mode (no TF32); math=tf32: cuBLAS's TF32 tensor-core mode for float32, "
    "a lower-accuracy reference (inputs rounded to 10 mantissa bits)",
    32768, {64, 128, 256, 512, 1024, 2048, 4096}};

template <class T>
class CublasKernel {
public:
    CublasKernel(size_t n, const gpubench::Setup &setup)
        : n_(static_cast<int>(n)), handle_(gpubench::cuda::stream_of(setup)) {
        if (matmul::input_rounding(setup.params) > 0)  // math=tf32 (float32 only: Rules refuses float64)
            GPUBENCH_CUBLAS_CHECK(cublasSetMathMode(handle_.get(), CUBLAS_TF32_TENSOR_OP_MATH));
    }

    // Row-major C = A*B is column-major C^T = B^T * A^T: cuBLAS sees our row-major B as
    // column-major B^T, so B goes first and no transposes are needed.
    void multiply(const T *a, const T *b, T *c) {
        const T one = 1, zero = 0;
        if constexpr (std::is_same_v<T, float>)
            GPUBENCH_CUBLAS_CHECK(cublasSgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n_, n_,
                                              n_, &one, b, n_, a, n_, &zero, c, n_));
        else
            GPUBENCH_CUBLAS_CHECK(cublasDgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n_, n_,
                                              n_, &one, b, n_, a, n_, &zero, c, n_));
    }

private:
    int n_;
    gpubench::cublas::Handle handle_;
};

template <class T>
using CublasProblem = gpubench::cuda::DeviceProblem<matmul::DeviceArrays<T, CublasKernel<T>>>;
using CublasPlugin = matmul::Plugin<kCublas, CublasProblem>;

}  // namespace

GPUBENCH_PLUGIN(CublasPlugin, matmul::make_info(kCublas, {matmul::kMathParam}))
