// What every matmul backend shares: the descriptor data, the work model, deterministic
// inputs, the verification against a wide-precision CPU reference, and the plugin class
// that picks float or double from the dtype parameter. A backend supplies only its kernel.
#pragma once

#include "one_of_problems.hpp"

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace matmul {

enum class Dtype { float32, float64 };  // in the order of Plugin's element types

// Descriptor data for one backend: its own row (name, device, sizes, description) plus
// what every matmul backend shares, and the parameters of its own (`extra`) after dtype.
gpubench::Info make_info(const gpubench::BackendSpec &spec, std::vector<gpubench::ParamSpec> extra = {});

// flops = 2 N^3; bytes = 3 N^2 elements (A, B read, C written); device bytes for GPUs only.
gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t n,
                         const gpubench::Params &params);

// The dtype parameter: float32 (default) or float64. Throws InvalidArgument otherwise.
inline const gpubench::ParamSpec kDtypeParam =
    gpubench::choice("dtype", {"float32", "float64"}, "element type of A, B and C");
inline Dtype parse_dtype(const gpubench::Params &params) { return params.get_enum<Dtype>(kDtypeParam); }

// A library's lower-accuracy mode, declared by the backends that have one (matmul_cublas):
// math=tf32 rounds float32 inputs to TF32 (10 mantissa bits) for the tensor cores. Its
// verification allows for that rounding, and its flops are read against the TF32 peak.
inline const gpubench::ParamSpec kMathParam = gpubench::choice(
    "math", {"fp32", "tf32"},
    "fp32: true float32; tf32: the library's fast TF32 tensor-core mode, a lower-accuracy reference (float32 only)");
// The relative rounding of each input before the products: 2^-10 for TF32 (truncated or
// rounded, the worse of the two), 0 for full precision.
double input_rounding(const gpubench::Params &params);

// matmul_cuda's kernel: tensor (the default: float32 as 3xTF32 on the TF32 tensor cores, each
// input split in two TF32 halves for float32's accuracy, matmul_tf32x3.cuh; float64 on the FP64
// tensor cores) or ffma (float32 on the FP32 pipes, which float64 has no kernel for).
inline const gpubench::ParamSpec kKernelParam = gpubench::choice(
    "kernel", {"tensor", "ffma"},
    "tensor: the tensor cores (float32 as 3xTF32 at float32's accuracy, float64 on FP64 MMA); "
    "ffma: float32 on the FP32 pipes (float32 only)");
// Whether matmul_cuda's settings pick the tensor cores (kernel=tensor, its default).
inline bool tensor_kernel(const gpubench::Params &params) { return params.get("kernel", "tensor") == "tensor"; }
// The setting that only float32 has ("math=tf32", "kernel=ffma"); "" when none.
std::string float32_only_setting(const gpubench::Params &params);

// N as a size_t, or NotSupported outside [min_size, max_size] of the backend.
size_t checked_size(const gpubench::BackendSpec &spec, uint64_t n);

// Fills row-major N x N A and B. Element i of each is a pure function of (seed, which
// matrix, i), so every backend gets bit-identical inputs: splitmix64 of a per-matrix key
// plus i, mapped to an odd multiple of 2^-24 in (-1, 1) (never zero, exact in float).
template <class T>
void fill_inputs(uint64_t seed, size_t n, T *a, T *b);

// Fills `count` elements with NaN so that entries a kernel never writes fail verification.
template <class T>
void poison(T *c, size_t count);

// Checks C = A*B: every entry when N <= 256, else a 64 x 64 grid of sampled rows and
// columns (4096 entries) that includes the first and last row and column.
// Error per entry |c - ref| / sum_k |a_ik b_kj|, tolerance 8 sqrt(N) u (u = 2^-24 or 2^-53),
// plus 2r + r^2 for inputs rounded by r before the products (input_rounding).
template <class T>
gpubench::Verification verify_product(size_t n, const T *a, const T *b, const T *c, double rounding = 0);

// The check's largest error as a metric (relative_error), so that every report shows each
// kernel's accuracy beside its time (3xTF32 against FFMA, cuBLAS's TF32 mode); none before
// a check. Every backend's problem keeps its last Verification for it.
std::vector<gpubench::Metric> error_metrics(const gpubench::Verification &checked);

// Inputs and output in host memory, for CPU kernels. Kernel<T> is constructed from
// (n, setup) and called as kernel.multiply(a, b, c) to compute all of C.
template <class T, class Kernel>
class HostProblem {
public:
    HostProblem(const gpubench::Setup &setup, size_t n)
        : n_(n), a_(n * n), b_(n * n), c_(n * n), kernel_(n, setup) {
        fill_inputs(setup.seed, n, a_.data(), b_.data());
        poison(c_.data(), c_.size());
    }
    void run() { kernel_.multiply(a_.data(), b_.data(), c_.data()); }
    gpubench::Verification verify() { return checked_ = verify_product(n_, a_.data(), b_.data(), c_.data()); }
    std::vector<gpubench::Metric> metrics() const { return error_metrics(checked_); }

private:
    size_t n_;
    std::vector<T> a_, b_, c_;
    Kernel kernel_;
    gpubench::Verification checked_;
};

// How the dtype parameter picks Problem<float> or Problem<double> (one_of_problems.hpp).
struct Rules {
    static gpubench::ProblemChoice<const gpubench::Setup &, size_t> choose(
        const gpubench::BackendSpec &spec, const gpubench::Setup &setup) {
        const size_t n = checked_size(spec, setup.size);
        const Dtype dtype = parse_dtype(setup.params);
        if (const std::string only = float32_only_setting(setup.params); dtype == Dtype::float64 && !only.empty())
            throw gpubench::NotSupported(only + " is float32's only: dtype=float64 has no such form");
        return {static_cast<size_t>(dtype), {setup, n}};
    }
    static constexpr auto make_work = &matmul::make_work;
};

// The class GPUBENCH_PLUGIN wraps: Problem<float> or Problem<double> as dtype says.
template <const gpubench::BackendSpec &Spec, template <class> class Problem>
using Plugin = gpubench::ProblemChosenByParams<Rules, Spec, Problem, float, double>;

}  // namespace matmul
