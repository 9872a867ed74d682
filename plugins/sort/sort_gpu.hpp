// The GPU side shared by the CUDA backends (include from .cu files only): pinned host input
// and result, the pristine device copy, the working array that run() sorts in place, and
// the timed transfers on the runner's stream.
#pragma once

#include "sort_common.hpp"

#include <gpubench/cuda.hpp>

namespace sort {

// Sorter<Key> is constructed from (n, setup, pairs) and called as sorter.sort(keys, values)
// with device pointers (values null unless pairs); it sorts in place, enqueueing everything
// on the runner's stream, and allocates nothing there.
template <class Layout, template <class> class Sorter>
class DeviceProblem {
    using Key = typename Layout::Key;
    static constexpr bool kPairs = Layout::kPairs;
    static constexpr size_t value_count(size_t n) { return kPairs ? n : 0; }

public:
    DeviceProblem(size_t n, const gpubench::Setup &setup, Input input)
        : n_(n),
          threads_(setup.cpu_threads > 0 ? setup.cpu_threads : 1),
          stream_(gpubench::cuda::stream_of(setup)),
          input_keys_(n), sorted_keys_(n),
          input_values_(value_count(n)), sorted_values_(value_count(n)),
          pristine_keys_(n), keys_(n), pristine_values_(value_count(n)), values_(value_count(n)),
          sorter_(n, setup, kPairs) {
        fill_input(setup.seed, input, input_keys_.data(), n, threads_);
        if constexpr (kPairs) {
            fill_positions(input_values_.data(), n, threads_);
            input_hash_ = hash_of(input_keys_.data(), input_values_.data(), n, threads_);
        } else {
            input_hash_ = hash_of(input_keys_.data(), n, threads_);
        }
        // All bytes 0xFF: a NaN float key, the largest uint64 key, a value no input has.
        poison(sorted_keys_.data(), sorted_keys_.bytes(), threads_);
        poison(sorted_values_.data(), sorted_values_.bytes(), threads_);
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(keys_.data(), 0xFF, keys_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }

    void upload() {
        gpubench::cuda::copy_async(pristine_keys_, input_keys_, stream_);
        if constexpr (kPairs) gpubench::cuda::copy_async(pristine_values_, input_values_, stream_);
    }
    // The sort works in place: restore the working arrays from the pristine copies.
    void reset() {
        restore(keys_, pristine_keys_);
        if constexpr (kPairs) restore(values_, pristine_values_);
    }
    void run() { sorter_.sort(keys_.data(), kPairs ? values_.data() : nullptr); }
    void download() {
        gpubench::cuda::copy_async(sorted_keys_, keys_, stream_);
        if constexpr (kPairs) gpubench::cuda::copy_async(sorted_values_, values_, stream_);
    }

    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        if constexpr (kPairs)
            return verify_sorted(sorted_keys_.data(), sorted_values_.data(), n_, input_hash_,
                                 threads_);
        else
            return verify_sorted(sorted_keys_.data(), n_, input_hash_, threads_);
    }

private:
    template <class T>
    void restore(gpubench::cuda::DeviceBuffer<T> &to, const gpubench::cuda::DeviceBuffer<T> &from) {
        GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.bytes(),
                                            cudaMemcpyDeviceToDevice, stream_));
    }

    size_t n_;
    int threads_;
    cudaStream_t stream_;
    gpubench::cuda::PinnedBuffer<Key> input_keys_, sorted_keys_;
    gpubench::cuda::PinnedBuffer<uint32_t> input_values_, sorted_values_;  // pairs only
    gpubench::cuda::DeviceBuffer<Key> pristine_keys_, keys_;
    gpubench::cuda::DeviceBuffer<uint32_t> pristine_values_, values_;  // pairs only
    Sorter<Key> sorter_;
    MultisetHash input_hash_;
};

}  // namespace sort
