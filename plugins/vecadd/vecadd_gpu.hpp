// The GPU side shared by the CUDA backends (include from .cu files only): pinned host
// inputs and result, device arrays, and the timed transfers on the runner's stream.
#pragma once

#include "vecadd_common.hpp"

#include <gpubench/cuda.hpp>

namespace vecadd {

// Kernel is constructed from (n, setup, variant) and called as kernel.add(a, b, c) or
// kernel.increment(c) with device pointers; it enqueues its work on the runner's stream
// and allocates nothing there. A Kernel that holds device memory of its own declares it as
// static double scratch_bytes(n, params), for the work model.
template <const gpubench::BackendSpec &Spec, class Kernel>
class DeviceProblem {
public:
    explicit DeviceProblem(const gpubench::Setup &setup)
        : instance_(make_instance(Spec, setup)),
          stream_(gpubench::cuda::stream_of(setup)),
          a_host_(instance_.n), b_host_(b_count()), c_host_(instance_.n),
          a_(instance_.n), b_(b_count()), c_(instance_.n),
          kernel_(instance_.n, setup, instance_.variant) {
        fill_inputs(instance_, a_host_.data(), b_host_.data());
        poison(instance_, c_host_.data());
        // All bytes 0xFF is a NaN: elements a kernel skips fail verification.
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(c_.data(), 0xFF, c_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &params) {
        gpubench::Work w = make_work(Spec, n, params);
        if constexpr (requires { Kernel::scratch_bytes(n, params); })
            w.device_bytes += Kernel::scratch_bytes(n, params);
        return w;
    }

    void upload() {
        gpubench::cuda::copy_async(a_, a_host_, stream_);
        if (instance_.variant == Variant::add) gpubench::cuda::copy_async(b_, b_host_, stream_);
    }
    // increment works in place on c: restore it from the pristine a (untimed).
    void reset() {
        if (instance_.variant == Variant::increment)
            GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(c_.data(), a_.data(), a_.bytes(),
                                                cudaMemcpyDeviceToDevice, stream_));
    }
    void run() {
        if (instance_.variant == Variant::add)
            kernel_.add(a_.data(), b_.data(), c_.data());
        else
            kernel_.increment(c_.data());
    }
    void download() { gpubench::cuda::copy_async(c_host_, c_, stream_); }

    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        return verify_result(instance_, c_host_.data());
    }

private:
    size_t b_count() const { return instance_.variant == Variant::add ? instance_.n : 0; }

    Instance instance_;
    cudaStream_t stream_;
    gpubench::cuda::PinnedBuffer<float> a_host_, b_host_, c_host_;
    gpubench::cuda::DeviceBuffer<float> a_, b_, c_;  // b only for add
    Kernel kernel_;
};

}  // namespace vecadd
