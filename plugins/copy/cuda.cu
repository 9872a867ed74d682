// The device's copy bandwidth: cudaMemcpyAsync device to device on the runner's stream. It
// reads n and writes n floats, like the best a streaming kernel can do.
#include "copy_common.hpp"

#include <gpubench/cuda.hpp>

#include <limits>

namespace {

const gpubench::Info info = copy::make_info(
    "copy_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "dst = src with cudaMemcpyAsync device to device: the GPU's copy bandwidth, the "
    "ceiling of streaming kernels");

class CudaCopy {
public:
    explicit CudaCopy(const gpubench::Setup &setup)
        : n_(gpubench::checked_size(info, setup.size)),
          stream_(gpubench::cuda::stream_of(setup)),
          key_(gpubench::inputs::stream_key(setup.seed, 0)),
          source_(n_), result_(n_), src_(n_), dst_(n_) {
        for (size_t i = 0; i < n_; ++i) {
            source_[i] = copy::source_value(key_, i);
            result_[i] = std::numeric_limits<float>::quiet_NaN();
        }
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(dst_.data(), 0xFF, dst_.bytes(), stream_));  // NaN
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &) {
        return copy::make_work(n, true);
    }
    void upload() { gpubench::cuda::copy_async(src_, source_, stream_); }
    void run() {
        GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(dst_.data(), src_.data(), src_.bytes(),
                                            cudaMemcpyDeviceToDevice, stream_));
    }
    void download() { gpubench::cuda::copy_async(result_, dst_, stream_); }
    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return copy::verify_copy(key_, result_.data(), n_);
    }

private:
    size_t n_;
    cudaStream_t stream_;
    uint64_t key_;
    // Separate result buffer: verifying the source buffer itself could never fail.
    gpubench::cuda::PinnedBuffer<float> source_, result_;
    gpubench::cuda::DeviceBuffer<float> src_, dst_;
};

}  // namespace

GPUBENCH_PLUGIN(CudaCopy, info)
