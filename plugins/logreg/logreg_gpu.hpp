// The GPU side shared by the CUDA backends (include from .cu files only): pinned host copies
// of the features, labels and theta, their device copies, the timed transfers on the
// runner's stream, and the softmax residual of one sample in device code.
#pragma once

#include "logreg_common.hpp"

#include <gpubench/cuda.hpp>

namespace logreg {

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

// The class GPUBENCH_PLUGIN wraps for CUDA backends. Trainer is constructed from (task,
// setup) and called as trainer.train(x, labels, theta) with device pointers; it enqueues one
// whole training (theta from zero) on gpubench::cuda::stream_of(setup), without
// synchronising or allocating. Its static scratch_bytes(n) is the device memory it keeps
// (for the work model). Its kRowFloats (>= 785) is the pitch of X's rows on the device: the
// upload pads each row to it with zeros, so a kernel may copy rows in aligned 16-byte pieces.
template <const gpubench::BackendSpec &Spec, class Trainer>
class DevicePlugin {
public:
    explicit DevicePlugin(const gpubench::Setup &setup)
        : task_(Spec, setup),
          stream_(gpubench::cuda::stream_of(setup)),
          x_host_(task_.samples() * kFeatures), labels_host_(task_.samples()),
          theta_host_(kThetaSize),
          x_(task_.samples() * Trainer::kRowFloats), labels_(labels_host_.size()),
          theta_(kThetaSize),
          trainer_(task_, setup) {
        task_.fill_features(x_host_.data());
        std::copy_n(task_.labels(), task_.samples(), labels_host_.data());
        poison(theta_host_.data(), theta_host_.size());
        // All bytes 0xFF is a float NaN: a theta the training never writes fails verify.
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(theta_.data(), 0xFF, theta_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(x_.data(), 0, x_.bytes(), stream_));  // the padding
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &params) {
        return make_work(Spec, n, params, Trainer::scratch_bytes(n));
    }

    void upload() {
        static_assert(Trainer::kRowFloats >= kFeatures);
        GPUBENCH_CUDA_CHECK(cudaMemcpy2DAsync(
            x_.data(), Trainer::kRowFloats * sizeof(float), x_host_.data(),
            kFeatures * sizeof(float), kFeatures * sizeof(float), task_.samples(),
            cudaMemcpyHostToDevice, stream_));
        gpubench::cuda::copy_async(labels_, labels_host_, stream_);
    }
    void run() { trainer_.train(x_.data(), labels_.data(), theta_.data()); }
    void download() { gpubench::cuda::copy_async(theta_host_, theta_, stream_); }

    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        return task_.verify(x_host_.data(), theta_host_.data());
    }
    std::vector<gpubench::Metric> metrics() const { return task_.metrics(); }

private:
    Task task_;
    cudaStream_t stream_;
    gpubench::cuda::PinnedBuffer<float> x_host_;
    gpubench::cuda::PinnedBuffer<uint8_t> labels_host_;
    gpubench::cuda::PinnedBuffer<float> theta_host_;
    gpubench::cuda::DeviceBuffer<float> x_;
    gpubench::cuda::DeviceBuffer<uint8_t> labels_;
    gpubench::cuda::DeviceBuffer<float> theta_;
    Trainer trainer_;
};

}  // namespace logreg
