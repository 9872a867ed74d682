// What every logreg backend shares: the descriptor data, the work model, the parameters,
// the data, the per-sample arithmetic of the naive algorithm (so that the reference and
// logreg_naive are bit-identical), and the checks of a trained theta.
//
// The model is multinomial (softmax) logistic regression, not the study's one-vs-rest
// sigmoid: one softmax over 10 classes is the standard multiclass model and its gradient
// has the same shape, G = X^T (P - Y) / n. Features are the 784 pixels / 255 and a bias 1
// (the last of 785 features). theta is 785 x 10, feature-major (theta[j * 10 + c]), zero at
// the start of each training; each of `iterations` full-batch steps does
// Z = X theta, P = softmax(Z) by rows, G = X^T (P - Y) / n, theta -= lr G.
#pragma once

#include "logreg_data.hpp"

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace logreg {

constexpr size_t kFeatures = kPixels + 1;            // pixels and the bias feature
constexpr size_t kThetaSize = kFeatures * kClasses;  // 7850

// The largest size: the whole training set.
constexpr uint64_t kMaxSamples = kTrainImages;

struct Settings {
    int iterations = 100;
    float lr = 0.1f;
};

// iterations=N and lr=X; InvalidArgument for values out of range.
Settings parse_settings(const gpubench::Params &params);

// Descriptor data for one backend: its own row (name, device, sizes, description) plus
// what every logreg backend shares.
gpubench::Info make_info(const gpubench::BackendSpec &spec);

// Per run: 4 n 785 10 flops of the two products plus the softmax and update, X read twice,
// n * iterations sample-steps; memory of an instance on the host and (CUDA) the device.
// device_scratch_bytes: what a CUDA backend keeps on the device beside X, the labels and
// theta (ignored for CPU backends).
gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t n,
                         const gpubench::Params &params, double device_scratch_bytes);

// The device scratch of an array-library backend (CuPy...): probabilities and one-hot
// labels, n x 10 floats each, and a gradient.
double array_library_scratch_bytes(uint64_t n);

// Sample chunks of logreg_cuda's partial gradients: a fixed function of n (never of the
// device), so that its summation order, hence its result, is the same on every GPU.
// At most two chunks per SM of an H100 or H200 (132 SMs), so that they run as one wave of
// logreg_cuda's two blocks per SM, and at least 32 samples a chunk, so that loading theta
// and writing a partial stay small beside the chunk's work. logreg_cuda cuts whole 8-sample
// tiles: at 60000 samples 259 chunks of 232 samples (chunks of whole 32-sample tiles made 235
// chunks of 256: 29 slots idle and every block 10% longer).
constexpr size_t kChunkSamples = 32;  // samples per chunk at least
constexpr size_t kMaxChunks = 264;
constexpr size_t gradient_chunks(size_t n) {
    return std::min((n + kChunkSamples - 1) / kChunkSamples, kMaxChunks);
}

// --- The naive algorithm's arithmetic, one sample at a time (float, in this order). ---

// z[c] = sum over j in order of x[j] * theta[j][c].
inline void forward_sample(const float *x, const float *theta, float *z) {
    for (size_t c = 0; c < kClasses; ++c) z[c] = 0;
    for (size_t j = 0; j < kFeatures; ++j)
        for (size_t c = 0; c < kClasses; ++c) z[c] += x[j] * theta[j * kClasses + c];
}

// d = softmax(z) - onehot(label), the softmax shifted by max(z) so exp never overflows.
inline void softmax_residual(const float *z, unsigned label, float *d) {
    const float top = *std::max_element(z, z + kClasses);
    float sum = 0;
    for (size_t c = 0; c < kClasses; ++c) {
        d[c] = std::exp(z[c] - top);
        sum += d[c];
    }
    for (size_t c = 0; c < kClasses; ++c) d[c] = d[c] / sum - (c == label ? 1.0f : 0.0f);
}

