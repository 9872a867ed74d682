// The C++ half of solvebak's Python backends: the same inputs, the same float64 reference
// check and the same metrics as the C++ backends. X is column-major, so the script sees it
// transposed: ctx.inputs["xt"] is vars x obs (row j is column X_j; xt.T is the notebook's
// obs x vars X), with ["y"] (obs), ["x_x"] (|X_j|^2, vars) and ctx.outputs["a"] (vars; NaN
// until written), all float64 or float32 as dtype says, and ctx.constants "iterations" and
// "batch".
#include "solvebak_common.hpp"

#include <gpubench/python_workload.hpp>

#include <vector>

namespace {

template <class T>
class SolvebakData : public gpubench::python::Data {
public:
    SolvebakData(const solvebak::Config &config, const gpubench::Setup &setup)
        : c_(config), verifier_(config, setup.cpu_threads), x_(config.obs * config.vars),
          y_(config.obs), x_x_(config.vars), a_(config.vars) {
        solvebak::fill_inputs(config, setup.seed, setup.cpu_threads, x_.data(), y_.data(),
                              x_x_.data(), verifier_.a_true());
        solvebak::poison(a_.data(), a_.size());
    }
    std::vector<gpubench::python::Array> arrays() override {
        const char *dtype = sizeof(T) == 4 ? "float32" : "float64";
        return {{"xt", dtype, {c_.vars, c_.obs}, x_.data(), x_.size() * sizeof(T), false},
                {"y", dtype, {c_.obs}, y_.data(), y_.size() * sizeof(T), false},
                {"x_x", dtype, {c_.vars}, x_x_.data(), x_x_.size() * sizeof(T), false},
                {"a", dtype, {c_.vars}, a_.data(), a_.size() * sizeof(T), true}};
    }
    std::vector<std::pair<std::string, double>> constants() override {
        return {{"iterations", double(c_.iterations)}, {"batch", double(c_.batch)}};
    }
    gpubench::Verification verify() override {
        return verifier_.verify(x_.data(), y_.data(), x_x_.data(), a_.data());
    }
    std::vector<gpubench::Metric> metrics() override { return verifier_.metrics(); }

private:
    solvebak::Config c_;
    solvebak::Verifier<T> verifier_;
    std::vector<T> x_, y_, x_x_, a_;
};

std::unique_ptr<gpubench::python::Data> create(const gpubench::BackendSpec &backend,
                                               const gpubench::Setup &setup) {
    const solvebak::Config config = solvebak::checked_config(backend, setup.size, setup.params);
    if (config.dtype == solvebak::Dtype::float64)
        return std::make_unique<SolvebakData<double>>(config, setup);
    return std::make_unique<SolvebakData<float>>(config, setup);
}

gpubench::Info info(const gpubench::BackendSpec &backend) { return solvebak::make_info(backend); }

gpubench::Work work(const gpubench::BackendSpec &backend, uint64_t obs,
                    const gpubench::Params &params) {
    return solvebak::make_work(backend, obs, params);
}

}  // namespace

extern const gpubench::python::Workload gpubench_python_workload{info, work, create};
