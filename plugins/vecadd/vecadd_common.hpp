// What every vecadd backend shares: the descriptor data, the work model, deterministic
// inputs, the exact verification, and the CPU-side problem. A backend supplies its loop.
//
// Two variants (parameter `variant`):
//   add        c = a + b over n float32 (a, b inputs; c the result)
//   increment  a[i] += 1 in place, as in the Numba examples. The working array is c: reset()
//              copies the pristine a into it before every run, run() increments c in place.
#pragma once

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace vecadd {

enum class Variant { add, increment };

// Descriptor data for one backend: its own row (name, device, sizes, description) plus
// what every vecadd backend shares.
gpubench::Info make_info(const gpubench::BackendSpec &spec);

// flops = n; bytes = the minimum traffic, 3n floats (add) or 2n (increment); items = n.
// Device bytes for GPUs only (a backend adds its own scratch, as vecadd_cublas does).
gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t n,
                         const gpubench::Params &params);

// The variant parameter: add (default) or increment. Throws InvalidArgument otherwise.
inline const gpubench::ParamSpec kVariantParam = gpubench::choice(
    "variant", {"add", "increment"}, "add: c = a + b; increment: a[i] += 1 in place, a restored before each run");
inline Variant parse_variant(const gpubench::Params &params) { return params.get_enum<Variant>(kVariantParam); }

// One instance's size and parameters, as every backend reads them from its Setup.
struct Instance {
    size_t n;         // elements; NotSupported outside the backend's [min_size, max_size]
    uint64_t seed;
    int threads;      // CPU threads for the OpenMP loops (and the omp backend's run)
    Variant variant;
};
Instance make_instance(const gpubench::BackendSpec &spec, const gpubench::Setup &setup);

// Element i of a (stream 0) and b (stream 1): exact floats in (-1, 1) from the shared
// deterministic stream. b is filled only for add (b may be null for increment). The loop is
// OpenMP static over instance.threads: the same split as a static `omp for` over n, so
// each page is first touched by the thread that later computes on it.
void fill_inputs(const Instance &instance, float *a, float *b);

// All NaN, so that elements a kernel never writes fail verification (same static split).
void poison(const Instance &instance, float *c);

// to = from, with the same static split (the CPU reset of the increment variant).
void copy(const Instance &instance, const float *from, float *to);

// Exact check of every element against inputs regenerated from the seed: c == a + b (add)
// or c == a + 1 (increment), both correctly rounded float adds that every backend must
// reproduce bit for bit. OpenMP over instance.threads.
gpubench::Verification verify_result(const Instance &instance, const float *c);

// The CPU problem: a, b, c in host memory. Loop has static add(a, b, c, n, threads) and
// increment(c, n, threads). Arrays are allocated untouched and first touched by the
// parallel fill, so pages land near the threads of an OpenMP static loop.
template <const gpubench::BackendSpec &Spec, class Loop>
class HostProblem {
public:
    explicit HostProblem(const gpubench::Setup &setup)
        : instance_(make_instance(Spec, setup)),
          a_(new float[instance_.n]),
          b_(instance_.variant == Variant::add ? new float[instance_.n] : nullptr),
          c_(new float[instance_.n]) {
        fill_inputs(instance_, a_.get(), b_.get());
        poison(instance_, c_.get());
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &params) {
        return make_work(Spec, n, params);
    }
    void reset() {
        if (instance_.variant == Variant::increment) copy(instance_, a_.get(), c_.get());
    }
    void run() {
        if (instance_.variant == Variant::add)
            Loop::add(a_.get(), b_.get(), c_.get(), instance_.n, instance_.threads);
        else
            Loop::increment(c_.get(), instance_.n, instance_.threads);
    }
    gpubench::Verification verify() const { return verify_result(instance_, c_.get()); }

private:
    Instance instance_;
    std::unique_ptr<float[]> a_, b_, c_;  // new float[] leaves the pages untouched
};

}  // namespace vecadd
