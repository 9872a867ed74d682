// A hand-written onesweep LSD radix sort (after Adinets & Merrill, "Onesweep", 2022; no CUB,
// no Thrust). Keys become bits whose unsigned order is the key order, then one stable pass
// per 8-bit digit, least significant first, 4 passes for 32-bit keys and 8 for uint64,
// ping-ponging between the working array and one scratch array (an even number of passes
// ends in the working array). A sort enqueues:
//   a memset           of the digit histograms and the per-pass tile counters (a few KiB);
//   count_all_digits   reads the keys once and counts the 256 digits of every position
//                      (radix_kernels.cuh);
//   scan_digit_counts  turns each position's counts into each digit's first output slot;
//   onesweep_pass      once per digit (onesweep_pass.cuh): each block takes the next tile
//                      of 256 x kItems keys, ranks them by digit within the tile (a
//                      match of lanes by 8 ballots, per-warp counters), publishes its
//                      per-digit counts, learns the keys of each digit in earlier tiles by
//                      decoupled look-back, sorts the tile by digit in shared memory and
//                      writes each digit's keys to consecutive positions.
// The first pass encodes the keys as it reads them and the last decodes as it writes.
// Traffic: the keys are read once for the histograms, then read and written once per pass
// (4 + 4 x 8 = 36 bytes per 32-bit key; pairs add a value read and write per pass). The
// look-back status is one 32-bit word per (tile, digit): 1 KiB per tile, about n/8 bytes
// for 32-bit keys (tiles of 8192), n/5 for uint64 (tiles of 5120), n/4 for pairs (4096).
#include "onesweep_pass.cuh"
#include "sort_gpu.hpp"

#include <algorithm>
#include <type_traits>

namespace {

const gpubench::BackendSpec kCuda{
    "sort_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "hand-written onesweep LSD radix sort (no CUB or Thrust), 8-bit digits (4 passes "
    "float32 and uint32, 8 uint64): one read of the keys for all digit histograms, then "
    "one kernel per pass: each block takes the next tile (256 x 32 keys; x 20 for uint64, "
    "x 16 for pairs) from an atomic counter, "
    "ranks its keys by digit (lanes matched by 8 warp ballots, per-warp counters), "
    "publishes its digit counts, finds its digits' offsets by decoupled look-back over "
    "earlier tiles, and writes each digit's keys contiguously through shared memory; 36 "
    "bytes of traffic per 32-bit key in all; up to 1e9 keys (3 device arrays plus n/8-n/4 "
    "bytes of look-back status, 12-24 GB)",
    1'000'000'000ull,
    {1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}};
namespace radix = sort::radix;

template <class Key>
using KeyBitsOf = std::conditional_t<
    std::is_same_v<Key, float>, radix::FloatKeyBits,
    std::conditional_t<std::is_same_v<Key, uint32_t>, radix::Uint32KeyBits, radix::Uint64KeyBits>>;

template <class Key>
class OnesweepSorter {
    using Traits = KeyBitsOf<Key>;
    using Bits = typename Traits::Bits;
    static constexpr int kPasses = Traits::kPasses;
    static_assert(sizeof(Bits) == sizeof(Key));
    static_assert(kPasses % 2 == 0, "the sorted keys must end in the working array");
    static constexpr bool kMayCarryValues = std::is_same_v<Key, float>;  // pairs: float keys
    // Keys per thread in a pass tile, and pass blocks per SM. Larger tiles mean fewer
    // look-backs and scans per key, more blocks hide more latency, and 3 blocks of 256
    // threads leave 80 registers a thread, which more keys spill. Measured on an H100
    // against thrust::sort, 1e8 and 1e9 keys: 32-bit keys 32 a thread at 3 blocks per SM
    // (1.02-1.05x Thrust), ahead of 24 at 4 (1.00-1.03x), 36 at 3 (0.96x), 28 at 3
    // (0.99-1.00x), 48 at 2 (0.98x); uint64 20 a thread at 3 blocks (1.006-1.009x), ahead of
    // 22 at 3 (0.99x), 18 at 3 (0.98x), 28 at 2 (0.98-1.00x), 24 at 3 (0.91x), 16 at 3 or 4
    // (0.95x, 0.91x).
    static constexpr int kKeyItems = sizeof(Bits) == 4 ? 32 : 20;
    static constexpr int kPairItems = 16;
    static constexpr int kBlocksPerSm = 3;  // keys and pairs
    // The state buffer: digit counts [pass][digit], tile counters [pass], tile status.
    static constexpr size_t kTileCountersAt = size_t{kPasses} * radix::kRadix;
    static constexpr size_t kStatusAt = kTileCountersAt + kPasses;

public:
    OnesweepSorter(size_t n, const gpubench::Setup &setup, bool pairs)
        : n_(n), pairs_(pairs), stream_(gpubench::cuda::stream_of(setup)) {
        if (n >= radix::kMaxKeys)  // max_size is 1e9
            throw gpubench::NotSupported("sort_cuda's 30-bit look-back counts need n < 2^30");
        int sms = 0, blocks_per_sm = 0;
        GPUBENCH_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, setup.cuda_device));
        GPUBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks_per_sm, radix::count_all_digits<Traits>, radix::kCountThreads, 0));
        // count_all_digits: one full wave of blocks, fewer if a round of each covers n.
        const size_t keys_per_round = size_t{radix::kCountThreads} * radix::kCountVectors *
                                      radix::KeyVector<Bits>::kKeys;
        count_blocks_ = static_cast<unsigned>(
            std::min<size_t>(size_t(std::max(1, sms * blocks_per_sm)),
                             std::max<size_t>(1, (n + keys_per_round - 1) / keys_per_round)));
        const size_t tile = size_t{radix::kPassThreads} * (pairs ? kPairItems : kKeyItems);
        tiles_ = static_cast<unsigned>((n + tile - 1) / tile);
        scratch_keys_ = gpubench::cuda::DeviceBuffer<Bits>(n);
        scratch_values_ = gpubench::cuda::DeviceBuffer<uint32_t>(pairs ? n : 0);
        state_ =
            gpubench::cuda::DeviceBuffer<unsigned>(kStatusAt + size_t{tiles_} * radix::kRadix);
        // Zero once: each pass leaves the status words reading "nothing yet" to the next.
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(state_.data(), 0, state_.bytes(), stream_));
        if constexpr (kMayCarryValues)
            if (pairs_) allow_tile_memory<kPairItems, true>();
        if (!pairs_) allow_tile_memory<kKeyItems, false>();
    }

    void sort(Key *keys, uint32_t *values) {
        Bits *bits = reinterpret_cast<Bits *>(keys);
        GPUBENCH_CUDA_CHECK(
            cudaMemsetAsync(state_.data(), 0, kStatusAt * sizeof(unsigned), stream_));
        radix::count_all_digits<Traits>
            <<<count_blocks_, radix::kCountThreads, 0, stream_>>>(bits, n_, state_.data());
        gpubench::cuda::check_launch("count_all_digits");
        radix::scan_digit_counts<<<kPasses, radix::kRadix, 0, stream_>>>(state_.data());
        gpubench::cuda::check_launch("scan_digit_counts");
        if constexpr (kMayCarryValues) {
            if (pairs_) {
                passes<kPairItems, true>(
                    bits, scratch_keys_.data(), values, scratch_values_.data());
                return;
            }
        }
        passes<kKeyItems, false>(bits, scratch_keys_.data(), nullptr, nullptr);
    }

