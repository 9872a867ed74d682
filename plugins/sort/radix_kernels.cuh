// The kernels of sort_cuda's LSD radix sort, one 8-bit digit per pass (see cuda.cu).
//
// The keys are split into tiles of 4096; block b owns a contiguous run of whole tiles
// (tiles_per_block of them) and walks them in order, so per-block digit counts plus that
// order make the scatter stable. Within a tile, warp w owns 512 consecutive keys; its lane l
// holds key w*512 + 32j + l as item j (coalesced loads), so (warp, item, lane) is input
// order, and every ranking below follows it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sort::radix {

constexpr int kDigitBits = 8;
constexpr int kRadix = 1 << kDigitBits;   // digits per pass
constexpr int kThreads = 256;             // one thread per digit in the per-digit steps
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;                // keys per thread per tile
constexpr int kWarpTile = 32 * kItems;    // a warp's consecutive keys in a tile
constexpr int kTile = kThreads * kItems;  // keys per tile
constexpr int kScanThreads = 1024;        // the one block of exclusive_scan
constexpr int kScanItems = 4;
constexpr unsigned kFullMask = 0xFFFFFFFFu;
static_assert(kThreads == kRadix, "the per-digit steps give each thread one digit");

// Key bits <-> bits whose unsigned order is the keys' order. Floats: set the sign bit of
// positives, flip all bits of negatives (so -0.0 sorts just below +0.0; NaN never occurs).
struct FloatKeyBits {
    using Bits = uint32_t;
    static constexpr int kPasses = 32 / kDigitBits;
    __device__ static Bits encode(Bits b) { return (b & 0x80000000u) ? ~b : b | 0x80000000u; }
    __device__ static Bits decode(Bits b) { return (b & 0x80000000u) ? b & 0x7FFFFFFFu : ~b; }
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

// The keys [begin, end) of this block: its whole tiles, the last one maybe partial.
struct BlockRange {
    size_t begin, end;
};
__device__ __forceinline__ BlockRange block_range(size_t n, unsigned tiles_per_block) {
    const size_t span = static_cast<size_t>(tiles_per_block) * kTile;
    const size_t begin = blockIdx.x * span;
    return {begin, begin + span < n ? begin + span : n};
}

// This thread's items of the tile whose first key for it is `first` (item j at first + 32j).
template <class Traits, bool kEncode>
__device__ __forceinline__ void load_keys(const typename Traits::Bits *__restrict__ keys,
                                          size_t first, size_t end,
                                          typename Traits::Bits (&key)[kItems]) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const size_t i = first + 32 * j;
        key[j] = i < end ? keys[i] : 0;
        if (kEncode) key[j] = Traits::encode(key[j]);
    }
}

// One step of a warp over 32 keys in lane order: returns how many keys with this digit the
// warp has counted before this one (earlier steps, lower lanes), and adds the step's keys
// to counters[digit]. Lanes with the same digit share one leader, which alone updates the
// counter; invalid lanes (past the end) carry digit kRadix and count nothing.
__device__ __forceinline__ unsigned warp_rank(unsigned digit, bool valid, unsigned *counters,
                                              int lane) {
    const unsigned peers = __match_any_sync(kFullMask, digit);
    const int leader = __ffs(peers) - 1;
    unsigned before = 0;
    if (valid && lane == leader) {
        before = counters[digit];
        counters[digit] = before + __popc(peers);
    }
    before = __shfl_sync(kFullMask, before, leader);
    __syncwarp();  // the next step's leader, maybe another lane, sees this update
    return before + __popc(peers & ((1u << lane) - 1));
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

// counts[digit * gridDim.x + block] = keys of this block with that digit.
template <class Traits, bool kEncode>
__global__ void __launch_bounds__(kThreads)
    count_digits(const typename Traits::Bits *__restrict__ keys, size_t n,
                 unsigned tiles_per_block, int shift, unsigned *__restrict__ counts) {
    using Bits = typename Traits::Bits;
    __shared__ unsigned warp_counts[kWarps][kRadix];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = lane; d < kRadix; d += 32) warp_counts[warp][d] = 0;
    __syncwarp();

    const BlockRange range = block_range(n, tiles_per_block);
    for (size_t tile = range.begin; tile < range.end; tile += kTile) {
        const size_t first = tile + warp * kWarpTile + lane;
        Bits key[kItems];
        load_keys<Traits, kEncode>(keys, first, range.end, key);
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const bool valid = first + 32 * j < range.end;
            warp_rank(valid ? digit_of(key[j], shift) : kRadix, valid, warp_counts[warp], lane);
        }
    }
    __syncthreads();
    unsigned total = 0;
    for (int w = 0; w < kWarps; ++w) total += warp_counts[w][threadIdx.x];
    counts[static_cast<size_t>(threadIdx.x) * gridDim.x + blockIdx.x] = total;
}

