// The untimed arithmetic of verify(): the reference training and the evaluation of a theta.
// OpenMP (when built with it) on every core: verify() is not timed, and the reference at
// n = 60000 is 100 steps of ~0.2 GFLOP each.
#include "logreg_common.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace logreg {
namespace {

int team_size() {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

int team_rank() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

}  // namespace

void train_reference(const float *x, const uint8_t *labels, size_t n, const Settings &settings,
                     float *theta) {
    std::vector<float> residuals(n * kClasses), grad(kThetaSize);
    std::fill(theta, theta + kThetaSize, 0.0f);
    const std::ptrdiff_t samples = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel
    for (int step = 0; step < settings.iterations; ++step) {
#pragma omp for schedule(static)
        for (std::ptrdiff_t i = 0; i < samples; ++i) {
            float z[kClasses];
            forward_sample(x + i * kFeatures, theta, z);
            softmax_residual(z, labels[i], residuals.data() + i * kClasses);
        }
        // Each thread owns a contiguous range of features and sums over all samples in
        // order: the same order as logreg_naive's per-sample accumulation, and each thread
        // streams through its slice of every row of X.
        {
            const size_t threads = static_cast<size_t>(team_size());
            const size_t rank = static_cast<size_t>(team_rank());
            const size_t first = rank * kFeatures / threads;
            const size_t last = (rank + 1) * kFeatures / threads;
            std::fill(grad.begin() + first * kClasses, grad.begin() + last * kClasses, 0.0f);
            for (size_t i = 0; i < n; ++i)
                accumulate_gradient(x + i * kFeatures, residuals.data() + i * kClasses, first,
                                    last, grad.data());
        }
#pragma omp barrier
#pragma omp single
        descend(theta, grad.data(), settings.lr, n);  // the implicit barrier publishes theta
    }
}

double accuracy(const ImageSet &set, const float *theta) {
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(set.count);
    std::ptrdiff_t correct = 0;
#pragma omp parallel for schedule(static) reduction(+ : correct)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        float x[kFeatures], z[kClasses];
        for (size_t p = 0; p < kPixels; ++p)
            x[p] = static_cast<float>(set.pixels[i * kPixels + p]) / 255.0f;
        x[kPixels] = 1.0f;
        forward_sample(x, theta, z);
        // A NaN logit never compares greater, so a NaN theta predicts class 0: still wrong
        // for 90% of the images, and verify() rejects non-finite theta anyway.
        const size_t predicted = static_cast<size_t>(std::max_element(z, z + kClasses) - z);
        correct += predicted == set.labels[i];
    }
    return count ? static_cast<double>(correct) / static_cast<double>(count) : 0.0;
}

double cross_entropy(const float *x, const uint8_t *labels, size_t n, const float *theta) {
    const std::ptrdiff_t samples = static_cast<std::ptrdiff_t>(n);
    double total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (std::ptrdiff_t i = 0; i < samples; ++i) {
        float z[kClasses];
        forward_sample(x + i * kFeatures, theta, z);
        const double top = *std::max_element(z, z + kClasses);
        double sum = 0;
        for (size_t c = 0; c < kClasses; ++c) sum += std::exp(z[c] - top);
        total += std::log(sum) - (z[labels[i]] - top);  // -log softmax(z)[label]
    }
    return n ? total / static_cast<double>(n) : 0.0;
}

}  // namespace logreg
