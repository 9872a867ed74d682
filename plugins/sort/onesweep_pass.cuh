// One digit pass of sort_cuda's onesweep radix sort (cuda.cu has the plan): a single kernel
// that reads each key once and writes it once to its place for this digit.
//
// Each block takes the next tile index from a counter (so every tile before it belongs to
// a block already running, and waiting for it cannot deadlock). In a tile, warp w owns
// 32 * kItems consecutive keys; its lane l holds key w * 32 * kItems + 32 j + l as item j
// (coalesced loads), so (warp, item, lane) is input order and every ranking follows it.
// A key's output position is
//   digit_starts[d]                 keys of smaller digits (scan_digit_counts),
// + keys with digit d in earlier tiles (decoupled look-back over the tile status words),
// + its rank among this tile's keys with digit d (warp ranks plus per-warp offsets).
#pragma once

#include "radix_kernels.cuh"

namespace sort::radix {

constexpr int kPassThreads = 256;  // one thread per digit in the per-digit steps
constexpr int kPassWarps = kPassThreads / 32;
static_assert(kPassThreads == kRadix, "the per-digit steps give each thread one digit");

// Tile status: one 32-bit word per (tile, digit), a 2-bit flag over a 30-bit count, so a
// single store publishes both. Flag 0: nothing yet; kAggregate: the tile's own count of
// the digit; the prefix flag: the count in this and all earlier tiles. The prefix flag
// alternates between passes (2 even, 3 odd), so the words a pass leaves behind (all
// prefixes) read as "nothing yet" to the next pass: the array is zeroed once, in the
// sorter's constructor, never per pass or per sort (every sort has an even pass count).
constexpr int kCountBits = 30;
constexpr unsigned kCountMask = (1u << kCountBits) - 1;
constexpr unsigned kAggregate = 1;
constexpr size_t kMaxKeys = size_t{1} << kCountBits;  // n must stay below: counts fit
__host__ __device__ constexpr unsigned prefix_flag(int pass) { return 2u + (pass & 1); }

// Volatile: a single 32-bit access that goes to L2, where other blocks' stores land.
__device__ __forceinline__ void publish(unsigned *word, unsigned flag, unsigned count) {
    *reinterpret_cast<volatile unsigned *>(word) = flag << kCountBits | count;
}
__device__ __forceinline__ unsigned wait_for_status(const unsigned *word, unsigned prefix) {
    unsigned status, flag;
    do {
        status = *reinterpret_cast<const volatile unsigned *>(word);
        flag = status >> kCountBits;
    } while (flag != kAggregate && flag != prefix);
    return status;
}

// The lanes whose digit equals this lane's: per digit bit, a ballot of the lanes that have
// it set, complemented where this lane has it clear, all ANDed. On the H100, ballots sort
// 1.5x faster than __match_any_sync (its issue rate is low). PTX, because from C++ the
// compiler tests each bit twice; one test, one vote and one predicated not per bit sort
// another 7% faster (1e8 float keys: 3.95, 2.68, 2.41 ms).
__device__ __forceinline__ unsigned match_digit(unsigned digit) {
    unsigned peers = kFullMask;
#pragma unroll
    for (int bit = 0; bit < kDigitBits; ++bit) {
        unsigned same;  // lanes whose bit `bit` equals this lane's
        asm("{\n\t.reg .pred set;\n\t"
            "setp.ne.u32 set, %1, 0;\n\t"
            "vote.sync.ballot.b32 %0, set, 0xffffffff;\n\t"
            "@!set not.b32 %0, %0;\n\t}"
            : "=r"(same)
            : "r"(digit & (1u << bit)));
        peers &= same;
    }
    return peers;
}

// One step of a warp over 32 keys in lane order: returns how many keys with this digit the
// warp has ranked before this one (earlier steps, lower lanes), and adds the step's keys to
// counters[digit] (the lowest lane of each digit does).
__device__ __forceinline__ unsigned warp_rank(unsigned digit, unsigned *counters,
                                              unsigned lanes_below) {
    const unsigned peers = match_digit(digit);
    const unsigned peers_below = peers & lanes_below;
    const unsigned before = counters[digit];
    __syncwarp();  // every peer has read counters[digit] before the lowest one changes it
    if (peers_below == 0) counters[digit] = before + __popc(peers);
    __syncwarp();  // the next step reads the update
    return before + __popc(peers_below);
}

// A key's rank among its warp's earlier keys with its digit is below 32 x kItems, so it takes
// few bits (10 up to 32 keys a thread), and several share a register (packed_ranks): the
// registers the keys leave free decide how many keys a thread can hold without spilling.
template <int kItems>
struct RankPacking {
    static constexpr int kBits = 32 * kItems <= 1024 ? 10 : 32 * kItems <= 2048 ? 11 : 16;
    static constexpr int kPerWord = 32 / kBits;
    static constexpr int kWords = (kItems + kPerWord - 1) / kPerWord;
    static constexpr unsigned kMask = (1u << kBits) - 1;
};
template <int kItems>
constexpr int kPackedRankWords = RankPacking<kItems>::kWords;
template <int kItems>
__device__ __forceinline__ unsigned rank_of(const unsigned (&packed_ranks)[kPackedRankWords<kItems>],
                                            int j) {
    using Packing = RankPacking<kItems>;
    return packed_ranks[j / Packing::kPerWord] >> (Packing::kBits * (j % Packing::kPerWord)) &
           Packing::kMask;
}

// Step 1 of a pass (below): item j of this thread is the key at tile position first + 32 j
// (encoded on the first pass), and rank_of(packed_ranks, j) its rank among the warp's earlier
// keys with its digit. Positions in the tile are 32-bit; only the tile's start needs
// 64. Past the end of the keys, items are all ones: digit kRadix - 1 at every shift, ranked
// after every real key of that digit (they come last in tile order), so the sort puts them
// at [tile_size, kTile) and no step needs a bounds check but the loads, the count of
// kRadix - 1 and the write-out.
template <class Traits, int kPass, int kItems, bool kPairs>
__device__ __forceinline__ void load_and_rank(const typename Traits::Bits *keys_in,
                                              const uint32_t *values_in, size_t tile_begin,
                                              unsigned first, unsigned tile_size,
                                              unsigned *counters,
                                              typename Traits::Bits (&key)[kItems],
                                              uint32_t (&value)[kItems],
                                              unsigned (&packed_ranks)[kPackedRankWords<kItems>]) {
    using Packing = RankPacking<kItems>;
    static_assert(32 * kItems <= 1 << 16, "a warp's ranks must fit the packing");
    using Bits = typename Traits::Bits;
    const Bits *my_keys = keys_in + tile_begin + first;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        key[j] = ~Bits{0};
        if (first + 32 * j < tile_size) {
            key[j] = kPass == 0 ? Traits::encode(my_keys[32 * j]) : my_keys[32 * j];
            if constexpr (kPairs) value[j] = values_in[tile_begin + first + 32 * j];
        }
    }
    const unsigned lanes_below = (1u << threadIdx.x % 32) - 1;
#pragma unroll
    for (int w = 0; w < kPackedRankWords<kItems>; ++w) packed_ranks[w] = 0;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const unsigned rank = warp_rank(digit_of(key[j], kPass * kDigitBits), counters, lanes_below);
        packed_ranks[j / Packing::kPerWord] |= rank << (Packing::kBits * (j % Packing::kPerWord));
    }
}