// In place: data[i] = sum of data[0 .. i), by one block walking chunks of
// kScanThreads * kScanItems counters and carrying the running total between them.
__global__ void __launch_bounds__(kScanThreads)
    exclusive_scan(unsigned *__restrict__ data, size_t count) {
    __shared__ unsigned warp_totals[kScanThreads / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned carry = 0;  // the same in every thread
    for (size_t chunk = 0; chunk < count; chunk += static_cast<size_t>(kScanThreads) * kScanItems) {
        const size_t first = chunk + static_cast<size_t>(threadIdx.x) * kScanItems;
        unsigned item[kScanItems], sum = 0;
#pragma unroll
        for (int q = 0; q < kScanItems; ++q) {
            item[q] = first + q < count ? data[first + q] : 0;
            sum += item[q];
        }
        const unsigned inclusive = warp_inclusive_scan(sum, lane);
        if (lane == 31) warp_totals[warp] = inclusive;
        __syncthreads();
        if (warp == 0) warp_totals[lane] = warp_inclusive_scan(warp_totals[lane], lane);
        __syncthreads();
        unsigned running = carry + (warp > 0 ? warp_totals[warp - 1] : 0) + inclusive - sum;
#pragma unroll
        for (int q = 0; q < kScanItems; ++q) {
            if (first + q < count) data[first + q] = running;
            running += item[q];
        }
        carry += warp_totals[kScanThreads / 32 - 1];
        __syncthreads();  // warp_totals is rewritten by the next chunk
    }
}

// One pass: moves every key (and value) to offsets[digit * gridDim.x + block] (the scanned
// counts) plus its rank among this block's keys with that digit, in input order. Each tile
// is first sorted by digit in shared memory, so that consecutive threads write consecutive
// positions of a digit's run. kEncode: keys_in holds raw key bits (first pass); kDecode:
// keys_out gets raw key bits (last pass).
template <class Traits, bool kEncode, bool kDecode, bool kPairs>
__global__ void __launch_bounds__(kThreads)
    scatter_digits(const typename Traits::Bits *__restrict__ keys_in,
                   typename Traits::Bits *__restrict__ keys_out,
                   const uint32_t *__restrict__ values_in, uint32_t *__restrict__ values_out,
                   size_t n, unsigned tiles_per_block, int shift,
                   const unsigned *__restrict__ offsets) {
    using Bits = typename Traits::Bits;
    __shared__ unsigned warp_counts[kWarps][kRadix];  // counts, then offsets within the digit
    __shared__ unsigned digit_start[kRadix];          // where a digit starts in the sorted tile
    __shared__ unsigned scan_totals[kWarps];
    __shared__ size_t next_out[kRadix];  // where this block's next key of a digit goes
    __shared__ Bits sorted_keys[kTile];
    __shared__ uint32_t sorted_values[kPairs ? kTile : 1];

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned my_digit = threadIdx.x;
    next_out[my_digit] = offsets[static_cast<size_t>(my_digit) * gridDim.x + blockIdx.x];

    const BlockRange range = block_range(n, tiles_per_block);
    for (size_t tile = range.begin; tile < range.end; tile += kTile) {
        // 1. Load, and rank each key among the warp's earlier keys with its digit.
        const size_t first = tile + warp * kWarpTile + lane;
        Bits key[kItems];
        uint32_t value[kItems];
        unsigned rank[kItems];
        load_keys<Traits, kEncode>(keys_in, first, range.end, key);
        if constexpr (kPairs) {
#pragma unroll
            for (int j = 0; j < kItems; ++j)
                value[j] = first + 32 * j < range.end ? values_in[first + 32 * j] : 0;
        }
        for (int d = lane; d < kRadix; d += 32) warp_counts[warp][d] = 0;
        __syncwarp();
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const bool valid = first + 32 * j < range.end;
            rank[j] = warp_rank(valid ? digit_of(key[j], shift) : kRadix, valid,
                                warp_counts[warp], lane);
        }
        __syncthreads();

        // 2. Per digit: each warp's offset within the digit, and the digit's tile start.
        unsigned tile_count = 0;
        for (int w = 0; w < kWarps; ++w) {
            const unsigned count = warp_counts[w][my_digit];
            warp_counts[w][my_digit] = tile_count;
            tile_count += count;
        }
        digit_start[my_digit] = block_exclusive_scan(tile_count, scan_totals);
        __syncthreads();

        // 3. Stable counting sort of the tile into shared memory.
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            if (first + 32 * j >= range.end) continue;
            const unsigned d = digit_of(key[j], shift);
            const unsigned at = digit_start[d] + warp_counts[warp][d] + rank[j];
            sorted_keys[at] = key[j];
            if constexpr (kPairs) sorted_values[at] = value[j];
        }
        __syncthreads();

        // 4. Write out in tile order: a digit's keys go to consecutive positions.
        const size_t left = range.end - tile;
        const unsigned tile_size = left < kTile ? static_cast<unsigned>(left) : kTile;
        for (unsigned at = threadIdx.x; at < tile_size; at += kThreads) {
            const Bits k = sorted_keys[at];
            const unsigned d = digit_of(k, shift);
            const size_t out = next_out[d] + (at - digit_start[d]);
            keys_out[out] = kDecode ? Traits::decode(k) : k;
            if constexpr (kPairs) values_out[out] = sorted_values[at];
        }
        __syncthreads();
        next_out[my_digit] += tile_count;
    }
}

}  // namespace sort::radix
