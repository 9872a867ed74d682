// cuBLAS training: per step, Z = X theta with cublasSgemm, the softmax residual
// D = softmax(Z) - Y in place with a one-thread-per-sample kernel, then
// theta = theta - lr / n * X^T D as one cublasSgemm with beta = 1 (the update fused into the
// gradient product). Default math mode, so float stays true FP32 (no TF32 tensor cores).
//
// cuBLAS is column-major: our row-major X (n x 785) is its 785 x n matrix X^T, our
// feature-major theta (785 x 10) its 10 x 785 theta^T, our row-major Z (n x 10) its 10 x n
// Z^T. So Z^T = theta^T X^T is a plain N,N product and theta^T += D^T X an N,T product.
#include "logreg_gpu.hpp"

#include <gpubench/cublas.hpp>

namespace {

const gpubench::BackendSpec kCublas{
    "logreg_cublas", "cublas", GPUBENCH_DEVICE_CUDA,
    "softmax regression, full-batch gradient descent; cublasSgemm for X theta, a "
    "softmax kernel, cublasSgemm for the gradient with the update fused (beta 1)",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

using namespace logreg;

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    softmax_residuals(float *__restrict__ logits, const uint8_t *__restrict__ labels, int n) {
    const int i = blockIdx.x * kThreads + threadIdx.x;
    if (i >= n) return;
    float *row = logits + size_t(i) * kClasses;
    float z[kClasses];
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c) z[c] = row[c];
    softmax_residual_in_place(z, labels[i]);
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c) row[c] = z[c];
}

class CublasTrainer {
public:
    static constexpr size_t kRowFloats = kFeatures;  // X as the host holds it
    // The logits and cuBLAS's workspace.
    static double scratch_bytes(uint64_t n) {
        return static_cast<double>(n) * kClasses * sizeof(float) + double(32 << 20);
    }

    CublasTrainer(const Task &task, const gpubench::Setup &setup)
        : n_(static_cast<int>(task.samples())),
          settings_(task.settings()),
          stream_(gpubench::cuda::stream_of(setup)),
          handle_(stream_),
          logits_(task.samples() * kClasses) {}

    void train(const float *x, const uint8_t *labels, float *theta) {
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(theta, 0, kThetaSize * sizeof(float), stream_));
        constexpr int classes = int(kClasses), features = int(kFeatures);
        const float one = 1, zero = 0, minus_step = -settings_.lr / static_cast<float>(n_);
        const int blocks = (n_ + kThreads - 1) / kThreads;
        for (int i = 0; i < settings_.iterations; ++i) {
            GPUBENCH_CUBLAS_CHECK(cublasSgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, classes,
                                              n_, features, &one, theta, classes, x, features,
                                              &zero, logits_.data(), classes));
            softmax_residuals<<<blocks, kThreads, 0, stream_>>>(logits_.data(), labels, n_);
            gpubench::cuda::check_launch("softmax_residuals");
            GPUBENCH_CUBLAS_CHECK(cublasSgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_T, classes,
                                              features, n_, &minus_step, logits_.data(),
                                              classes, x, features, &one, theta, classes));
        }
    }

private:
    int n_;
    Settings settings_;
    cudaStream_t stream_;
    gpubench::cublas::Handle handle_;
    gpubench::cuda::DeviceBuffer<float> logits_;  // Z, then D in place; n x 10
};

using CublasPlugin = DevicePlugin<kCublas, CublasTrainer>;

}  // namespace

GPUBENCH_PLUGIN(CublasPlugin, make_info(kCublas))
