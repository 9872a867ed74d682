// What every ann backend shares: the descriptor data, the work model, the deterministic
// inputs (training and test sets, each neuron's rows) and the checks of a trained network.
//
// ann is the CuPy notebook's random-feature network: 10 inputs x uniform in [-0.5, 0.5),
// y = sin(sum x) / 2. Each of 1000 hidden neurons k is fitted alone, by least squares on its
// own random subset of rows, against arctanh(y): X_sub w_k ~ arctanh(y_sub) (no bias, as in
// the notebook). Then H = tanh(X W^T) (obs x 1000), the output weights V solve the normal
// equations (H^T H + ridge I) V = H^T y, and the test set's predictions are tanh(Xt W^T) V.
// One run() is that whole training plus the test predictions, in float64.
//
// The subsets are drawn here, once, and handed to every backend, so that all of them compute
// the same network. A backend reads a TrainingData and writes a Model (host pointers for the
// CPU backends, device pointers for the GPU ones).
#pragma once

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ann {

constexpr size_t kInputs = 10;     // variables of x, weights per neuron
constexpr size_t kNeurons = 1000;  // hidden neurons, output weights
constexpr size_t kWeights = kNeurons * kInputs;

// The smallest size: a neuron's fit needs at least kInputs rows.
constexpr uint64_t kMinObs = kInputs;

// The ridge added to the diagonal of H^T H, relative to its mean diagonal element:
// lambda = kRidge * trace(H^T H) / kNeurons. Always added, by every backend: H^T H is
// numerically singular (its columns are 1000 tanh of nearly the same linear function), with
// a condition number of 6e15 at obs = 1e4 and a smallest eigenvalue below 0 from 1e5, so
// whether a plain Cholesky succeeded would depend on each backend's rounding.
constexpr double kRidge = 1e-8;

// Rows each neuron is fitted on: obs / kNeurons as in the notebook (10 at 1e4, 1000 at 1e6),
// and at least kInputs, so that every fit is determined (below 1e4 rows the subsets overlap).
size_t rows_per_neuron(size_t obs);

// Descriptor data for one backend: its own row plus what every ann backend shares.
gpubench::Info make_info(const gpubench::BackendSpec &spec);

// Flops of the fits, the hidden layer, H^T H (symmetric: one half), H^T y, the Cholesky
// solve and the test predictions, tanh and arctanh counted as one flop each; bytes: x, y,
// the subsets and the test inputs read, W, V and the predictions written; items: training
// rows. scratch_bytes: what the backend holds beside them (the array libraries keep H whole),
// on the host or, for CUDA backends, on the device.
gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t obs, double scratch_bytes);

// H (obs x 1000 float64), as the array-library backends (NumPy, CuPy) hold it.
double hidden_layer_bytes(uint64_t obs);

// What a training reads. x and x_test are row-major obs x kInputs; subsets is kNeurons rows
// of rows_per_neuron ascending row indices of x, the rows neuron k is fitted on.
struct TrainingData {
    size_t obs, rows_per_neuron;
    const double *x, *y, *x_test;
    const int64_t *subsets;
};

// What a training writes: w (kNeurons x kInputs, row k = neuron k's weights), v (kNeurons
// output weights), predictions (obs, one per test row).
struct Model {
    double *w, *v, *predictions;
};

// The outputs of one instance in host memory, NaN until a training writes them.
struct HostModel {
    explicit HostModel(size_t obs);
    Model model() { return {w.data(), v.data(), predictions.data()}; }
    std::vector<double> w, v, predictions;
};

// The inputs of one instance, made from (seed, obs), and the untimed checks of its outputs.
class Task {
public:
    // obs checked against the backend's range; the inputs made on setup.cpu_threads threads.
    Task(const gpubench::BackendSpec &backend, const gpubench::Setup &setup);

    size_t obs() const { return obs_; }
    TrainingData data() const;
    const std::vector<double> &x() const { return x_; }
    const std::vector<double> &y() const { return y_; }
    const std::vector<double> &x_test() const { return x_test_; }
    const std::vector<int64_t> &subsets() const { return subsets_; }

    // Every output finite; W within tolerance of the reference fits of the same subsets;
    // sampled predictions equal to tanh(xt W^T) V recomputed from the backend's own W and V;
    // the correlation of the predictions with the test targets above the floor for the size.
    gpubench::Verification verify(const double *w, const double *v, const double *predictions);
    // correlation, test_rmse, max_abs_v (after verify).
    std::vector<gpubench::Metric> metrics() const;

private:
    size_t obs_, rows_per_neuron_;
    int threads_;
    std::vector<double> x_, y_, x_test_, y_test_;
    std::vector<int64_t> subsets_;
    std::vector<double> w_reference_;  // made on the first verify
    double correlation_ = 0, test_rmse_ = 0, max_abs_v_ = 0;
};

// The class GPUBENCH_PLUGIN wraps for CPU backends. Trainer is constructed from (task, setup)
// and called as trainer.train(data, model) to run one whole training and the test predictions
// (host pointers).
template <const gpubench::BackendSpec &Spec, class Trainer>
class HostPlugin {
public:
    explicit HostPlugin(const gpubench::Setup &setup)
        : task_(Spec, setup), outputs_(task_.obs()), trainer_(task_, setup) {}
    // The C++ CPU backends stream H by blocks of rows: they hold no more than the inputs.
    static gpubench::Work work(uint64_t obs, const gpubench::Params &) {
        return make_work(Spec, obs, 0);
    }
    void run() { trainer_.train(task_.data(), outputs_.model()); }
    gpubench::Verification verify() {
        return task_.verify(outputs_.w.data(), outputs_.v.data(), outputs_.predictions.data());
    }
    std::vector<gpubench::Metric> metrics() const { return task_.metrics(); }

private:
    Task task_;
    HostModel outputs_;
    Trainer trainer_;
};

}  // namespace ann
