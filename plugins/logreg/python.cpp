// The C++ half of logreg's Python backends: the same data, the same reference check and the
// same metrics as the C++ backends. The script sees ctx.inputs["x"] (n x 785 float32: pixel
// / 255, then the bias 1), ctx.inputs["labels"] (n uint8), ctx.outputs["theta"] (785 x 10
// float32, feature-major; NaN until written) and ctx.constants "iterations" and "lr".
#include "logreg_common.hpp"

#include <gpubench/python_workload.hpp>

#include <vector>

namespace {

class LogregData : public gpubench::python::Data {
public:
    LogregData(const gpubench::BackendSpec &backend, const gpubench::Setup &setup)
        : task_(backend, setup), x_(task_.samples() * logreg::kFeatures),
          labels_(task_.labels(), task_.labels() + task_.samples()),
          theta_(logreg::kThetaSize) {
        task_.fill_features(x_.data());
        logreg::poison(theta_.data(), theta_.size());
    }
    std::vector<gpubench::python::Array> arrays() override {
        using logreg::kClasses, logreg::kFeatures;
        const size_t n = task_.samples();
        return {{"x", "float32", {n, kFeatures}, x_.data(), x_.size() * sizeof(float), false},
                {"labels", "uint8", {n}, labels_.data(), labels_.size(), false},
                {"theta", "float32", {kFeatures, kClasses}, theta_.data(),
                 theta_.size() * sizeof(float), true}};
    }
    std::vector<std::pair<std::string, double>> constants() override {
        return {{"iterations", task_.settings().iterations}, {"lr", task_.settings().lr}};
    }
    gpubench::Verification verify() override { return task_.verify(x_.data(), theta_.data()); }
    std::vector<gpubench::Metric> metrics() override { return task_.metrics(); }

private:
    logreg::Task task_;
    std::vector<float> x_;
    std::vector<uint8_t> labels_;
    std::vector<float> theta_;
};

std::unique_ptr<gpubench::python::Data> create(const gpubench::BackendSpec &backend,
                                               const gpubench::Setup &setup) {
    return std::make_unique<LogregData>(backend, setup);
}

gpubench::Info info(const gpubench::BackendSpec &backend) { return logreg::make_info(backend); }

gpubench::Work work(const gpubench::BackendSpec &backend, uint64_t n,
                    const gpubench::Params &params) {
    return logreg::make_work(backend, n, params, logreg::array_library_scratch_bytes(n));
}

}  // namespace

extern const gpubench::python::Workload gpubench_python_workload{info, work, create};
