// SolveBak with cuBLAS on the device, no scalar ever copied to the host: the handle is in
// pointer mode DEVICE, so dot products land in device memory and axpy/gemv read their
// scaling factors from it. Per column (batch = 1): t_j = dot(X_j, e); a tiny kernel sets
// da = t_j / |X_j|^2, a_j += da and keeps -da; then e += (-da) X_j with axpy. Per block of
// columns (batch > 1): t = X_blk^T e (gemv, transposed), the same tiny kernel for the
// block, then e = -X_blk da + e (gemv). With graph=1 the handle works on the private
// capture stream and one iteration is replayed as a CUDA graph.
#include "solvebak_gpu.hpp"

#include <gpubench/cublas.hpp>

#include <algorithm>

namespace {

const gpubench::BackendSpec kCublas{
    "solvebak_cublas", "cublas", GPUBENCH_DEVICE_CUDA,
    "SolveBak least squares by coordinate descent with cuBLAS: dot + a tiny kernel + axpy "
    "per column (batch=1), or two gemv per block of columns, scalars kept on the device "
    "(pointer mode device), each iteration replayed as a CUDA graph (graph=1) (max_size "
    "4e6: X is 32 GB in float64)",
    4'000'000, {1'000, 10'000, 100'000, 1'000'000}, solvebak::kGpuParams};

// float/double overloads of the three cuBLAS calls (unit strides, device scalars).
cublasStatus_t dot(cublasHandle_t h, int n, const float *x, const float *y, float *result) {
    return cublasSdot(h, n, x, 1, y, 1, result);
}
cublasStatus_t dot(cublasHandle_t h, int n, const double *x, const double *y, double *result) {
    return cublasDdot(h, n, x, 1, y, 1, result);
}
cublasStatus_t axpy(cublasHandle_t h, int n, const float *alpha, const float *x, float *y) {
    return cublasSaxpy(h, n, alpha, x, 1, y, 1);
}
cublasStatus_t axpy(cublasHandle_t h, int n, const double *alpha, const double *x, double *y) {
    return cublasDaxpy(h, n, alpha, x, 1, y, 1);
}
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t op, int rows, int cols,
                    const float *alpha, const float *a, const float *x, const float *beta,
                    float *y) {
    return cublasSgemv(h, op, rows, cols, alpha, a, rows, x, 1, beta, y, 1);
}
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t op, int rows, int cols,
                    const double *alpha, const double *a, const double *x, const double *beta,
                    double *y) {
    return cublasDgemv(h, op, rows, cols, alpha, a, rows, x, 1, beta, y, 1);
}

// da = t / |X_j|^2 for `count` columns; a += da; minus_da = -da for the update of e.
template <class T>
__global__ void divide_step(const T *dots, const T *x_x, T *a, T *minus_da, int count) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < count) {
        const T da = dots[b] / x_x[b];
        a[b] += da;
        minus_da[b] = -da;
    }
}

template <class T>
class CublasSolver {
public:
    CublasSolver(const solvebak::Config &config, const gpubench::Setup &,
                 solvebak::DeviceData<T> data, cudaStream_t stream)
        : c_(config), stream_(stream), data_(data), handle_(stream), dots_(config.vars),
          minus_da_(config.vars), constants_(2) {
        GPUBENCH_CUBLAS_CHECK(cublasSetPointerMode(handle_.get(), CUBLAS_POINTER_MODE_DEVICE));
        const T host_constants[2] = {T(1), T(0)};
        GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(constants_.data(), host_constants,
                                            sizeof host_constants, cudaMemcpyHostToDevice,
                                            stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // host_constants goes away
    }

    void begin_run(cudaStream_t) {}  // every step writes its scratch before reading it

    void enqueue_iteration() {
        const int obs = static_cast<int>(c_.obs);
        const T *one = constants_.data(), *zero = constants_.data() + 1;
        for (size_t j0 = 0; j0 < c_.vars; j0 += c_.batch) {
            const int count = static_cast<int>(std::min(c_.batch, c_.vars - j0));
            const T *columns = data_.x + j0 * c_.obs;
            if (c_.batch == 1)
                GPUBENCH_CUBLAS_CHECK(dot(handle_.get(), obs, columns, data_.e, dots_.data() + j0));
            else
                GPUBENCH_CUBLAS_CHECK(gemv(handle_.get(), CUBLAS_OP_T, obs, count, one, columns,
                                           data_.e, zero, dots_.data() + j0));
            constexpr int kThreads = 128;
            divide_step<T><<<(count + kThreads - 1) / kThreads, kThreads, 0, stream_>>>(
                dots_.data() + j0, data_.x_x + j0, data_.a + j0, minus_da_.data() + j0, count);
            gpubench::cuda::check_launch("divide_step");
            if (c_.batch == 1)
                GPUBENCH_CUBLAS_CHECK(axpy(handle_.get(), obs, minus_da_.data() + j0, columns,
                                           data_.e));
            else
                GPUBENCH_CUBLAS_CHECK(gemv(handle_.get(), CUBLAS_OP_N, obs, count, one, columns,
                                           minus_da_.data() + j0, one, data_.e));
        }
    }

private:
    solvebak::Config c_;
    cudaStream_t stream_;
    solvebak::DeviceData<T> data_;
    gpubench::cublas::Handle handle_;  // on stream_
    gpubench::cuda::DeviceBuffer<T> dots_, minus_da_, constants_;  // constants: 1, 0
};

template <class T>
using CublasProblem = gpubench::cuda::DeviceProblem<solvebak::DeviceArrays<T, CublasSolver<T>>>;
using CublasPlugin = solvebak::Plugin<kCublas, CublasProblem>;

}  // namespace

GPUBENCH_PLUGIN(CublasPlugin, solvebak::make_info(kCublas))
