// mandelbrot's CUDA problem (include from .cu files only): the image mirrored on the device.
#pragma once

#include "mandelbrot_common.hpp"

#include <gpubench/device_problem.hpp>

namespace mandelbrot {

// Kernel is constructed from (geometry, setup) and called as kernel.render(frame, image) with
// a Frame<float> or Frame<double> and a device pointer: the whole image on the runner's stream.
template <const gpubench::BackendSpec &Spec, class Kernel>
class DeviceImage {
public:
    explicit DeviceImage(const gpubench::Setup &setup)
        : checker_(Spec, setup), image_(checker_.geometry().pixels()),
          kernel_(checker_.geometry(), setup) {}
    static gpubench::Work work(uint64_t height, const gpubench::Params &params) {
        return make_work(Spec, height, params);
    }
    auto arrays() { return std::tie(image_); }
    void run() {
        with_precision(checker_.geometry().dtype, [&](auto zero) {
            kernel_.render(make_frame<decltype(zero)>(checker_.geometry()), image_.device.data());
        });
    }
    gpubench::Verification verify() { return checker_.verify(image_.host.data()); }
    std::vector<gpubench::Metric> metrics() const { return checker_.metrics(image_.host.data()); }

private:
    Checker checker_;
    gpubench::cuda::Output<uint16_t> image_;
    Kernel kernel_;
};

}  // namespace mandelbrot
