#include "matmul_common.hpp"

#include <gpubench/backend_spec.hpp>
#include "random_inputs.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace matmul {
namespace inputs = gpubench::inputs;
namespace {

using gpubench::BackendSpec;

// N^2 must fit the int index arithmetic of the GPU kernel.
static_assert(32768ull * 32768ull < (1ull << 31));

using inputs::splitmix64;

// Reference arithmetic one step wider than T, so the reference's own rounding is negligible.
template <class T>
using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;

// |c - sum_k a_k b_k| / sum_k |a_k b_k| for one entry: a row of A, a column of B.
template <class T>
double entry_error(size_t n, const T *a_row, const T *b_column, T c) {
    Wide<T> ref = 0, scale = 0;
    for (size_t k = 0; k < n; ++k) {
        const Wide<T> p = static_cast<Wide<T>>(a_row[k]) * static_cast<Wide<T>>(b_column[k]);
        ref += p;
        scale += std::fabs(p);
    }
    const Wide<T> diff = std::fabs(static_cast<Wide<T>>(c) - ref);
    return static_cast<double>(scale > 0 ? diff / scale : diff);
}

constexpr size_t kCheckAllUpTo = 256;  // larger N: a 64 x 64 grid of sampled entries
constexpr size_t kSampleSide = 64;

// Rows (or columns) to check: all of them, or one at a fixed pseudo-random place in each
// of 64 equal strata, the first 0 and the last n-1 (so the four corners are checked and
// every region of C, ragged edges included, is visited).
std::vector<size_t> indices_to_check(size_t n, uint64_t salt) {
    std::vector<size_t> picks(n <= kCheckAllUpTo ? n : kSampleSide);
    for (size_t s = 0; s < picks.size(); ++s) {
        const size_t low = s * n / picks.size(), high = (s + 1) * n / picks.size();
        picks[s] = low + splitmix64(salt + s) % (high - low);
    }
    picks.front() = 0;
    picks.back() = n - 1;
    return picks;
}

}  // namespace

gpubench::Info make_info(const BackendSpec &s, std::vector<gpubench::ParamSpec> extra) {
    gpubench::Info info{s.name,
                        "matmul",
                        s.backend,
                        s.device_kind,
                        s.description,
                        "N: square matrices N x N, float32 (C = A*B; dtype=float64 for double)",
                        "1.0",
                        "dtype=float32|float64 (element type, default float32)",
                        1,
                        s.max_size,
                        s.default_sizes,
                        nullptr,
                        GPUBENCH_HEADLINE_AUTO};
    info.params = {kDtypeParam};
    info.params.insert(info.params.end(), extra.begin(), extra.end());  // the declared ones, shown by --list
    return info;
}

gpubench::Work make_work(const BackendSpec &spec, uint64_t n, const gpubench::Params &params) {
    const double element = parse_dtype(params) == Dtype::float64 ? 8.0 : 4.0;
    const double nd = static_cast<double>(n);
    const double matrices_bytes = 3.0 * nd * nd * element;
    gpubench::Work w;
    w.flops = 2.0 * nd * nd * nd;
    if (element == 8.0) w.math = GPUBENCH_MATH_FP64;  // read against the FP64 peak
    if (element == 4.0 && input_rounding(params) > 0) w.math = GPUBENCH_MATH_TENSOR_TF32;  // math=tf32
    w.bytes = matrices_bytes;
    w.host_bytes = matrices_bytes;
    w.device_bytes = spec.device_kind == GPUBENCH_DEVICE_CUDA ? matrices_bytes : 0.0;
    return w;
}

double input_rounding(const gpubench::Params &params) {
    return params.get("math", "fp32") == "tf32" ? 0x1p-10 : 0.0;
}

std::string float32_only_setting(const gpubench::Params &params) {
    if (input_rounding(params) > 0) return "math=tf32";
    if (!tensor_kernel(params)) return "kernel=ffma";
    return "";
}

size_t checked_size(const BackendSpec &s, uint64_t n) {
    if (n < 1 || n > s.max_size)
        throw gpubench::NotSupported("N=" + std::to_string(n) + " is outside " + s.name +
                                     "'s range 1.." + std::to_string(s.max_size));
    return static_cast<size_t>(n);
}

template <class T>
void fill_inputs(uint64_t seed, size_t n, T *a, T *b) {
    const uint64_t key_a = inputs::stream_key(seed, 0), key_b = inputs::stream_key(seed, 1);
    for (size_t i = 0; i < n * n; ++i) {
        a[i] = static_cast<T>(inputs::symmetric_unit(inputs::bits(key_a, i)));
        b[i] = static_cast<T>(inputs::symmetric_unit(inputs::bits(key_b, i)));
    }
}

template <class T>
void poison(T *c, size_t count) {
    for (size_t i = 0; i < count; ++i) c[i] = std::numeric_limits<T>::quiet_NaN();
}

template <class T>
gpubench::Verification verify_product(size_t n, const T *a, const T *b, const T *c, double rounding) {
    constexpr double unit_roundoff = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
    constexpr const char *reference = std::is_same_v<T, float> ? "float64" : "long double";
    gpubench::Verification v;
    // Each product of inputs rounded by r is off by at most 2r + r^2 of its size.
    v.tolerance = 8.0 * std::sqrt(static_cast<double>(n)) * unit_roundoff + 2 * rounding + rounding * rounding;

    uint64_t failures = 0;
    size_t first_i = 0, first_j = 0;
    const std::vector<size_t> rows = indices_to_check(n, 0x526F7773);
    const std::vector<size_t> cols = indices_to_check(n, 0x436F6C73);
    std::vector<T> column(n);  // B's column j, gathered once for all rows
    for (size_t j : cols) {
        for (size_t k = 0; k < n; ++k) column[k] = b[k * n + j];
        for (size_t i : rows) {
            const double err = entry_error(n, a + i * n, column.data(), c[i * n + j]);
            if (!(err <= v.tolerance) && failures++ == 0) first_i = i, first_j = j;
            if (std::isnan(err) || err > v.max_error) v.max_error = err;  // NaN sticks
            ++v.checked;
        }
    }
    v.passed = failures == 0;

    const std::string entries = n <= kCheckAllUpTo
        ? "all " + std::to_string(v.checked) + " entries"
        : std::to_string(v.checked) + " sampled entries (64x64 grid, corners included)";
    v.detail = "max |c-ref|/sum|a*b| over " + entries + " vs " + reference + " reference";
    if (failures)
        v.detail += "; " + std::to_string(failures) + " out of tolerance, first at (" +
                    std::to_string(first_i) + "," + std::to_string(first_j) + ")";
    return v;
}

std::vector<gpubench::Metric> error_metrics(const gpubench::Verification &checked) {
    if (checked.checked == 0) return {};
    return {{"relative_error", checked.max_error, "",
             "the check's largest |c - ref| / sum |a b| (tolerance 8 sqrt(N) u)", GPUBENCH_BETTER_LOWER}};
}

template void fill_inputs<float>(uint64_t, size_t, float *, float *);
template void fill_inputs<double>(uint64_t, size_t, double *, double *);
template void poison<float>(float *, size_t);
template void poison<double>(double *, size_t);
template gpubench::Verification verify_product<float>(size_t, const float *, const float *,
                                                      const float *, double);
template gpubench::Verification verify_product<double>(size_t, const double *, const double *,
                                                       const double *, double);

}  // namespace matmul
