// The building blocks of sort_cuda's onesweep LSD radix sort (cuda.cu has the plan): key
// bits and digits, warp and block scans, and the two kernels that run once per sort:
//   count_all_digits   one read of the keys: the 256-bin histogram of every digit position;
//   scan_digit_counts  each histogram, in place, to the first output slot of each digit.
// The kernel of one digit pass is in onesweep_pass.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sort::radix {

constexpr int kDigitBits = 8;
constexpr int kRadix = 1 << kDigitBits;  // digits per pass
constexpr unsigned kFullMask = 0xFFFFFFFFu;

// Key bits <-> bits whose unsigned order is the keys' order. Floats: set the sign bit of
// positives, flip all bits of negatives (so -0.0 sorts just below +0.0; NaN never occurs).
// Unsigned keys are their own bits.
struct FloatKeyBits {
    using Bits = uint32_t;
    static constexpr int kPasses = 32 / kDigitBits;
    __device__ static Bits encode(Bits b) { return (b & 0x80000000u) ? ~b : b | 0x80000000u; }
    __device__ static Bits decode(Bits b) { return (b & 0x80000000u) ? b & 0x7FFFFFFFu : ~b; }
};
struct Uint32KeyBits {
    using Bits = uint32_t;
    static constexpr int kPasses = 32 / kDigitBits;
    __device__ static Bits encode(Bits b) { return b; }
    __device__ static Bits decode(Bits b) { return b; }
};
struct Uint64KeyBits {
    using Bits = uint64_t;
    static constexpr int kPasses = 64 / kDigitBits;
    __device__ static Bits encode(Bits b) { return b; }
    __device__ static Bits decode(Bits b) { return b; }
};

template <class Bits>
__device__ __forceinline__ unsigned digit_of(Bits ordered, int shift) {
    return static_cast<unsigned>(ordered >> shift) & (kRadix - 1);
}

__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned value, int lane) {
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        const unsigned below = __shfl_up_sync(kFullMask, value, offset);
        if (lane >= offset) value += below;
    }
    return value;
}

// Exclusive prefix sum over the block, one value per thread. Has a barrier; warp_totals
// (blockDim.x / 32 entries) must not be reused before the caller's next barrier.
__device__ __forceinline__ unsigned block_exclusive_scan(unsigned value, unsigned *warp_totals) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned inclusive = warp_inclusive_scan(value, lane);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    unsigned before = 0;
    for (int w = 0; w < warp; ++w) before += warp_totals[w];
    return before + inclusive - value;
}

// ---- count_all_digits --------------------------------------------------------------------

constexpr int kCountThreads = 256;
constexpr int kCountVectors = 8;  // 16-byte loads per thread per round, all in flight at once

// 16 bytes of keys, loaded by one instruction (keys come from cudaMalloc: 256-byte aligned).
template <class Bits>
struct alignas(16) KeyVector {
    static constexpr int kKeys = 16 / sizeof(Bits);
    Bits key[kKeys];
};

// digit_counts[pass * kRadix + d] += keys whose digit of that pass is d (zeroed before).
// Each block counts into shared memory over a grid-stride walk (thread t of the grid takes
// vectors t, t + stride, ..., kCountVectors of them in flight), then adds its counts to the
// global histograms once. Shared atomicAdd of 1 whose result is unused compiles to one
// warp-aggregated update per distinct address (ATOMS.POPC.INC), so runs of equal digits
// (the high digits of sorted or descending keys) cost no more than random ones.
template <class Traits>
__global__ void __launch_bounds__(kCountThreads)
    count_all_digits(const typename Traits::Bits *__restrict__ keys, size_t n,
                     unsigned *__restrict__ digit_counts) {
    using Vector = KeyVector<typename Traits::Bits>;
    constexpr int kPasses = Traits::kPasses;
    __shared__ unsigned counts[kPasses][kRadix];
    for (int i = threadIdx.x; i < kPasses * kRadix; i += kCountThreads)
        counts[i / kRadix][i % kRadix] = 0;
    __syncthreads();

    const auto count_key = [&](typename Traits::Bits raw) {
        const typename Traits::Bits ordered = Traits::encode(raw);
#pragma unroll
        for (int p = 0; p < kPasses; ++p)
            atomicAdd(&counts[p][digit_of(ordered, p * kDigitBits)], 1u);
    };
    const Vector *vectors = reinterpret_cast<const Vector *>(keys);
    const size_t whole_vectors = n / Vector::kKeys;
    const size_t stride = static_cast<size_t>(gridDim.x) * kCountThreads;
    for (size_t base = static_cast<size_t>(blockIdx.x) * kCountThreads + threadIdx.x;
         base < whole_vectors; base += stride * kCountVectors) {
        Vector vector[kCountVectors];
#pragma unroll
        for (int v = 0; v < kCountVectors; ++v)
            if (base + v * stride < whole_vectors) vector[v] = vectors[base + v * stride];
#pragma unroll
        for (int v = 0; v < kCountVectors; ++v) {
            if (base + v * stride >= whole_vectors) break;
#pragma unroll
            for (int k = 0; k < Vector::kKeys; ++k) count_key(vector[v].key[k]);
        }
    }
    // The last n % kKeys keys, fewer than one vector: block 0's first threads.
    const size_t tail = whole_vectors * Vector::kKeys + threadIdx.x;
    if (blockIdx.x == 0 && tail < n) count_key(keys[tail]);
    __syncthreads();
    for (int i = threadIdx.x; i < kPasses * kRadix; i += kCountThreads) {
        const unsigned count = counts[i / kRadix][i % kRadix];
        if (count) atomicAdd(&digit_counts[i], count);
    }
}

// Block b: digit_counts[b * kRadix + d] = sum of the counts of digits below d, in place.
__global__ void __launch_bounds__(kRadix) scan_digit_counts(unsigned *__restrict__ digit_counts) {
    __shared__ unsigned warp_totals[kRadix / 32];
    unsigned &count = digit_counts[blockIdx.x * kRadix + threadIdx.x];
    count = block_exclusive_scan(count, warp_totals);
}

}  // namespace sort::radix
