// example_saxpy_cuda: y = a*x + y with a grid-stride kernel on the runner's stream.
// upload, run and download only enqueue work: the runner times them with events on the
// stream and synchronises itself.
#include "saxpy.hpp"

#include <gpubench/cuda.hpp>

#include <algorithm>

namespace {

__global__ void saxpy_kernel(size_t n, float a, const float *__restrict__ x,
                             const float *__restrict__ y_in, float *__restrict__ y_out) {
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        y_out[i] = a * x[i] + y_in[i];
}

const gpubench::Info info = saxpy::info("example_saxpy_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
                                        "saxpy, grid-stride CUDA kernel");

}  // namespace

class SaxpyCuda {
public:
    explicit SaxpyCuda(const gpubench::Setup &setup)
        : a_(saxpy::scale(setup.params)),
          n_(gpubench::checked_size(info, setup.size)),  // NotSupported outside min..max
          stream_(gpubench::cuda::stream_of(setup)),
          host_x_(n_),
          host_y_(n_),
          host_result_(n_),
          device_x_(n_),
          device_y_in_(n_),
          device_y_out_(n_) {
        saxpy::make_inputs(setup.seed, n_, host_x_.data(), host_y_.data());
        int sms = 0;
        GPUBENCH_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, setup.cuda_device));
        // Enough blocks to fill the device a few times over; the loop covers the rest.
        const size_t needed = (n_ + kBlock - 1) / kBlock;
        blocks_ = static_cast<unsigned>(std::clamp<size_t>(needed, 1, size_t(sms) * 8));
    }

    static gpubench::Work work(uint64_t size, const gpubench::Params &params) {
        return saxpy::work(size, params, true);
    }

    void upload() {
        gpubench::cuda::copy_async(device_x_, host_x_, stream_);
        gpubench::cuda::copy_async(device_y_in_, host_y_, stream_);
    }

    // y_in stays intact on the device, so each call computes the whole result again.
    void run() {
        saxpy_kernel<<<blocks_, kBlock, 0, stream_>>>(n_, a_, device_x_.data(),
                                                      device_y_in_.data(), device_y_out_.data());
        gpubench::cuda::check_launch("saxpy_kernel");
    }

    void download() { gpubench::cuda::copy_async(host_result_, device_y_out_, stream_); }

    // The runner does not always wait for the last download before verify() (after per-launch
    // timing it does not): wait for the stream, then host_result_ is complete.
    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return saxpy::verify(a_, host_x_.data(), host_y_.data(), host_result_.data(), n_);
    }

private:
    static constexpr unsigned kBlock = 256;
    float a_;
    size_t n_;
    cudaStream_t stream_;
    unsigned blocks_ = 1;
    gpubench::cuda::PinnedBuffer<float> host_x_, host_y_, host_result_;
    gpubench::cuda::DeviceBuffer<float> device_x_, device_y_in_, device_y_out_;
};

GPUBENCH_PLUGIN(SaxpyCuda, info)
