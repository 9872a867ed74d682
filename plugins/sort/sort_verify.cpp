// The O(n) check of a sort: keys non-decreasing, and the same multiset of records as the
// input by an order-independent hash. OpenMP reductions, so it takes seconds at 1e9 keys.
#include "sort_common.hpp"

#include "random_inputs.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <type_traits>

namespace sort {
namespace {

// A record's key, and its bits for the multiset hash.
float key_of(float key) { return key; }
uint32_t key_of(uint32_t key) { return key; }
uint64_t key_of(uint64_t key) { return key; }
float key_of(const KeyValue &pair) { return pair.key; }
uint64_t record_bits(float key) { return std::bit_cast<uint32_t>(key); }
uint64_t record_bits(uint32_t key) { return key; }
uint64_t record_bits(uint64_t key) { return key; }
uint64_t record_bits(float key, uint32_t value) { return record_bits(key) << 32 | value; }
uint64_t record_bits(const KeyValue &pair) { return record_bits(pair.key, pair.value); }

template <class Element>
constexpr const char *kRecordsName = std::is_same_v<Element, float>      ? "float32 keys"
                                     : std::is_same_v<Element, uint32_t> ? "uint32 keys"
                                     : std::is_same_v<Element, uint64_t> ? "uint64 keys"
                                                                         : "(key, value) pairs";

// Sum and xor are associative and commutative mod 2^64: the result is the same on any
// number of threads and for any order of the records.
template <class RecordBits>
MultisetHash hash_records(size_t n, int threads, RecordBits record_bits) {
    uint64_t sum = 0, xor_all = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum) \
    reduction(^ : xor_all)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
        const uint64_t h = gpubench::inputs::splitmix64(record_bits(static_cast<size_t>(i)));
        sum += h;
        xor_all ^= h;
    }
    return {sum, xor_all};
}

template <class KeyAt, class RecordBits>
gpubench::Verification check_sorted(size_t n, const MultisetHash &input, int threads,
                                    KeyAt key_at, RecordBits record_bits, const char *records) {
    uint64_t out_of_order = 0, first = std::numeric_limits<uint64_t>::max();
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : out_of_order) \
    reduction(min : first)
    for (int64_t i = 1; i < static_cast<int64_t>(n); ++i)
        if (!(key_at(i - 1) <= key_at(i))) {  // NaN (an unwritten record) fails too
            ++out_of_order;
            first = std::min(first, static_cast<uint64_t>(i - 1));
        }
    const bool same_records = hash_records(n, threads, record_bits) == input;

    gpubench::Verification v;
    v.checked = n;
    v.tolerance = 0;
    v.max_error = static_cast<double>(out_of_order + (same_records ? 0 : 1));
    v.passed = out_of_order == 0 && same_records;
    v.detail = "all " + std::to_string(n) + " keys non-decreasing, and the same multiset of " +
               records + " as the input (sum and xor of splitmix64 hashes)";
    if (out_of_order)
        v.detail += "; " + std::to_string(out_of_order) +
                    " adjacent pairs out of order, first at " + std::to_string(first);
    if (!same_records) v.detail += "; not a permutation of the input (hash differs)";
    return v;
}

}  // namespace

template <class Element>
MultisetHash hash_of(const Element *records, size_t n, int threads) {
    return hash_records(n, threads, [&](size_t i) { return record_bits(records[i]); });
}

template <class Key>
MultisetHash hash_of(const Key *keys, const uint32_t *values, size_t n, int threads) {
    if constexpr (std::is_same_v<Key, float>)
        if (values)
            return hash_records(n, threads, [&](size_t i) { return record_bits(keys[i], values[i]); });
    return hash_of(keys, n, threads);
}

template <class Element>
gpubench::Verification verify_sorted(const Element *records, size_t n,
                                     const MultisetHash &input, int threads) {
    return check_sorted(
        n, input, threads, [&](size_t i) { return key_of(records[i]); },
        [&](size_t i) { return record_bits(records[i]); }, kRecordsName<Element>);
}

template <class Key>
gpubench::Verification verify_sorted(const Key *keys, const uint32_t *values, size_t n,
                                     const MultisetHash &input, int threads) {
    if constexpr (std::is_same_v<Key, float>)
        if (values)
            return check_sorted(
                n, input, threads, [&](size_t i) { return keys[i]; },
                [&](size_t i) { return record_bits(keys[i], values[i]); }, kRecordsName<KeyValue>);
    return verify_sorted(keys, n, input, threads);
}

#define SORT_INSTANTIATE(Element)                                                          \
    template MultisetHash hash_of(const Element *, size_t, int);                           \
    template gpubench::Verification verify_sorted(const Element *, size_t,                 \
                                                  const MultisetHash &, int);
SORT_INSTANTIATE(float)
SORT_INSTANTIATE(uint32_t)
SORT_INSTANTIATE(uint64_t)
SORT_INSTANTIATE(KeyValue)
#undef SORT_INSTANTIATE
#define SORT_INSTANTIATE_ARRAYS(Key)                                                       \
    template MultisetHash hash_of(const Key *, const uint32_t *, size_t, int);             \
    template gpubench::Verification verify_sorted(const Key *, const uint32_t *, size_t,   \
                                                  const MultisetHash &, int);
SORT_INSTANTIATE_ARRAYS(float)
SORT_INSTANTIATE_ARRAYS(uint32_t)
SORT_INSTANTIATE_ARRAYS(uint64_t)
#undef SORT_INSTANTIATE_ARRAYS

}  // namespace sort
