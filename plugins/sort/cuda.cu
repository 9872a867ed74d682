// A hand-written LSD radix sort (no CUB, no Thrust): keys become bits whose unsigned order
// is the key order, then one stable pass per 8-bit digit, least significant first, 4
// passes for float32 and 8 for uint64, ping-ponging between the working array and one
// scratch array (an even number of passes ends in the working array). Each pass is three
// kernels (radix_kernels.cuh):
//   count_digits    per-block digit counts of the block's run of 4096-key tiles;
//   exclusive_scan  one block turns the digit-major counts into each (digit, block)'s
//                   first output position;
//   scatter_digits  each block walks its tiles in order, ranks keys within a warp with
//                   __match_any_sync, sorts the tile by digit in shared memory (stable),
//                   and writes each digit's keys to consecutive positions.
// The first pass encodes the keys as it reads them and the last decodes as it writes.
// Traffic per pass: keys read twice and written once (12 bytes per float key, 48 in all;
// pairs add a value read and write per pass); the counts are 1 KiB per block. Blocks: as
// many as fit on the GPU at once, so the scan stays a few hundred KiB at any n.
#include "radix_kernels.cuh"
#include "sort_gpu.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

namespace {

const gpubench::BackendSpec kCuda{
    "sort_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "hand-written LSD radix sort, 8-bit digits (4 passes float32, 8 uint64): "
    "per-block digit counts, one-block scan, stable scatter via a shared-memory "
    "tile ranked with __match_any_sync; up to 1e9 keys (3 device arrays, 12-24 GB)",
    1'000'000'000ull,
    {1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}};
namespace radix = sort::radix;

template <class Key>
using KeyBitsOf =
    std::conditional_t<std::is_same_v<Key, float>, radix::FloatKeyBits, radix::Uint64KeyBits>;

template <class Key>
class RadixSorter {
    using Traits = KeyBitsOf<Key>;
    using Bits = typename Traits::Bits;
    static_assert(sizeof(Bits) == sizeof(Key));
    static_assert(Traits::kPasses % 2 == 0, "the sorted keys must end in the working array");
    static constexpr bool kMayCarryValues = std::is_same_v<Key, float>;  // pairs: float keys

public:
    RadixSorter(size_t n, const gpubench::Setup &setup, bool pairs)
        : n_(n), pairs_(pairs), stream_(gpubench::cuda::stream_of(setup)) {
        if (n >= (size_t{1} << 32))  // counts and offsets are 32-bit; max_size is 1e9
            throw gpubench::NotSupported("sort_cuda's 32-bit digit offsets need n < 2^32");
        int sms = 0;
        GPUBENCH_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, setup.cuda_device));
        const size_t tiles = (n + radix::kTile - 1) / radix::kTile;
        const size_t resident =
            static_cast<size_t>(std::max(1, sms) * std::max(1, scatter_blocks_per_sm(pairs)));
        tiles_per_block_ = static_cast<unsigned>((tiles + resident - 1) / resident);
        blocks_ = static_cast<unsigned>((tiles + tiles_per_block_ - 1) / tiles_per_block_);
        scratch_keys_ = gpubench::cuda::DeviceBuffer<Bits>(n);
        scratch_values_ = gpubench::cuda::DeviceBuffer<uint32_t>(pairs ? n : 0);
        counts_ = gpubench::cuda::DeviceBuffer<unsigned>(size_t{radix::kRadix} * blocks_);
    }

    void sort(Key *keys, uint32_t *values) {
        Bits *from = reinterpret_cast<Bits *>(keys), *to = scratch_keys_.data();
        uint32_t *values_from = values, *values_to = scratch_values_.data();
        for (int pass = 0; pass < Traits::kPasses; ++pass) {
            const int shift = pass * radix::kDigitBits;
            if (pass == 0)
                count_and_scatter<true, false>(from, to, values_from, values_to, shift);
            else if (pass == Traits::kPasses - 1)
                count_and_scatter<false, true>(from, to, values_from, values_to, shift);
            else
                count_and_scatter<false, false>(from, to, values_from, values_to, shift);
            std::swap(from, to);
            std::swap(values_from, values_to);
        }
    }

private:
    // How many scatter blocks an SM holds at once (registers and shared memory differ with
    // pairs): the grid is one full wave of them.
    static int scatter_blocks_per_sm(bool pairs) {
        int blocks = 0;
        if constexpr (kMayCarryValues) {
            if (pairs) {
                GPUBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &blocks, radix::scatter_digits<Traits, false, false, true>, radix::kThreads,
                    0));
                return blocks;
            }
        }
        GPUBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, radix::scatter_digits<Traits, false, false, false>, radix::kThreads, 0));
        return blocks;
    }

    template <bool kEncode, bool kDecode>
    void count_and_scatter(const Bits *from, Bits *to, const uint32_t *values_from,
                           uint32_t *values_to, int shift) {
        radix::count_digits<Traits, kEncode><<<blocks_, radix::kThreads, 0, stream_>>>(
            from, n_, tiles_per_block_, shift, counts_.data());
        gpubench::cuda::check_launch("count_digits");
        radix::exclusive_scan<<<1, radix::kScanThreads, 0, stream_>>>(counts_.data(),
                                                                      counts_.size());
        gpubench::cuda::check_launch("exclusive_scan");
        if constexpr (kMayCarryValues) {
            if (pairs_) {
                scatter<kEncode, kDecode, true>(from, to, values_from, values_to, shift);
                return;
            }
        }
        scatter<kEncode, kDecode, false>(from, to, nullptr, nullptr, shift);
    }

    template <bool kEncode, bool kDecode, bool kPairs>
    void scatter(const Bits *from, Bits *to, const uint32_t *values_from, uint32_t *values_to,
                 int shift) {
        radix::scatter_digits<Traits, kEncode, kDecode, kPairs>
            <<<blocks_, radix::kThreads, 0, stream_>>>(from, to, values_from, values_to, n_,
                                                       tiles_per_block_, shift, counts_.data());
        gpubench::cuda::check_launch("scatter_digits");
    }

    size_t n_;
    bool pairs_;
    cudaStream_t stream_;
    unsigned tiles_per_block_ = 1, blocks_ = 1;
    gpubench::cuda::DeviceBuffer<Bits> scratch_keys_;
    gpubench::cuda::DeviceBuffer<uint32_t> scratch_values_;  // pairs only
    gpubench::cuda::DeviceBuffer<unsigned> counts_;  // digit-major: [digit * blocks + block]
};

template <class Layout>
using CudaProblem = sort::DeviceProblem<Layout, RadixSorter>;
using CudaPlugin = sort::Plugin<kCuda, CudaProblem>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, sort::make_info(kCuda))
