#include "vecadd_common.hpp"

#include <gpubench/backend_spec.hpp>
#include "random_inputs.hpp"

#include <cstring>
#include <limits>
#include <string>

namespace vecadd {
namespace inputs = gpubench::inputs;
namespace {

float value_of(uint64_t key, size_t i) {
    return static_cast<float>(inputs::symmetric_unit(inputs::bits(key, i)));
}

// The correctly rounded float result element i must hold.
float expected_at(Variant variant, uint64_t key_a, uint64_t key_b, size_t i) {
    const float a = value_of(key_a, i);
    return variant == Variant::add ? a + value_of(key_b, i) : a + 1.0f;
}

using gpubench::BackendSpec;

}  // namespace

gpubench::Info make_info(const BackendSpec &s) {
    gpubench::Info info{
        s.name, "vecadd", s.backend, s.device_kind, s.description,
        "n: float32 elements (c = a + b; variant=increment: a[i] += 1)", "1.0",
        "variant=add|increment (default add: c = a + b; increment: a[i] += 1 in place, "
        "a restored before each run)",
        10, s.max_size, s.default_sizes, "elements", GPUBENCH_HEADLINE_BYTES};
    info.params = {kVariantParam};
    return info;
}

gpubench::Work make_work(const BackendSpec &spec, uint64_t n, const gpubench::Params &params) {
    const bool add = parse_variant(params) == Variant::add;
    const double nd = static_cast<double>(n);
    const double arrays_bytes = (add ? 3.0 : 2.0) * 4.0 * nd;  // a, b, c or a, c
    gpubench::Work w;
    w.flops = nd;
    w.bytes = arrays_bytes;  // each array read or written once: the minimum traffic
    w.items = nd;
    w.host_bytes = arrays_bytes;
    // Only increment changes its input (reset() restores it): add may run back to back.
    if (add) w.flags |= GPUBENCH_WORK_RUN_REPEATABLE;
    if (spec.device_kind == GPUBENCH_DEVICE_CUDA) w.device_bytes = arrays_bytes;
    return w;
}

Instance make_instance(const BackendSpec &spec, const gpubench::Setup &setup) {
    return {gpubench::checked_size(make_info(spec), setup.size), setup.seed,
            setup.threads(), parse_variant(setup.params)};
}

void fill_inputs(const Instance &instance, float *a, float *b) {
    const uint64_t key_a = inputs::stream_key(instance.seed, 0);
    const uint64_t key_b = inputs::stream_key(instance.seed, 1);
    const int64_t count = static_cast<int64_t>(instance.n);
    const bool add = instance.variant == Variant::add;
#pragma omp parallel for schedule(static) num_threads(instance.threads)
    for (int64_t i = 0; i < count; ++i) {
        a[i] = value_of(key_a, i);
        if (add) b[i] = value_of(key_b, i);
    }
}

void poison(const Instance &instance, float *c) {
    const int64_t count = static_cast<int64_t>(instance.n);
#pragma omp parallel for schedule(static) num_threads(instance.threads)
    for (int64_t i = 0; i < count; ++i) c[i] = std::numeric_limits<float>::quiet_NaN();
}

void copy(const Instance &instance, const float *from, float *to) {
    const int64_t count = static_cast<int64_t>(instance.n);
#pragma omp parallel for schedule(static) num_threads(instance.threads)
    for (int64_t i = 0; i < count; ++i) to[i] = from[i];
}

gpubench::Verification verify_result(const Instance &instance, const float *c) {
    const size_t n = instance.n;
    const Variant variant = instance.variant;
    const uint64_t key_a = inputs::stream_key(instance.seed, 0);
    const uint64_t key_b = inputs::stream_key(instance.seed, 1);
    const int64_t count = static_cast<int64_t>(n);
    uint64_t wrong = 0;
    int64_t first = count;
#pragma omp parallel for schedule(static) num_threads(instance.threads) \
    reduction(+ : wrong) reduction(min : first)
    for (int64_t i = 0; i < count; ++i) {
        const float expected = expected_at(variant, key_a, key_b, i);
        // Bitwise, so that NaN (an unwritten element) never compares as a match.
        if (std::memcmp(&c[i], &expected, sizeof expected) != 0) {
            ++wrong;
            if (i < first) first = i;
        }
    }

    gpubench::Verification v;
    v.checked = n;
    v.max_error = static_cast<double>(wrong);  // elements that differ; none may
    v.tolerance = 0;
    v.passed = wrong == 0;
    v.detail = std::string(variant == Variant::add ? "c == a + b" : "a == a0 + 1") +
               " bit for bit, all " + std::to_string(n) + " elements (max_error counts misses)";
    if (wrong)
        v.detail += "; " + std::to_string(wrong) + " differ, first at " + std::to_string(first) +
                    " (got " + std::to_string(c[first]) + ", expected " +
                    std::to_string(expected_at(variant, key_a, key_b, first)) + ")";
    return v;
}

}  // namespace vecadd
