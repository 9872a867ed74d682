// The C++ half of ann's Python backends: the same inputs and subsets, the same checks and
// metrics as the C++ backends. The script sees ctx.inputs["x"] and ["x_test"] (obs x 10),
// ["y"] (obs), ["subsets"] (1000 x rows per neuron, int64 row indices of x, ascending: row k
// is neuron k's subset), ctx.outputs["w"] (1000 x 10), ["v"] (1000) and ["predictions"]
// (obs), all float64 and NaN until written, and ctx.constants "ridge" (ann::kRidge).
#include "ann_common.hpp"

#include <gpubench/python_workload.hpp>

namespace {

class AnnData : public gpubench::python::Data {
public:
    AnnData(const gpubench::BackendSpec &backend, const gpubench::Setup &setup)
        : task_(backend, setup), outputs_(task_.obs()) {}

    std::vector<gpubench::python::Array> arrays() override {
        const size_t obs = task_.obs(), rows = task_.subsets().size() / ann::kNeurons;
        // Inputs are read-only on the Python side; the Array type is shared with outputs.
        const auto in = [](const char *name, const char *dtype, std::vector<size_t> shape,
                           const auto &values) {
            void *data = const_cast<void *>(static_cast<const void *>(values.data()));
            return gpubench::python::Array{name, dtype, std::move(shape), data,
                                           values.size() * sizeof(values[0]), false};
        };
        const auto out = [](const char *name, std::vector<size_t> shape,
                            std::vector<double> &values) {
            return gpubench::python::Array{name, "float64", std::move(shape), values.data(),
                                           values.size() * sizeof(double), true};
        };
        return {in("x", "float64", {obs, ann::kInputs}, task_.x()),
                in("y", "float64", {obs}, task_.y()),
                in("x_test", "float64", {obs, ann::kInputs}, task_.x_test()),
                in("subsets", "int64", {ann::kNeurons, rows}, task_.subsets()),
                out("w", {ann::kNeurons, ann::kInputs}, outputs_.w),
                out("v", {ann::kNeurons}, outputs_.v),
                out("predictions", {obs}, outputs_.predictions)};
    }
    std::vector<std::pair<std::string, double>> constants() override {
        return {{"ridge", ann::kRidge}};
    }
    gpubench::Verification verify() override {
        return task_.verify(outputs_.w.data(), outputs_.v.data(), outputs_.predictions.data());
    }
    std::vector<gpubench::Metric> metrics() override { return task_.metrics(); }

private:
    ann::Task task_;
    ann::HostModel outputs_;
};

std::unique_ptr<gpubench::python::Data> create(const gpubench::BackendSpec &backend,
                                               const gpubench::Setup &setup) {
    return std::make_unique<AnnData>(backend, setup);
}

gpubench::Info info(const gpubench::BackendSpec &backend) { return ann::make_info(backend); }

// NumPy and CuPy hold H (obs x 1000) whole, on the host or the device.
gpubench::Work work(const gpubench::BackendSpec &backend, uint64_t obs, const gpubench::Params &) {
    return ann::make_work(backend, obs, ann::hidden_layer_bytes(obs));
}

}  // namespace

extern const gpubench::python::Workload gpubench_python_workload{info, work, create};
