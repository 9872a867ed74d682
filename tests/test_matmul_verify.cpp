// matmul's verification (plugins/matmul/matmul_common.hpp) in both directions: a product of
// inputs rounded to TF32, as cuBLAS's math=tf32 computes it, passes only where the check allows
// for that rounding (and the work is read against the TF32 peak), and an error past that
// allowance fails it still.
#include "matmul_common.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

// x with its float mantissa cut to TF32's 10 bits (truncation: the larger of TF32's errors).
float to_tf32(float x) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits &= ~uint32_t((1u << 13) - 1);
    std::memcpy(&x, &bits, sizeof bits);
    return x;
}

// C = A*B of n x n row-major inputs, each input first rounded by `round`, summed in double.
std::vector<float> product(size_t n, const std::vector<float> &a, const std::vector<float> &b, float (*round)(float)) {
    std::vector<float> c(n * n);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
            double sum = 0;
            for (size_t k = 0; k < n; ++k) sum += double(round(a[i * n + k])) * double(round(b[k * n + j]));
            c[i * n + j] = float(sum);
        }
    return c;
}

}  // namespace

TEST_CASE("matmul's check allows TF32's rounding only where the math asks for it, and no more", "[matmul]") {
    const size_t n = 96;
    std::vector<float> a(n * n), b(n * n);
    matmul::fill_inputs(42, n, a.data(), b.data());
    const gpubench::Params tf32("math=tf32"), fp32;
    const double rounding = matmul::input_rounding(tf32);
    CHECK(rounding == std::ldexp(1.0, -10));
    CHECK(matmul::input_rounding(fp32) == 0);

    const std::vector<float> exact = product(n, a, b, [](float x) { return x; });
    const std::vector<float> rounded = product(n, a, b, to_tf32);
    CHECK(matmul::verify_product(n, a.data(), b.data(), exact.data()).passed);
    CHECK(matmul::verify_product(n, a.data(), b.data(), exact.data(), rounding).passed);
    const gpubench::Verification strict = matmul::verify_product(n, a.data(), b.data(), rounded.data());
    const gpubench::Verification allowed = matmul::verify_product(n, a.data(), b.data(), rounded.data(), rounding);
    INFO("TF32 error " << allowed.max_error << ", float32 tolerance " << strict.tolerance << ", TF32's "
                       << allowed.tolerance);
    CHECK_FALSE(strict.passed);  // TF32's error is far past float32's
    CHECK(allowed.passed);
    // An error of 3 times TF32's allowance on one entry fails even with it.
    std::vector<float> wrong = rounded;
    double scale = 0;
    for (size_t k = 0; k < n; ++k) scale += std::fabs(double(a[k]) * double(b[k * n]));
    wrong[0] += float(3 * allowed.tolerance * scale);
    CHECK_FALSE(matmul::verify_product(n, a.data(), b.data(), wrong.data(), rounding).passed);

    // Its flops are read against the TF32 tensor peak; float32 otherwise.
    const gpubench::BackendSpec spec{"matmul_x", "x", GPUBENCH_DEVICE_CUDA, "", 32768, {}};
    CHECK(matmul::make_work(spec, 1024, tf32).math == GPUBENCH_MATH_TENSOR_TF32);
    CHECK(matmul::make_work(spec, 1024, fp32).math == GPUBENCH_MATH_FP32);
}

TEST_CASE("matmul's check reaches every report as relative_error, the check's largest error", "[matmul]") {
    const size_t n = 40;
    std::vector<float> a(n * n), b(n * n);
    matmul::fill_inputs(7, n, a.data(), b.data());
    const gpubench::Verification exact = matmul::verify_product(n, a.data(), b.data(), product(n, a, b, [](float x) { return x; }).data());
    const gpubench::Verification rounded = matmul::verify_product(n, a.data(), b.data(), product(n, a, b, to_tf32).data());
    for (const gpubench::Verification *v : {&exact, &rounded}) {
        const std::vector<gpubench::Metric> m = matmul::error_metrics(*v);
        REQUIRE(m.size() == 1);
        CHECK(m[0].name == "relative_error");
        CHECK(m[0].value == v->max_error);
        CHECK(m[0].better == GPUBENCH_BETTER_LOWER);
    }
    CHECK(rounded.max_error > 10 * exact.max_error);  // the metric tells the two apart
    CHECK(matmul::error_metrics(gpubench::Verification{}).empty());  // none before a check
}