// Step 2, for this thread's digit: the tile's count of it.
template <int kTile>
__device__ __forceinline__ unsigned count_digit(const unsigned (*warp_counts)[kRadix],
                                                unsigned tile_size) {
    const unsigned my_digit = threadIdx.x;
    unsigned tile_count = 0;
    for (int w = 0; w < kPassWarps; ++w) tile_count += warp_counts[w][my_digit];
    if (my_digit == kRadix - 1) tile_count -= kTile - tile_size;  // the past-the-end items
    return tile_count;
}

// Step 2, once the count is published: the digit's start in the sorted tile (returned) and
// each warp's offset there (in place of its count in warp_counts).
__device__ __forceinline__ unsigned place_digit(unsigned (*warp_counts)[kRadix],
                                                unsigned tile_count, unsigned *scan_totals) {
    const unsigned my_digit = threadIdx.x;
    const unsigned tile_start = block_exclusive_scan(tile_count, scan_totals);
    for (unsigned w = 0, offset = tile_start; w < kPassWarps; ++w) {
        const unsigned count = warp_counts[w][my_digit];
        warp_counts[w][my_digit] = offset;
        offset += count;
    }
    return tile_start;
}

// A sorted-tile position in shared memory: one spare slot after every 32. Where each digit
// holds 32 keys of the tile (keys stepping by one in the low digit: descending or ascending
// input), the 32 lanes of a scatter step would write positions 32 apart, one bank, a 32-way
// conflict; the spare slot spreads them over every bank. (H200, 1e8 descending float keys,
// before it: 2.47 ms against 2.07 for random ones.)
__host__ __device__ constexpr unsigned padded(unsigned at) { return at + at / 32; }

