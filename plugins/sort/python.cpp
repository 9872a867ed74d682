// The C++ half of sort's Python backends: the same inputs and the same O(n) check as the C++
// backends. The script sees the pristine input as ctx.inputs["keys"] (float32, uint32 or
// uint64 as keys= says; for keys=pairs also ctx.inputs["values"], uint32 input positions) and must
// leave the records sorted by key in ctx.outputs["keys"] (and ["values"], each value still
// with its key): the working arrays, which its reset() restores from the inputs so that
// run() can sort them in place.
#include "sort_common.hpp"

#include <gpubench/python_workload.hpp>

#include <memory>
#include <type_traits>

namespace {

template <class Key, bool kPairs>
class SortData : public gpubench::python::Data {
    static constexpr size_t value_count(size_t n) { return kPairs ? n : 0; }

public:
    SortData(size_t n, const gpubench::Setup &setup, sort::Input input)
        : n_(n),
          threads_(setup.threads()),
          input_keys_(std::make_unique_for_overwrite<Key[]>(n)),
          keys_(std::make_unique_for_overwrite<Key[]>(n)),
          input_values_(std::make_unique_for_overwrite<uint32_t[]>(value_count(n))),
          values_(std::make_unique_for_overwrite<uint32_t[]>(value_count(n))) {
        sort::fill_input(setup.seed, input, input_keys_.get(), n, threads_);
        if constexpr (kPairs) sort::fill_positions(input_values_.get(), n, threads_);
        input_hash_ = sort::hash_of(input_keys_.get(), values(input_values_), n, threads_);
        // All bytes 0xFF: a NaN float key, the largest unsigned key, a value no input has.
        sort::poison(keys_.get(), n * sizeof(Key), threads_);
        sort::poison(values_.get(), value_count(n) * sizeof(uint32_t), threads_);
    }
    std::vector<gpubench::python::Array> arrays() override {
        const char *dtype = std::is_same_v<Key, float>      ? "float32"
                            : std::is_same_v<Key, uint32_t> ? "uint32"
                                                            : "uint64";
        const size_t key_bytes = n_ * sizeof(Key), value_bytes = n_ * sizeof(uint32_t);
        std::vector<gpubench::python::Array> list{
            {"keys", dtype, {n_}, input_keys_.get(), key_bytes, false},
            {"keys", dtype, {n_}, keys_.get(), key_bytes, true}};
        if constexpr (kPairs) {
            list.push_back({"values", "uint32", {n_}, input_values_.get(), value_bytes, false});
            list.push_back({"values", "uint32", {n_}, values_.get(), value_bytes, true});
        }
        return list;
    }
    gpubench::Verification verify() override {
        return sort::verify_sorted(keys_.get(), values(values_), n_, input_hash_, threads_);
    }

private:
    // Null unless kPairs (make_unique_for_overwrite of 0 elements need not be null).
    static uint32_t *values(const std::unique_ptr<uint32_t[]> &array) {
        return kPairs ? array.get() : nullptr;
    }

    size_t n_;
    int threads_;
    std::unique_ptr<Key[]> input_keys_, keys_;            // pages first touched by the fill
    std::unique_ptr<uint32_t[]> input_values_, values_;  // pairs only
    sort::MultisetHash input_hash_;
};

std::unique_ptr<gpubench::python::Data> create(const gpubench::BackendSpec &backend,
                                               const gpubench::Setup &setup) {
    const size_t n = sort::checked_size(backend, setup.size);
    const sort::Config config = sort::parse_config(setup.params);
    if (config.keys == sort::Keys::uint32)
        return std::make_unique<SortData<uint32_t, false>>(n, setup, config.input);
    if (config.keys == sort::Keys::uint64)
        return std::make_unique<SortData<uint64_t, false>>(n, setup, config.input);
    if (config.keys == sort::Keys::pairs)
        return std::make_unique<SortData<float, true>>(n, setup, config.input);
    return std::make_unique<SortData<float, false>>(n, setup, config.input);
}

gpubench::Info info(const gpubench::BackendSpec &backend) { return sort::make_info(backend); }

gpubench::Work work(const gpubench::BackendSpec &backend, uint64_t n, const gpubench::Params &params) {
    return sort::make_work(backend, n, params);
}

}  // namespace

extern const gpubench::python::Workload gpubench_python_workload{info, work, create};
