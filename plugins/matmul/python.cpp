// The C++ half of matmul's Python backends: the same inputs and the same check as the C++
// backends, over host arrays the script sees as ctx.inputs["a"], ["b"] and ctx.outputs["c"]
// (N x N, row-major, float32 or float64 as dtype says).
#include "matmul_common.hpp"

#include <gpubench/python_workload.hpp>

#include <vector>

namespace {

template <class T>
class MatmulData : public gpubench::python::Data {
public:
    explicit MatmulData(size_t n, uint64_t seed) : n_(n), a_(n * n), b_(n * n), c_(n * n) {
        matmul::fill_inputs(seed, n, a_.data(), b_.data());
        matmul::poison(c_.data(), c_.size());
    }
    std::vector<gpubench::python::Array> arrays() override {
        const char *dtype = sizeof(T) == 4 ? "float32" : "float64";
        const size_t bytes = n_ * n_ * sizeof(T);
        return {{"a", dtype, {n_, n_}, a_.data(), bytes, false},
                {"b", dtype, {n_, n_}, b_.data(), bytes, false},
                {"c", dtype, {n_, n_}, c_.data(), bytes, true}};
    }
    gpubench::Verification verify() override {
        return checked_ = matmul::verify_product(n_, a_.data(), b_.data(), c_.data());
    }
    std::vector<gpubench::Metric> metrics() override { return matmul::error_metrics(checked_); }

private:
    size_t n_;
    std::vector<T> a_, b_, c_;
    gpubench::Verification checked_;
};

std::unique_ptr<gpubench::python::Data> create(const gpubench::BackendSpec &backend,
                                               const gpubench::Setup &setup) {
    const size_t n = matmul::checked_size(backend, setup.size);
    if (matmul::parse_dtype(setup.params) == matmul::Dtype::float64)
        return std::make_unique<MatmulData<double>>(n, setup.seed);
    return std::make_unique<MatmulData<float>>(n, setup.seed);
}

gpubench::Info info(const gpubench::BackendSpec &backend) { return matmul::make_info(backend); }

gpubench::Work work(const gpubench::BackendSpec &backend, uint64_t n, const gpubench::Params &params) {
    return matmul::make_work(backend, n, params);
}

}  // namespace

extern const gpubench::python::Workload gpubench_python_workload{info, work, create};