// Step 3: each item to its place in the sorted tile, its warp's offset for its digit plus
// its rank.
template <int kPass, int kItems, bool kPairs, class Bits>
__device__ __forceinline__ void scatter(const unsigned *warp_offsets, const Bits (&key)[kItems],
                                        const uint32_t (&value)[kItems],
                                        const unsigned (&packed_ranks)[kPackedRankWords<kItems>],
                                        Bits *sorted_keys, uint32_t *sorted_values) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const unsigned at = padded(warp_offsets[digit_of(key[j], kPass * kDigitBits)] +
                                   rank_of<kItems>(packed_ranks, j));
        sorted_keys[at] = key[j];
        if constexpr (kPairs) sorted_values[at] = value[j];
    }
}

// Step 4: keys with this thread's digit in the tiles before `tile`, summing aggregates back
// to the nearest published prefix (tile 0 publishes one at once); then this tile's prefix.
__device__ __forceinline__ unsigned look_back(const unsigned *tile_status, unsigned tile,
                                              unsigned prefix, unsigned *my_status,
                                              unsigned tile_count) {
    unsigned earlier = 0;
    if (tile > 0) {
        for (size_t t = tile - 1;; --t) {
            const unsigned status =
                wait_for_status(tile_status + t * kRadix + threadIdx.x, prefix);
            earlier += status & kCountMask;
            if (status >> kCountBits == prefix) break;
        }
        publish(my_status, prefix, earlier + tile_count);
    }
    return earlier;
}

// Step 5: the sorted tile out in its order (decoded on the last pass): a digit's keys go to
// consecutive positions.
template <class Traits, int kPass, int kItems, bool kPairs>
__device__ __forceinline__ void write_out(const typename Traits::Bits *sorted_keys,
                                          const uint32_t *sorted_values, const unsigned *out_base,
                                          unsigned tile_size, typename Traits::Bits *keys_out,
                                          uint32_t *values_out) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const unsigned at = j * kPassThreads + threadIdx.x;
        if (at >= tile_size) break;
        const typename Traits::Bits k = sorted_keys[padded(at)];
        const unsigned out = out_base[digit_of(k, kPass * kDigitBits)] + at;
        keys_out[out] = kPass == Traits::kPasses - 1 ? Traits::decode(k) : k;
        if constexpr (kPairs) values_out[out] = sorted_values[padded(at)];
    }
}

// The dynamic shared memory a pass block needs: its sorted tile, keys and values, padded.
template <class Bits, int kItems, bool kPairs>
constexpr size_t pass_tile_bytes() {
    return size_t{padded(kPassThreads * kItems)} * (sizeof(Bits) + (kPairs ? sizeof(uint32_t) : 0));
}

