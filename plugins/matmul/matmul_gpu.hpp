// matmul's CUDA problem (include from .cu files only): A, B and C mirrored on the device.
#pragma once

#include "matmul_common.hpp"

#include <gpubench/device_problem.hpp>

namespace matmul {

// Kernel<T> is constructed from (n, setup) and called as kernel.multiply(a, b, c) with
// device pointers; it enqueues all of C = A*B on gpubench::cuda::stream_of(setup).
template <class T, class Kernel>
class DeviceArrays {
public:
    DeviceArrays(const gpubench::Setup &setup, size_t n)
        : n_(n), rounding_(input_rounding(setup.params)), a_(n * n), b_(n * n), c_(n * n), kernel_(n, setup) {
        fill_inputs(setup.seed, n, a_.host.data(), b_.host.data());
    }
    auto arrays() { return std::tie(a_, b_, c_); }
    void run() { kernel_.multiply(a_.device.data(), b_.device.data(), c_.device.data()); }
    gpubench::Verification verify() {
        return checked_ = verify_product(n_, a_.host.data(), b_.host.data(), c_.host.data(), rounding_);
    }
    std::vector<gpubench::Metric> metrics() const { return error_metrics(checked_); }

private:
    size_t n_;
    double rounding_;  // of the inputs by the kernel's math (math=tf32), which the check allows
    gpubench::cuda::Input<T> a_, b_;
    gpubench::cuda::Output<T> c_;
    Kernel kernel_;
    gpubench::Verification checked_;
};

}  // namespace matmul