private:
    // Lets each pass kernel have its tile's dynamic shared memory (above 48 KiB needs asking).
    template <int kItems, bool kPairs, int kPass = 0>
    static void allow_tile_memory() {
        GPUBENCH_CUDA_CHECK(cudaFuncSetAttribute(
            radix::onesweep_pass<Traits, kPass, kItems, kPairs, kBlocksPerSm>,
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            static_cast<int>(radix::pass_tile_bytes<Bits, kItems, kPairs>())));
        if constexpr (kPass + 1 < kPasses) allow_tile_memory<kItems, kPairs, kPass + 1>();
    }

    // Launches pass kPass and, after it, the later ones, swapping the arrays each time.
    template <int kItems, bool kPairs, int kPass = 0>
    void passes(Bits *from, Bits *to, uint32_t *values_from, uint32_t *values_to) {
        radix::onesweep_pass<Traits, kPass, kItems, kPairs, kBlocksPerSm>
            <<<tiles_, radix::kPassThreads, radix::pass_tile_bytes<Bits, kItems, kPairs>(),
               stream_>>>(
                from, to, values_from, values_to, n_, state_.data() + kPass * radix::kRadix,
                state_.data() + kStatusAt, state_.data() + kTileCountersAt + kPass);
        gpubench::cuda::check_launch("onesweep_pass");
        if constexpr (kPass + 1 < kPasses)
            passes<kItems, kPairs, kPass + 1>(to, from, values_to, values_from);
    }

    size_t n_;
    bool pairs_;
    cudaStream_t stream_;
    unsigned count_blocks_ = 1, tiles_ = 1;
    gpubench::cuda::DeviceBuffer<Bits> scratch_keys_;
    gpubench::cuda::DeviceBuffer<uint32_t> scratch_values_;  // pairs only
    gpubench::cuda::DeviceBuffer<unsigned> state_;           // counts, counters, tile status
};

template <class Layout>
using CudaProblem = gpubench::cuda::DeviceProblem<sort::DeviceArrays<Layout, OnesweepSorter>>;
using CudaPlugin = sort::Plugin<kCuda, CudaProblem>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, sort::make_info(kCuda))
