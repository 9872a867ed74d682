// What every sort backend shares: the descriptor data, the work model, deterministic inputs,
// the O(n) verification, and the plugin class that picks the record layout from the `keys`
// parameter. A backend supplies only its sorter.
//
// Records (parameter `keys`):
//   float32  float keys (default)
//   uint32   32-bit unsigned keys
//   uint64   64-bit unsigned keys
//   pairs    float keys, each carrying a uint32 value (its input position) along
// Inputs (parameter `input`): random (uniform bit patterns: the whole finite float range,
// or all 32 or 64 bits) or descending (strictly descending, the merge-sort worst case of the
// seminar study). Never NaN, Inf or -0.0.
#pragma once

#include "one_of_problems.hpp"

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace sort {

enum class Keys { float32, uint32, uint64, pairs };  // in the order of Plugin's layouts
enum class Input { random, descending };

struct Config {
    Keys keys = Keys::float32;
    Input input = Input::random;
};

// A float key with its value, as the CPU backends sort pairs (one 8-byte record).
struct KeyValue {
    float key;
    uint32_t value;
};

// Ascending order of keys; values ride along.
struct KeyLess {
    bool operator()(float a, float b) const { return a < b; }
    bool operator()(uint32_t a, uint32_t b) const { return a < b; }
    bool operator()(uint64_t a, uint64_t b) const { return a < b; }
    bool operator()(const KeyValue &a, const KeyValue &b) const { return a.key < b.key; }
};

// The four layouts. CPU backends sort Element arrays; GPU backends sort a Key array and,
// for pairs, a separate uint32 value array.
struct Float32Keys {
    using Element = float;
    using Key = float;
    static constexpr bool kPairs = false;
};
struct Uint32Keys {
    using Element = uint32_t;
    using Key = uint32_t;
    static constexpr bool kPairs = false;
};
struct Uint64Keys {
    using Element = uint64_t;
    using Key = uint64_t;
    static constexpr bool kPairs = false;
};
struct Float32Pairs {
    using Element = KeyValue;
    using Key = float;
    static constexpr bool kPairs = true;
};

// Descriptor data for one backend: its own row (name, device, sizes, description) plus
// what every sort backend shares.
gpubench::Info make_info(const gpubench::BackendSpec &spec);

// bytes = 2 n records (each read and written once); items = n keys; flops = 0.
gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t n,
                         const gpubench::Params &params);

// keys=float32|uint32|uint64|pairs, input=random|descending. Throws InvalidArgument otherwise.
Config parse_config(const gpubench::Params &params);

// n as a size_t, or NotSupported outside [min_size, max_size] of the backend.
size_t checked_size(const gpubench::BackendSpec &spec, uint64_t n);

// Below, Element is float, uint32_t, uint64_t or KeyValue (CPU records, GPU key arrays).
// Inputs: record i is a pure function of (seed, input, n, i). Pair values are positions.
// OpenMP static over `threads` threads (first touch by the same split as the sorters).
template <class Element>
void fill_input(uint64_t seed, Input input, Element *records, size_t n, int threads);
void fill_positions(uint32_t *values, size_t n, int threads);

// An order-independent fingerprint of a multiset of records: the sum and the xor, mod 2^64,
// of splitmix64 of each record's bits (key bits, or key bits << 32 | value for pairs).
struct MultisetHash {
    uint64_t sum = 0, xor_all = 0;
    bool operator==(const MultisetHash &) const = default;
};
// The (keys, values) overloads take separate arrays, as the GPU and Python backends hold
// them: float keys with their values, or keys alone where values is null.
template <class Element>
MultisetHash hash_of(const Element *records, size_t n, int threads);
template <class Key>
MultisetHash hash_of(const Key *keys, const uint32_t *values, size_t n, int threads);

// Passes when the keys are non-decreasing and the records hash as the input did (so the
// output is a permutation of the input, pairs kept together). max_error counts the errors
// found (adjacent pairs out of order, plus 1 for a hash mismatch); tolerance 0.
template <class Element>
gpubench::Verification verify_sorted(const Element *records, size_t n,
                                     const MultisetHash &input, int threads);
template <class Key>
gpubench::Verification verify_sorted(const Key *keys, const uint32_t *values, size_t n,
                                     const MultisetHash &input, int threads);

// All bytes 0xFF (a NaN key): records a sort never writes fail verification.
void poison(void *records, size_t bytes, int threads);

// to = from, OpenMP static over `threads` threads (the CPU reset).
void copy_bytes(void *to, const void *from, size_t bytes, int threads);

// The CPU problem: the pristine input, the working array that run() sorts in place (reset
// restores it), and the sorter. Sorter<Element> is constructed from (n, setup) and called
// as sorter.sort(data); it returns where the sorted records are (data or its own scratch).
template <class Layout, template <class> class Sorter>
class HostProblem {
    using Element = typename Layout::Element;

public:
    HostProblem(const gpubench::Setup &setup, size_t n, Input input)
        : n_(n),
          threads_(setup.threads()),
          pristine_(std::make_unique_for_overwrite<Element[]>(n)),
          working_(std::make_unique_for_overwrite<Element[]>(n)),
          sorter_(n, setup) {
        fill_input(setup.seed, input, pristine_.get(), n_, threads_);
        input_hash_ = hash_of(pristine_.get(), n_, threads_);
        poison(working_.get(), n_ * sizeof(Element), threads_);
        sorted_ = working_.get();
    }
    void reset() { copy_bytes(working_.get(), pristine_.get(), n_ * sizeof(Element), threads_); }
    void run() { sorted_ = sorter_.sort(working_.get()); }
    gpubench::Verification verify() const {
        return verify_sorted(sorted_, n_, input_hash_, threads_);
    }

private:
    size_t n_;
    int threads_;
    std::unique_ptr<Element[]> pristine_, working_;  // pages first touched by the fill
    Sorter<Element> sorter_;
    MultisetHash input_hash_;
    const Element *sorted_;
};

// How keys= picks the layout (one_of_problems.hpp); Problem<Layout> is constructed from
// (setup, n, input).
struct Rules {
    static gpubench::ProblemChoice<const gpubench::Setup &, size_t, Input> choose(
        const gpubench::BackendSpec &spec, const gpubench::Setup &setup) {
        const size_t n = checked_size(spec, setup.size);
        const Config config = parse_config(setup.params);
        return {static_cast<size_t>(config.keys), {setup, n, config.input}};
    }
    static constexpr auto make_work = &sort::make_work;
};

// The class GPUBENCH_PLUGIN wraps: Problem<Float32Keys>, Problem<Uint32Keys>,
// Problem<Uint64Keys> or Problem<Float32Pairs> as `keys` says.
template <const gpubench::BackendSpec &Spec, template <class> class Problem>
using Plugin = gpubench::ProblemChosenByParams<Rules, Spec, Problem, Float32Keys, Uint32Keys,
                                               Uint64Keys, Float32Pairs>;

}  // namespace sort
