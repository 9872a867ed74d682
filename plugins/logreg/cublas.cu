// cuBLAS training: per step, Z = X theta with cublasSgemm, the softmax residual
// D = softmax(Z) - Y in place with a one-thread-per-sample kernel, then
// theta = theta - lr / n * X^T D. Default math mode, so float stays true FP32 (no TF32
// tensor cores).
//
// The gradient product is one cublasSgemm with beta = 1 (the update fused into it), except
// for large n: there one product over all n samples (K = n) leaves the GPU half idle (114 us
// a step at n = 60000 on the H100), so the samples are cut into kPartials chunks whose
// products come from one cublasSgemmStridedBatched (and one cublasSgemm for a short last
// chunk), summed into theta by one cublasSgemv against a vector of ones with beta = 1:
// 97 us. Below kPartials * kMinChunk samples the extra calls cost more than they save. The
// chunking is a function of n only, so the order of the sum never depends on the device.
//
// cuBLAS is column-major: our row-major X (n x 785) is its 785 x n matrix X^T, our
// feature-major theta (785 x 10) its 10 x 785 theta^T, our row-major Z (n x 10) its 10 x n
// Z^T. So Z^T = theta^T X^T is a plain N,N product and theta^T += D^T X an N,T product.
#include "logreg_gpu.hpp"

#include "fill.cuh"

#include <gpubench/cublas.hpp>

namespace {

const gpubench::BackendSpec kCublas{
    "logreg_cublas", "cublas", GPUBENCH_DEVICE_CUDA,
    "softmax regression by full-batch gradient descent: cublasSgemm for X theta, a "
    "softmax-residual kernel, cublasSgemm for the gradient with the update fused (beta = "
    "1); from 30000 samples the gradient as 60 partial products over chunks of samples "
    "(cublasSgemmStridedBatched) summed into theta by cublasSgemv",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

using namespace logreg;

constexpr int kThreads = 256;

// z <- softmax(z) - onehot(label), in place; shifted by max(z) like the host's
// softmax_residual, so expf never overflows.
__device__ __forceinline__ void softmax_residual_in_place(float (&z)[kClasses],
                                                          unsigned label) {
    float top = z[0];
#pragma unroll
    for (int c = 1; c < int(kClasses); ++c) top = fmaxf(top, z[c]);
    float sum = 0;
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c) {
        z[c] = expf(z[c] - top);
        sum += z[c];
    }
    const float inverse = 1.0f / sum;
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c)
        z[c] = z[c] * inverse - (unsigned(c) == label ? 1.0f : 0.0f);
}

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

// The gradient's chunks of samples (tuned on the H100; see the top of the file).
constexpr int kPartials = 60, kMinChunk = 500;

struct Chunks {
    int samples = 0, whole = 0, rest = 0;  // none: one product over all n samples
    explicit Chunks(uint64_t n) {
        if (n < uint64_t{kPartials} * kMinChunk) return;
        samples = static_cast<int>((n + kPartials - 1) / kPartials);
        whole = static_cast<int>(n / samples), rest = static_cast<int>(n % samples);
    }
    int partials() const { return whole + (rest > 0 ? 1 : 0); }  // at most kPartials
};

class CublasTrainer {
public:
    static constexpr size_t kRowFloats = kFeatures;  // X as the host holds it
    // The logits, the partial gradients, the ones and cuBLAS's workspace.
    static double scratch_bytes(uint64_t n) {
        const double partials = Chunks(n).partials();
        return (static_cast<double>(n) * kClasses + partials * (kThetaSize + 1)) *
                   sizeof(float) +
               double(32 << 20);
    }

    CublasTrainer(const Task &task, const gpubench::Setup &setup)
        : n_(static_cast<int>(task.samples())),
          settings_(task.settings()),
          stream_(gpubench::cuda::stream_of(setup)),
          handle_(stream_),
          chunks_(task.samples()),
          logits_(task.samples() * kClasses),
          partials_(size_t(chunks_.partials()) * kThetaSize),
          ones_(chunks_.partials()) {
        // DeviceProblem synchronises the stream after constructing the trainer.
        plugin_common::fill(ones_.data(), ones_.size(), 1.0f, stream_);
    }

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
            add_gradient(x, theta, minus_step);
        }
    }

private:
    // theta^T += scale * D^T X: one product, or the chunks' partial products and their sum.
    void add_gradient(const float *x, float *theta, float scale) {
        constexpr int classes = int(kClasses), features = int(kFeatures);
        constexpr int theta_size = int(kThetaSize);
        const float one = 1, zero = 0;
        if (chunks_.partials() == 0) {
            GPUBENCH_CUBLAS_CHECK(cublasSgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_T, classes,
                                              features, n_, &scale, logits_.data(), classes,
                                              x, features, &one, theta, classes));
            return;
        }
        const int64_t chunk = chunks_.samples;
        if (chunks_.whole > 0)
            GPUBENCH_CUBLAS_CHECK(cublasSgemmStridedBatched(
                handle_.get(), CUBLAS_OP_N, CUBLAS_OP_T, classes, features, chunks_.samples,
                &one, logits_.data(), classes, chunk * classes, x, features, chunk * features,
                &zero, partials_.data(), classes, theta_size, chunks_.whole));
        if (chunks_.rest > 0) {
            const size_t first = size_t(chunks_.whole) * chunk;
            GPUBENCH_CUBLAS_CHECK(cublasSgemm(
                handle_.get(), CUBLAS_OP_N, CUBLAS_OP_T, classes, features, chunks_.rest, &one,
                logits_.data() + first * classes, classes, x + first * features, features,
                &zero, partials_.data() + size_t(chunks_.whole) * theta_size, classes));
        }
        GPUBENCH_CUBLAS_CHECK(cublasSgemv(handle_.get(), CUBLAS_OP_N, theta_size,
                                          chunks_.partials(), &scale, partials_.data(),
                                          theta_size, ones_.data(), 1, &one, theta, 1));
    }

    int n_;
    Settings settings_;
    cudaStream_t stream_;
    gpubench::cublas::Handle handle_;
    Chunks chunks_;
    gpubench::cuda::DeviceBuffer<float> logits_;    // Z, then D in place; n x 10
    gpubench::cuda::DeviceBuffer<float> partials_;  // a theta-shaped product per chunk
    gpubench::cuda::DeviceBuffer<float> ones_;      // one per chunk
};

using CublasPlugin = gpubench::cuda::DeviceProblem<DeviceArrays<kCublas, CublasTrainer>>;

}  // namespace

GPUBENCH_PLUGIN(CublasPlugin, make_info(kCublas))
