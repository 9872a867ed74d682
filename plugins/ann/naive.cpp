// The baseline, plain loops on one thread: each neuron's Householder fit, then per training
// row its hidden activations h and their outer product into H^T H (lower half) and h y into
// H^T y, so that H is never stored; the Cholesky solve; then per test row its prediction.
#include "ann_common.hpp"
#include "ann_linalg.hpp"

#include <algorithm>

namespace {

using ann::kInputs, ann::kNeurons;

const gpubench::BackendSpec kNaive{
    "ann_naive", "naive", GPUBENCH_DEVICE_CPU,
    "the notebook's random-feature network in plain loops on one CPU thread: Householder "
    "QR per neuron, H^T H by rank-1 updates row by row (H never stored), Cholesky "
    "(max_size 1e5: 1e11 flops, 20-60 s a run)",
    100'000, {10'000, 100'000}};

class NaiveTrainer {
public:
    NaiveTrainer(const ann::Task &task, const gpubench::Setup &)
        : fit_(ann::fit_scratch(ann::rows_per_neuron(task.obs()))), h_(kNeurons),
          gram_(kNeurons * kNeurons) {}

    void train(const ann::TrainingData &data, const ann::Model &model) {
        for (size_t k = 0; k < kNeurons; ++k)
            ann::fit_neuron(data, k, model.w + k * kInputs, fit_.data());

        std::fill(gram_.begin(), gram_.end(), 0.0);
        std::fill(model.v, model.v + kNeurons, 0.0);  // H^T y, then V in place
        for (size_t i = 0; i < data.obs; ++i) {
            for (size_t k = 0; k < kNeurons; ++k)
                h_[k] = std::tanh(ann::input_dot(data.x + i * kInputs, model.w + k * kInputs));
            for (size_t j = 0; j < kNeurons; ++j) {
                double *row = &gram_[j * kNeurons];
                for (size_t k = 0; k <= j; ++k) row[k] += h_[j] * h_[k];
                model.v[j] += h_[j] * data.y[i];
            }
        }
        ann::solve_output_weights(gram_.data(), model.v, 1);

        for (size_t i = 0; i < data.obs; ++i)
            model.predictions[i] = ann::predict_row(data.x_test + i * kInputs, model.w, model.v);
    }

private:
    std::vector<double> fit_, h_, gram_;
};

using NaivePlugin = ann::HostPlugin<kNaive, NaiveTrainer>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, ann::make_info(kNaive))
