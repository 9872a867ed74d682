// The baseline: per sample, the forward product, the softmax residual and its share of the
// gradient, in plain loops on one thread; then the update. Its theta is the reference the
// other backends are checked against.
#include "logreg_common.hpp"

namespace {

class NaiveTrainer {
public:
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

using NaivePlugin = logreg::HostPlugin<logreg::Backend::naive, NaiveTrainer>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, logreg::make_info(logreg::Backend::naive))
