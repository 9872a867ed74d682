// The GPU side shared by the CUDA backends (include from .cu files only): pinned host
// copies of A, B, C, device copies, and the timed transfers on the runner's stream.
#pragma once

#include "matmul_common.hpp"

#include <gpubench/cuda.hpp>

namespace matmul {

// Kernel<T> is constructed from (n, setup) and called as kernel.multiply(a, b, c) with
// device pointers; it enqueues all of C = A*B on gpubench::cuda::stream_of(setup).
template <class T, class Kernel>
class DeviceProblem {
public:
    DeviceProblem(size_t n, const gpubench::Setup &setup)
        : n_(n),
          stream_(gpubench::cuda::stream_of(setup)),
          a_host_(n * n), b_host_(n * n), c_host_(n * n),
          a_(n * n), b_(n * n), c_(n * n),
          kernel_(n, setup) {
        fill_inputs(setup.seed, n, a_host_.data(), b_host_.data());
        poison(c_host_.data(), c_host_.size());
        // All bytes 0xFF is a NaN in float and double: entries a kernel skips fail verify.
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(c_.data(), 0xFF, c_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }

    void upload() {
        gpubench::cuda::copy_async(a_, a_host_, stream_);
        gpubench::cuda::copy_async(b_, b_host_, stream_);
    }
    void run() { kernel_.multiply(a_.data(), b_.data(), c_.data()); }
    void download() { gpubench::cuda::copy_async(c_host_, c_, stream_); }

    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        return verify_product(n_, a_host_.data(), b_host_.data(), c_host_.data());
    }

private:
    size_t n_;
    cudaStream_t stream_;
    gpubench::cuda::PinnedBuffer<T> a_host_, b_host_, c_host_;
    gpubench::cuda::DeviceBuffer<T> a_, b_, c_;
    Kernel kernel_;
};

}  // namespace matmul