// Pass kPass, over the digit at bits [8 kPass, 8 kPass + 8): keys (and values) move stably
// from *_in to *_out. The first pass encodes the raw keys it reads, the last decodes the
// keys it writes. digit_starts: this pass's scanned histogram; tile_counter: zero at launch.
template <class Traits, int kPass, int kItems, bool kPairs, int kBlocksPerSm>
__global__ void __launch_bounds__(kPassThreads, kBlocksPerSm)
    onesweep_pass(const typename Traits::Bits *__restrict__ keys_in,
                  typename Traits::Bits *__restrict__ keys_out,
                  const uint32_t *__restrict__ values_in, uint32_t *__restrict__ values_out,
                  size_t n, const unsigned *__restrict__ digit_starts, unsigned *tile_status,
                  unsigned *tile_counter) {
    using Bits = typename Traits::Bits;
    constexpr unsigned kPrefix = prefix_flag(kPass);
    constexpr int kWarpTile = 32 * kItems;
    constexpr int kTile = kPassThreads * kItems;
    __shared__ unsigned warp_counts[kPassWarps][kRadix];  // counts, then tile offsets
    __shared__ unsigned out_base[kRadix];  // output position minus tile position, per digit
    __shared__ unsigned scan_totals[kPassWarps];
    __shared__ unsigned this_tile;
    // The sorted tile, in dynamic shared memory (pass_tile_bytes): a block's static shared
    // memory stops at 48 KiB, which 20 uint64 keys a thread would pass.
    extern __shared__ __align__(16) unsigned char tile_memory[];
    Bits *sorted_keys = reinterpret_cast<Bits *>(tile_memory);
    uint32_t *sorted_values = reinterpret_cast<uint32_t *>(sorted_keys + padded(kTile));  // pairs only

    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned my_digit = threadIdx.x;
    if (threadIdx.x == 0) this_tile = atomicAdd(tile_counter, 1u);
    for (int d = lane; d < kRadix; d += 32) warp_counts[warp][d] = 0;
    __syncthreads();
    const unsigned tile = this_tile;
    const size_t tile_begin = static_cast<size_t>(tile) * kTile;

    // 1. Load, and rank each key among the warp's earlier keys with its digit.
    const size_t left = n - tile_begin;
    const unsigned tile_size = left < kTile ? static_cast<unsigned>(left) : kTile;
    const unsigned first = warp * kWarpTile + lane;  // tile position of item 0
    Bits key[kItems];
    uint32_t value[kItems];
    unsigned packed_ranks[kPackedRankWords<kItems>];
    load_and_rank<Traits, kPass, kItems, kPairs>(keys_in, values_in, tile_begin, first,
                                                 tile_size, warp_counts[warp], key, value,
                                                 packed_ranks);
    __syncthreads();

    // 2. Per digit: publish the tile's count at once (successors may start their look-back
    // with it), then the digit's start in the sorted tile and each warp's offset there.
    const unsigned tile_count = count_digit<kTile>(warp_counts, tile_size);
    unsigned *my_status = tile_status + static_cast<size_t>(tile) * kRadix + my_digit;
    publish(my_status, tile == 0 ? kPrefix : kAggregate, tile_count);
    const unsigned tile_start = place_digit(warp_counts, tile_count, scan_totals);
    __syncthreads();

    // 3. Stable counting sort of the tile into shared memory.
    scatter<kPass, kItems, kPairs>(warp_counts[warp], key, value, packed_ranks, sorted_keys,
                                   sorted_values);

    // 4. Look-back, and the output position of the tile's first key with each digit.
    const unsigned earlier = look_back(tile_status, tile, kPrefix, my_status, tile_count);
    out_base[my_digit] = digit_starts[my_digit] + earlier - tile_start;  // mod 2^32
    __syncthreads();

    // 5. Write out in sorted-tile order.
    write_out<Traits, kPass, kItems, kPairs>(sorted_keys, sorted_values, out_base, tile_size,
                                             keys_out, values_out);
}

}  // namespace sort::radix