// grad[j][c] += x[j] * d[c] for the features j in [first, last).
inline void accumulate_gradient(const float *x, const float *d, size_t first, size_t last,
                                float *grad) {
    for (size_t j = first; j < last; ++j)
        for (size_t c = 0; c < kClasses; ++c) grad[j * kClasses + c] += x[j] * d[c];
}

// theta -= lr * grad / n.
inline void descend(float *theta, const float *grad, float lr, size_t n) {
    const float step = lr / static_cast<float>(n);
    for (size_t e = 0; e < kThetaSize; ++e) theta[e] -= step * grad[e];
}

// The reference training: the naive arithmetic above, forward parallel over samples and
// gradient parallel over features (each sum still in sample order), so its theta is
// bit-identical to logreg_naive's on any number of threads.
void train_reference(const float *x, const uint8_t *labels, size_t n, const Settings &settings,
                     float *theta);

// Fraction of `set` whose largest logit is at its label.
double accuracy(const ImageSet &set, const float *theta);

// Mean cross-entropy -log p(label) of n samples of features x, in double.
double cross_entropy(const float *x, const uint8_t *labels, size_t n, const float *theta);

// The parameters, the data and the n training samples of one instance, and the untimed
// checks of the theta it trains.
class Task {
public:
    // n checked against the backend's range. theta_is_reference: the backend trains with
    // the reference arithmetic itself (logreg_naive), so verify() compares nothing.
    Task(const gpubench::BackendSpec &backend, const gpubench::Setup &setup,
         bool theta_is_reference = false);

    size_t samples() const { return n_; }
    const Settings &settings() const { return settings_; }
    const uint8_t *labels() const { return data_.train.labels.data(); }
    // x[i][j], n x 785 row-major: pixel / 255, then the bias 1.
    void fill_features(float *x) const;

    // (1) test accuracy of theta above the floor for this size and data; (2) max |theta -
    // theta_ref| / max |theta_ref| within tolerance, theta_ref from train_reference on the
    // same features x (logreg_naive: skipped, its theta is the reference), read from
    // reference_cache.hpp's folder where another backend computed it.
    gpubench::Verification verify(const float *x, const float *theta);
    // test_accuracy, train_loss, train_samples, iterations, data source (after verify).
    std::vector<gpubench::Metric> metrics() const;

private:
    std::string reference_key(const float *x) const;  // reference_cache.hpp

    bool is_reference_ = false;  // logreg_naive: its theta is the reference
    size_t n_;
    Settings settings_;
    Dataset data_;
    double test_accuracy_ = NAN, train_loss_ = NAN;
};

// Fills `count` floats with NaN, so that a theta a backend never writes fails verify().
void poison(float *values, size_t count);

// Whether Trainer declares static constexpr bool is_reference = true (logreg_naive).
template <class Trainer>
constexpr bool trains_reference = requires { requires Trainer::is_reference; };

// The class GPUBENCH_PLUGIN wraps for CPU backends. Trainer is constructed from (task,
// setup) and called as trainer.train(x, labels, theta) to run one whole training.
template <const gpubench::BackendSpec &Spec, class Trainer>
class HostPlugin {
public:
    explicit HostPlugin(const gpubench::Setup &setup)
        : task_(Spec, setup, trains_reference<Trainer>), x_(task_.samples() * kFeatures), theta_(kThetaSize),
          trainer_(task_, setup) {
        task_.fill_features(x_.data());
        poison(theta_.data(), theta_.size());
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &params) {
        return make_work(Spec, n, params, 0);
    }
    void run() { trainer_.train(x_.data(), task_.labels(), theta_.data()); }
    gpubench::Verification verify() { return task_.verify(x_.data(), theta_.data()); }
    std::vector<gpubench::Metric> metrics() const { return task_.metrics(); }

private:
    Task task_;
    std::vector<float> x_, theta_;
    Trainer trainer_;
};

}  // namespace logreg
