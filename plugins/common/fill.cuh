// Device memory filled with one value (cudaMemset sets bytes, not floats), for the constant
// arrays a backend makes once at set-up, untimed. Include from .cu files only.
#pragma once

#include <gpubench/cuda.hpp>

#include <algorithm>
#include <cstddef>

namespace plugin_common {

template <class T>
__global__ void fill_kernel(T *x, size_t n, T value) {
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        x[i] = value;
}

// Enqueues x[0, n) = value on the stream; the caller synchronises before reading x.
template <class T>
void fill(T *x, size_t n, T value, cudaStream_t stream) {
    if (n == 0) return;
    const size_t blocks = std::min<size_t>((n + 255) / 256, 4096);
    fill_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(x, n, value);
    gpubench::cuda::check_launch("plugin_common::fill_kernel");
}

}  // namespace plugin_common
