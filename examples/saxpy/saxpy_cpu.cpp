// example_saxpy_cpu: y = a*x + y with one thread, written with the C++ helper.
#include "saxpy.hpp"

#include <vector>

namespace {

const gpubench::Info info = saxpy::info("example_saxpy_cpu", "cpu", GPUBENCH_DEVICE_CPU,
                                        "saxpy, one CPU thread, plain loop");

}  // namespace

class SaxpyCpu {
public:
    // checked_size: a size outside the descriptor's range is NotSupported, never allocated.
    explicit SaxpyCpu(const gpubench::Setup &setup)
        : a_(saxpy::scale(setup.params)),
          x_(gpubench::checked_size(info, setup.size)),
          y_in_(setup.size),
          y_out_(setup.size) {
        saxpy::make_inputs(setup.seed, x_.size(), x_.data(), y_in_.data());
    }

    static gpubench::Work work(uint64_t size, const gpubench::Params &params) {
        return saxpy::work(size, params, false);
    }

    // The timed part. y_in is left alone, so each call computes the whole result again.
    void run() {
        const float a = a_;
        const float *x = x_.data();
        const float *y_in = y_in_.data();
        float *y_out = y_out_.data();
        const size_t n = x_.size();
        for (size_t i = 0; i < n; ++i) y_out[i] = a * x[i] + y_in[i];
    }

    gpubench::Verification verify() {
        return saxpy::verify(a_, x_.data(), y_in_.data(), y_out_.data(), x_.size());
    }

private:
    float a_;
    std::vector<float> x_, y_in_, y_out_;
};

GPUBENCH_PLUGIN(SaxpyCpu, info)
