// @WORKLOAD@_cuda: y = a*x with a grid-stride kernel on the runner's stream. upload, run and
// download only enqueue work: the runner times them with events on the stream and waits itself.
#include "workload.hpp"

#include <gpubench/cuda.hpp>

#include <algorithm>

namespace {

__global__ void scale_kernel(size_t n, float a, const float *__restrict__ x, float *__restrict__ y) {
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * x[i];
}

const gpubench::Info info =
    workload::info("@WORKLOAD@_cuda", "cuda", GPUBENCH_DEVICE_CUDA, "y = a*x, grid-stride CUDA kernel");

}  // namespace

class CudaBackend {
public:
    // create(): untimed. Pinned host buffers, so that the copies are asynchronous on the stream.
    explicit CudaBackend(const gpubench::Setup &setup)
        : a_(workload::scale(setup.params)),
          n_(gpubench::checked_size(info, setup.size)),
          stream_(gpubench::cuda::stream_of(setup)),
          host_x_(n_),
          host_y_(n_),
          device_x_(n_),
          device_y_(n_) {
        workload::make_inputs(setup.seed, n_, host_x_.data());
        int sms = 0;
        GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, setup.cuda_device));
        // Enough blocks to fill the device a few times over; the loop covers the rest.
        const size_t needed = (n_ + kBlock - 1) / kBlock;
        blocks_ = static_cast<unsigned>(std::clamp<size_t>(needed, 1, size_t(sms) * 8));
    }

    static gpubench::Work work(uint64_t size, const gpubench::Params &params) {
        return workload::work(size, params, true);
    }

    void upload() { gpubench::cuda::copy_async(device_x_, host_x_, stream_); }

    // x stays intact on the device, so each call computes the whole result again.
    void run() {
        scale_kernel<<<blocks_, kBlock, 0, stream_>>>(n_, a_, device_x_.data(), device_y_.data());
        gpubench::cuda::check_launch("scale_kernel");
    }

    void download() { gpubench::cuda::copy_async(host_y_, device_y_, stream_); }

    // The runner does not always wait for the last download before verify(): wait for the
    // stream, then host_y_ is complete.
    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return workload::verify(a_, host_x_.data(), host_y_.data(), n_);
    }

private:
    static constexpr unsigned kBlock = 256;
    float a_;
    size_t n_;
    cudaStream_t stream_;
    unsigned blocks_ = 1;
    gpubench::cuda::PinnedBuffer<float> host_x_, host_y_;
    gpubench::cuda::DeviceBuffer<float> device_x_, device_y_;
};

GPUBENCH_PLUGIN(CudaBackend, info)
