// The library reference: thrust::sort (thrust::sort_by_key for pairs) on raw device
// pointers, which for float, uint32 and uint64 keys with the default less-than is CUB's
// radix sort.
// par_nosync on the runner's stream: no synchronisation at the end. Thrust's temporary
// storage (a second key/value buffer plus CUB's scratch) comes from a buffer allocated in
// the constructor, sized by one untimed sort there, so run() allocates nothing.
#include "sort_gpu.hpp"

#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <string>

namespace {

const gpubench::BackendSpec kThrust{
    "sort_thrust", "thrust", GPUBENCH_DEVICE_CUDA,
    "thrust::sort (sort_by_key for pairs; CUB radix sort) on the runner's stream, "
    "temporary storage allocated once at setup; up to 1e9 keys (3 device arrays, 12-24 "
    "GB)",
    1'000'000'000ull,
    {1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}};

// Hands Thrust one preallocated device buffer. While growing is allowed (the constructor's
// sizing sort) a larger request reallocates it; afterwards a request that does not fit, or
// a second one while the first is held, throws instead of allocating in a timed run.
class PreallocatedAllocator {
public:
    using value_type = char;

    char *allocate(std::ptrdiff_t bytes) {
        const size_t wanted = static_cast<size_t>(bytes);
        if (in_use_)
            throw gpubench::Error(GPUBENCH_ERROR,
                                  "thrust asked for a second temporary buffer at once");
        if (wanted > buffer_.size()) {
            if (!growable_)
                throw gpubench::Error(GPUBENCH_ERROR,
                                      "thrust asked for " + std::to_string(wanted) +
                                          " temporary bytes, more than the " +
                                          std::to_string(buffer_.size()) + " preallocated");
            buffer_ = gpubench::cuda::DeviceBuffer<char>(wanted);
        }
        in_use_ = true;
        return buffer_.data();
    }
    // The memory stays ours: later work on the same stream may reuse it in order.
    void deallocate(char *, size_t) noexcept { in_use_ = false; }
    void stop_growing() { growable_ = false; }

private:
    gpubench::cuda::DeviceBuffer<char> buffer_;
    bool growable_ = true, in_use_ = false;
};

template <class Key>
class ThrustSorter {
public:
    ThrustSorter(size_t n, const gpubench::Setup &setup, bool pairs)
        : n_(n), stream_(gpubench::cuda::stream_of(setup)), sizing_keys_(n),
          sizing_values_(pairs ? n : 0) {
        // Temporary storage depends on n and the types only; sort scratch arrays to learn it.
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(sizing_keys_.data(), 0, sizing_keys_.bytes(), stream_));
        if (pairs)
            GPUBENCH_CUDA_CHECK(
                cudaMemsetAsync(sizing_values_.data(), 0, sizing_values_.bytes(), stream_));
        sort(sizing_keys_.data(), pairs ? sizing_values_.data() : nullptr);
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
        allocator_.stop_growing();
        sizing_keys_ = {};
        sizing_values_ = {};
    }

    void sort(Key *keys, uint32_t *values) {
        auto policy = thrust::cuda::par_nosync(allocator_).on(stream_);
        if (values)
            thrust::sort_by_key(policy, keys, keys + n_, values);
        else
            thrust::sort(policy, keys, keys + n_);
        gpubench::cuda::check_launch("thrust::sort");
    }

private:
    size_t n_;
    cudaStream_t stream_;
    PreallocatedAllocator allocator_;
    gpubench::cuda::DeviceBuffer<Key> sizing_keys_;  // freed after the sizing sort
    gpubench::cuda::DeviceBuffer<uint32_t> sizing_values_;
};

template <class Layout>
using ThrustProblem = gpubench::cuda::DeviceProblem<sort::DeviceArrays<Layout, ThrustSorter>>;
using ThrustPlugin = sort::Plugin<kThrust, ThrustProblem>;

}  // namespace

GPUBENCH_PLUGIN(ThrustPlugin, sort::make_info(kThrust))
