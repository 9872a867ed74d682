// The BLAS way: BLAS has no c = a + b, only y = alpha*x + y, so c = a + b becomes a copy
// c <- b and an axpy c = 1*a + c. That moves 5n floats (copy: read b, write c; axpy: read
// a, read c, write c) against the 3n of a fused kernel; the work model declares the 3n
// minimum, so the bandwidth shown is the useful one and the gap is the point of comparing.
// increment (a += 1) is an axpy of a device array of ones: 3n floats instead of 2n.
#include "vecadd_gpu.hpp"
#include "fill.cuh"

#include <gpubench/cublas.hpp>

#include <climits>

namespace {

const gpubench::BackendSpec kCublas{
    "vecadd_cublas", "cublas", GPUBENCH_DEVICE_CUDA,
    "c = a + b as cudaMemcpyAsync(c <- b) then cublasSaxpy(1, a, c): moves 5n floats "
    "instead of 3n (increment: axpy of a device array of ones, 3n instead of 2n); up to "
    "1e9 elements (12 GB)",
    1'000'000'000, {1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}};

class CublasKernel {
public:
    CublasKernel(size_t n, const gpubench::Setup &setup, vecadd::Variant variant)
        : n_(static_cast<int>(n)),
          stream_(gpubench::cuda::stream_of(setup)),
          handle_(stream_),
          ones_(variant == vecadd::Variant::increment ? n : 0) {
        if (n > INT_MAX) throw gpubench::NotSupported("cublasSaxpy takes an int length");
        // Made once here, untimed; the stream is synchronised by create.
        plugin_common::fill(ones_.data(), ones_.size(), 1.0f, stream_);
    }

    // Device memory beyond the arrays every backend holds: increment's array of ones.
    static double scratch_bytes(uint64_t n, const gpubench::Params &params) {
        return vecadd::parse_variant(params) == vecadd::Variant::increment ? 4.0 * double(n) : 0;
    }

    void add(const float *a, const float *b, float *c) {
        GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(c, b, sizeof(float) * static_cast<size_t>(n_),
                                            cudaMemcpyDeviceToDevice, stream_));
        axpy(a, c);
    }
    void increment(float *c) { axpy(ones_.data(), c); }

private:
    void axpy(const float *x, float *y) {
        const float one = 1.0f;
        GPUBENCH_CUBLAS_CHECK(cublasSaxpy(handle_.get(), n_, &one, x, 1, y, 1));
    }

    int n_;
    cudaStream_t stream_;
    gpubench::cublas::Handle handle_;
    gpubench::cuda::DeviceBuffer<float> ones_;  // increment only
};

using CublasPlugin = gpubench::cuda::DeviceProblem<vecadd::DeviceArrays<kCublas, CublasKernel>>;

}  // namespace

GPUBENCH_PLUGIN(CublasPlugin, vecadd::make_info(kCublas))
