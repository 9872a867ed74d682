// The baseline: per sample, the forward product, the softmax residual and its share of the
// gradient, in plain loops on one thread; then the update. Its theta is the reference the
// other backends are checked against.
#include "logreg_common.hpp"

namespace {

const gpubench::BackendSpec kNaive{
    "logreg_naive", "naive", GPUBENCH_DEVICE_CPU,
    "softmax regression by full-batch gradient descent, plain per-sample loops on one CPU "
    "thread (n = 60000, the whole training set, takes about 20-40 s per run)",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

class NaiveTrainer {
public:
    static constexpr bool is_reference = true;  // train_reference's arithmetic

    NaiveTrainer(const logreg::Task &task, const gpubench::Setup &)
        : n_(task.samples()), settings_(task.settings()), grad_(logreg::kThetaSize) {}

    void train(const float *x, const uint8_t *labels, float *theta) {
        using namespace logreg;
        std::fill(theta, theta + kThetaSize, 0.0f);
        for (int step = 0; step < settings_.iterations; ++step) {
            std::fill(grad_.begin(), grad_.end(), 0.0f);
            for (size_t i = 0; i < n_; ++i) {
                float z[kClasses], residual[kClasses];
                forward_sample(x + i * kFeatures, theta, z);
                softmax_residual(z, labels[i], residual);
                accumulate_gradient(x + i * kFeatures, residual, 0, kFeatures, grad_.data());
            }
            descend(theta, grad_.data(), settings_.lr, n_);
        }
    }

private:
    size_t n_;
    logreg::Settings settings_;
    std::vector<float> grad_;
};

using NaivePlugin = logreg::HostPlugin<kNaive, NaiveTrainer>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, logreg::make_info(kNaive))
