#include "sort_common.hpp"

#include <gpubench/backend_spec.hpp>
#include "random_inputs.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

namespace sort {
namespace inputs = gpubench::inputs;
namespace {

using gpubench::BackendSpec;

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kExponentBits = 0x7F800000u;
constexpr uint32_t kLargestFiniteBits = 0x7F7FFFFFu;  // FLT_MAX; positive floats order as bits
static_assert(2'000'000'000ull <= kLargestFiniteBits, "descending floats must stay distinct");

// Key i of the input. descending spreads the n keys evenly over the positive floats (their
// bit patterns order as their values) or over all uint32 or uint64, so they are strictly
// descending.
class KeyGenerator {
public:
    KeyGenerator(uint64_t seed, Input input, size_t n)
        : stream_(inputs::stream_key(seed, 0)),
          descending_(input == Input::descending),
          last_(n > 0 ? n - 1 : 0),
          float_step_(kLargestFiniteBits / std::max<uint64_t>(last_, 1)),
          uint32_step_(std::numeric_limits<uint32_t>::max() / std::max<uint64_t>(last_, 1)),
          uint64_step_(std::numeric_limits<uint64_t>::max() / std::max<uint64_t>(last_, 1)) {}

    template <class Element>
    Element at(size_t i) const {
        if constexpr (std::is_same_v<Element, KeyValue>)
            return {float_at(i), static_cast<uint32_t>(i)};
        else if constexpr (std::is_same_v<Element, float>)
            return float_at(i);
        else if constexpr (std::is_same_v<Element, uint32_t>)
            return uint32_at(i);
        else
            return uint64_at(i);
    }

private:
    float float_at(size_t i) const {
        if (descending_)
            return std::bit_cast<float>(static_cast<uint32_t>((last_ - i) * float_step_));
        uint32_t bits = static_cast<uint32_t>(inputs::bits(stream_, i) >> 32);
        if ((bits & kExponentBits) == kExponentBits) bits ^= 0x40000000u;  // Inf/NaN -> finite
        if (bits == kSignBit) bits = 0;                                   // -0.0 -> +0.0
        return std::bit_cast<float>(bits);
    }
    uint32_t uint32_at(size_t i) const {
        return static_cast<uint32_t>(descending_ ? (last_ - i) * uint32_step_
                                                 : inputs::bits(stream_, i) >> 32);
    }
    uint64_t uint64_at(size_t i) const {
        return descending_ ? (last_ - i) * uint64_step_ : inputs::bits(stream_, i);
    }

    uint64_t stream_;
    bool descending_;
    uint64_t last_, float_step_, uint32_step_, uint64_step_;
};

// body(i) for i in [0, n), OpenMP static: the same split for fill, copy and checks.
template <class Body>
void parallel_for(size_t n, int threads, Body body) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) body(static_cast<size_t>(i));
}

}  // namespace

namespace {
const gpubench::ParamSpec kKeysParam = gpubench::choice(
    "keys", {"float32", "uint32", "uint64", "pairs"}, "key type; pairs: float32 keys carrying uint32 values");
const gpubench::ParamSpec kInputParam =
    gpubench::choice("input", {"random", "descending"}, "key order; descending: strictly descending");
}  // namespace

gpubench::Info make_info(const BackendSpec &s) {
    gpubench::Info info{s.name,
                        "sort",
                        s.backend,
                        s.device_kind,
                        s.description,
                        "n: keys sorted ascending (float32; keys=uint32|uint64|pairs)",
                        "1.0",
                        "keys=float32|uint32|uint64|pairs (default float32; pairs = float32 keys "
                        "carrying uint32 values); input=random|descending (default random; "
                        "descending = strictly descending)",
                        1,
                        s.max_size,
                        s.default_sizes,
                        "keys",
                        GPUBENCH_HEADLINE_ITEMS};
    info.params = {kKeysParam, kInputParam};
    return info;
}

Config parse_config(const gpubench::Params &params) {
    return {params.get_enum<Keys>(kKeysParam), params.get_enum<Input>(kInputParam)};
}

size_t checked_size(const BackendSpec &spec, uint64_t n) {
    return gpubench::checked_size(make_info(spec), n);
}

gpubench::Work make_work(const BackendSpec &spec, uint64_t n, const gpubench::Params &params) {
    const Keys keys = parse_config(params).keys;
    const double record = keys == Keys::float32 || keys == Keys::uint32 ? 4.0 : 8.0;
    const double records_bytes = static_cast<double>(n) * record;
    const bool gpu = spec.device_kind == GPUBENCH_DEVICE_CUDA;
    gpubench::Work w;
    w.bytes = 2.0 * records_bytes;
    w.items = static_cast<double>(n);
    // CPU: pristine, working, scratch. GPU host: pinned input and output; device: pristine,
    // working, and a ping-pong buffer (radix) or Thrust's temporary storage of the same size.
    w.host_bytes = (gpu ? 2.0 : 3.0) * records_bytes;
    w.device_bytes = gpu ? 3.0 * records_bytes : 0.0;
    // One key is sorted already: CuPy's and Numba's sorts launch nothing for it.
    if (gpu && n < 2) w.flags |= GPUBENCH_WORK_RUN_NO_DEVICE_WORK;
    return w;
}

template <class Element>
void fill_input(uint64_t seed, Input input, Element *records, size_t n, int threads) {
    const KeyGenerator gen(seed, input, n);
    parallel_for(n, threads, [&](size_t i) { records[i] = gen.at<Element>(i); });
}
template void fill_input(uint64_t, Input, float *, size_t, int);
template void fill_input(uint64_t, Input, uint32_t *, size_t, int);
template void fill_input(uint64_t, Input, uint64_t *, size_t, int);
template void fill_input(uint64_t, Input, KeyValue *, size_t, int);

void fill_positions(uint32_t *values, size_t n, int threads) {
    parallel_for(n, threads, [&](size_t i) { values[i] = static_cast<uint32_t>(i); });
}

// Whole chunks per thread: memset/memcpy run at full speed inside each.
void poison(void *records, size_t bytes, int threads) {
    constexpr size_t kChunk = size_t{1} << 20;
    parallel_for((bytes + kChunk - 1) / kChunk, threads, [&](size_t c) {
        std::memset(static_cast<char *>(records) + c * kChunk, 0xFF,
                    std::min(kChunk, bytes - c * kChunk));
    });
}

void copy_bytes(void *to, const void *from, size_t bytes, int threads) {
    constexpr size_t kChunk = size_t{1} << 20;
    parallel_for((bytes + kChunk - 1) / kChunk, threads, [&](size_t c) {
        std::memcpy(static_cast<char *>(to) + c * kChunk,
                    static_cast<const char *>(from) + c * kChunk,
                    std::min(kChunk, bytes - c * kChunk));
    });
}

}  // namespace sort
