// vecadd's CUDA problem (include from .cu files only): a, b and c mirrored on the device.
#pragma once

#include "vecadd_common.hpp"

#include <gpubench/device_problem.hpp>

namespace vecadd {

// Kernel is constructed from (n, setup, variant) and called as kernel.add(a, b, c) or
// kernel.increment(c) with device pointers, enqueueing on the runner's stream without
// allocating; device memory of its own it declares as static double scratch_bytes(n, params).
template <const gpubench::BackendSpec &Spec, class Kernel>
class DeviceArrays {
public:
    explicit DeviceArrays(const gpubench::Setup &setup)
        : instance_(make_instance(Spec, setup)), a_(instance_.n), b_(add() ? instance_.n : 0),
          c_(instance_.n, add() ? nullptr : &a_),  // increment: c from the pristine a
          kernel_(instance_.n, setup, instance_.variant) {
        fill_inputs(instance_, a_.host.data(), b_.host.data());
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &params) {
        gpubench::Work w = make_work(Spec, n, params);
        if constexpr (requires { Kernel::scratch_bytes(n, params); })
            w.device_bytes += Kernel::scratch_bytes(n, params);
        return w;
    }
    auto arrays() { return std::tie(a_, b_, c_); }
    void run() {
        if (add()) kernel_.add(a_.device.data(), b_.device.data(), c_.device.data());
        else kernel_.increment(c_.device.data());
    }
    gpubench::Verification verify() { return verify_result(instance_, c_.host.data()); }

private:
    bool add() const { return instance_.variant == Variant::add; }
    Instance instance_;
    gpubench::cuda::Input<float> a_, b_;  // b only for add
    gpubench::cuda::InPlace<float> c_;
    Kernel kernel_;
};

}  // namespace vecadd
