// sort's CUDA problem (include from .cu files only): input and working arrays on the device.
#pragma once

#include "sort_common.hpp"

#include <gpubench/device_problem.hpp>

namespace sort {

// Sorter<Key> is constructed from (n, setup, pairs) and called as sorter.sort(keys, values)
// with device pointers (values null unless pairs: the values' arrays are empty); it sorts in
// place, enqueueing everything on the runner's stream, and allocates nothing there.
template <class Layout, template <class> class Sorter>
class DeviceArrays {
    using Key = typename Layout::Key;
    static constexpr bool kPairs = Layout::kPairs;

public:
    DeviceArrays(const gpubench::Setup &setup, size_t n, Input input)
        : n_(n), threads_(setup.threads()),
          input_keys_(n), input_values_(kPairs ? n : 0), keys_(n, &input_keys_),
          values_(kPairs ? n : 0, &input_values_), sorter_(n, setup, kPairs) {
        fill_input(setup.seed, input, input_keys_.host.data(), n, threads_);
        if constexpr (kPairs) fill_positions(input_values_.host.data(), n, threads_);
        input_hash_ = hash_of(input_keys_.host.data(), input_values_.host.data(), n, threads_);
    }
    auto arrays() { return std::tie(input_keys_, input_values_, keys_, values_); }
    void run() { sorter_.sort(keys_.device.data(), values_.device.data()); }
    gpubench::Verification verify() {
        return verify_sorted(keys_.host.data(), values_.host.data(), n_, input_hash_, threads_);
    }

private:
    size_t n_;
    int threads_;
    gpubench::cuda::Input<Key> input_keys_;
    gpubench::cuda::Input<uint32_t> input_values_;  // pairs only
    gpubench::cuda::InPlace<Key> keys_;             // the working arrays, which run() sorts
    gpubench::cuda::InPlace<uint32_t> values_;
    Sorter<Key> sorter_;
    MultisetHash input_hash_;
};

}  // namespace sort
