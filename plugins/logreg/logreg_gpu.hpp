// logreg's CUDA problem (include from .cu files only): X, labels and theta mirrored on the device.
#pragma once

#include "logreg_common.hpp"

#include <gpubench/device_problem.hpp>

namespace logreg {

// Trainer is constructed from (task, setup) and called as trainer.train(x, labels, theta) with
// device pointers: one whole training (theta from zero) on the runner's stream, without
// synchronising or allocating. Its static scratch_bytes(n) is the device memory it keeps, its
// kRowFloats (>= 785) the pitch of X's zero-padded rows on the device (aligned copies).
template <const gpubench::BackendSpec &Spec, class Trainer>
class DeviceArrays {
public:
    explicit DeviceArrays(const gpubench::Setup &setup)
        : task_(Spec, setup),
          x_(task_.samples(), kFeatures, Trainer::kRowFloats, gpubench::cuda::stream_of(setup)),
          labels_(task_.samples()), theta_(kThetaSize), trainer_(task_, setup) {
        task_.fill_features(x_.host.data());
        std::copy_n(task_.labels(), task_.samples(), labels_.host.data());
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &params) {
        return make_work(Spec, n, params, Trainer::scratch_bytes(n));
    }
    auto arrays() { return std::tie(x_, labels_, theta_); }
    void run() { trainer_.train(x_.device.data(), labels_.device.data(), theta_.device.data()); }
    gpubench::Verification verify() { return task_.verify(x_.host.data(), theta_.host.data()); }
    std::vector<gpubench::Metric> metrics() const { return task_.metrics(); }

private:
    static_assert(Trainer::kRowFloats >= kFeatures);
    Task task_;
    gpubench::cuda::InputRows<float> x_;
    gpubench::cuda::Input<uint8_t> labels_;
    gpubench::cuda::Output<float> theta_;
    Trainer trainer_;
};

}  // namespace logreg
