// Deterministic inputs shared by every workload: element i of stream s is a pure function of
// (seed, s, i), so every backend of a workload gets bit-identical inputs, in any order and on
// any number of threads.
#pragma once

#include <cstdint>

namespace gpubench::inputs {

// splitmix64's finaliser: a fast, well-mixed 64-bit hash.
constexpr uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// The key of one independent stream (a matrix, a key array...) for a run seed.
constexpr uint64_t stream_key(uint64_t seed, uint64_t stream) {
    return splitmix64(splitmix64(seed) ^ (stream + 1));
}

// 64 random bits for element i of the stream with key `key`.
constexpr uint64_t bits(uint64_t key, uint64_t i) { return splitmix64(key + i); }

// Top 24 bits k -> (2k + 1 - 2^24) / 2^24: in (-1, 1), never zero, exact in float.
constexpr double symmetric_unit(uint64_t random_bits) {
    const int64_t k = static_cast<int64_t>(random_bits >> 40);
    return static_cast<double>(2 * k + 1 - (int64_t{1} << 24)) * 0x1p-24;
}

// Top 24 bits k -> k / 2^24: in [0, 1), exact in float.
constexpr double unit(uint64_t random_bits) {
    return static_cast<double>(random_bits >> 40) * 0x1p-24;
}

}  // namespace gpubench::inputs
