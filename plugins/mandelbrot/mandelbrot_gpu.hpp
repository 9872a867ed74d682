// The GPU side shared by the CUDA backends (include from .cu files only): the image in
// device memory, its pinned host copy, and the timed download on the runner's stream.
#pragma once

#include "mandelbrot_common.hpp"

#include <gpubench/cuda.hpp>

namespace mandelbrot {

// Kernel is constructed from (geometry, setup) and called as kernel.render(frame, image)
// with a Frame<float> or Frame<double> and a device pointer; it enqueues the whole image on
// the runner's stream. There are no inputs, so no upload().
template <const gpubench::BackendSpec &Spec, class Kernel>
class DeviceProblem {
public:
    explicit DeviceProblem(const gpubench::Setup &setup)
        : checker_(Spec, setup),
          stream_(gpubench::cuda::stream_of(setup)),
          image_host_(checker_.geometry().pixels()),
          image_(checker_.geometry().pixels()),
          kernel_(checker_.geometry(), setup) {
        poison(image_host_.data(), image_host_.size());
        // 0xFFFF in every pixel: pixels a kernel skips fail verification.
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(image_.data(), 0xFF, image_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }
    static gpubench::Work work(uint64_t height, const gpubench::Params &params) {
        return make_work(Spec, height, params);
    }

    void run() {
        with_precision(checker_.geometry().dtype, [&](auto zero) {
            kernel_.render(make_frame<decltype(zero)>(checker_.geometry()), image_.data());
        });
    }
    void download() { gpubench::cuda::copy_async(image_host_, image_, stream_); }

    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        return checker_.verify(image_host_.data());
    }
    std::vector<gpubench::Metric> metrics() const { return checker_.metrics(image_host_.data()); }

private:
    Checker checker_;
    cudaStream_t stream_;
    gpubench::cuda::PinnedBuffer<uint16_t> image_host_;
    gpubench::cuda::DeviceBuffer<uint16_t> image_;
    Kernel kernel_;
};

}  // namespace mandelbrot
