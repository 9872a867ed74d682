// OpenMP training. Each thread owns a contiguous block of samples and its own gradient
// accumulator; per step it walks its samples in tiles of 8: the logits of the tile (4 rows
// at a time, so every theta row loaded feeds 4 samples), the softmax residuals, then the
// tile's gradient (every gradient row loaded takes 8 samples' updates). The per-thread
// gradients are then summed in thread order, in parallel over features, and applied.
// Classes are padded from 10 to 16 so that a row of theta or of a gradient is one AVX-512
// or two AVX2 vectors; the hot function is compiled for AVX-512, AVX2 and the baseline and
// picked at load time (no -march, the binary stays portable).
#include "logreg_common.hpp"

#include <omp.h>

namespace {

const gpubench::BackendSpec kOmp{
    "logreg_omp", "omp", GPUBENCH_DEVICE_CPU,
    "softmax regression by full-batch gradient descent, OpenMP over sample blocks with "
    "per-thread gradients, SIMD over 16 padded classes",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

using namespace logreg;

constexpr size_t kLanes = 16;  // classes padded to a whole number of vectors
constexpr size_t kPaddedTheta = kFeatures * kLanes;
constexpr size_t kTile = 8;          // samples per tile
constexpr size_t kForwardGroup = 4;  // samples per pass over theta

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define LOGREG_SIMD_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LOGREG_SIMD_CLONES
#endif

// z[g] = x[g] theta for G consecutive rows of x.
template <size_t G>
[[gnu::always_inline]] inline void forward_rows(const float *__restrict x,
                                                const float *__restrict theta,
                                                float (*__restrict z)[kLanes]) {
    float acc[G][kLanes] = {};
    for (size_t j = 0; j < kFeatures; ++j)
        for (size_t g = 0; g < G; ++g) {
            const float xj = x[g * kFeatures + j];
#pragma omp simd
            for (size_t c = 0; c < kLanes; ++c) acc[g][c] += xj * theta[j * kLanes + c];
        }
    for (size_t g = 0; g < G; ++g)
        for (size_t c = 0; c < kLanes; ++c) z[g][c] = acc[g][c];
}

// One tile of kTile samples (rows of x, stride kFeatures): grad += x^T (softmax(x theta) - y).
// Fixed trip counts let the compiler keep the accumulators in registers.
LOGREG_SIMD_CLONES
void train_tile(const float *__restrict x, const uint8_t *labels, const float *__restrict theta,
                float *__restrict grad) {
    alignas(64) float residual[kTile][kLanes];
    for (size_t s = 0; s < kTile; s += kForwardGroup)
        forward_rows<kForwardGroup>(x + s * kFeatures, theta, residual + s);
    for (size_t s = 0; s < kTile; ++s) {
        float z[kClasses];
        std::copy(residual[s], residual[s] + kClasses, z);
        softmax_residual(z, labels[s], residual[s]);
        std::fill(residual[s] + kClasses, residual[s] + kLanes, 0.0f);
    }
    for (size_t j = 0; j < kFeatures; ++j) {
        float acc[kLanes];
#pragma omp simd
        for (size_t c = 0; c < kLanes; ++c) acc[c] = grad[j * kLanes + c];
        for (size_t s = 0; s < kTile; ++s) {
            const float xj = x[s * kFeatures + j];
#pragma omp simd
            for (size_t c = 0; c < kLanes; ++c) acc[c] += xj * residual[s][c];
        }
#pragma omp simd
        for (size_t c = 0; c < kLanes; ++c) grad[j * kLanes + c] = acc[c];
    }
}

class OmpTrainer {
public:
    OmpTrainer(const Task &task, const gpubench::Setup &setup)
        : n_(task.samples()),
          settings_(task.settings()),
          threads_(setup.threads()),
          theta_(kPaddedTheta),
          grads_(static_cast<size_t>(threads_) * kPaddedTheta),
          tails_(static_cast<size_t>(threads_) * kTile * kFeatures) {}

    void train(const float *x, const uint8_t *labels, float *theta) {
        std::fill(theta_.begin(), theta_.end(), 0.0f);
        const float step_size = settings_.lr / static_cast<float>(n_);
#pragma omp parallel num_threads(threads_)
        {
            const size_t team = static_cast<size_t>(omp_get_num_threads());
            const size_t rank = static_cast<size_t>(omp_get_thread_num());
            float *grad = grads_.data() + rank * kPaddedTheta;
            const size_t first = rank * n_ / team, last = (rank + 1) * n_ / team;
            for (int step = 0; step < settings_.iterations; ++step) {
                std::fill(grad, grad + kPaddedTheta, 0.0f);
                size_t i = first;
                for (; i + kTile <= last; i += kTile)
                    train_tile(x + i * kFeatures, labels + i, theta_.data(), grad);
                if (i < last) {  // a short last tile, padded with zero rows: they add 0
                    float *tail = tails_.data() + rank * kTile * kFeatures;
                    uint8_t tail_labels[kTile] = {};
                    std::fill(std::copy(x + i * kFeatures, x + last * kFeatures, tail),
                              tail + kTile * kFeatures, 0.0f);
                    std::copy(labels + i, labels + last, tail_labels);
                    train_tile(tail, tail_labels, theta_.data(), grad);
                }
#pragma omp barrier
#pragma omp for schedule(static)
                for (size_t j = 0; j < kFeatures; ++j)
                    for (size_t c = 0; c < kLanes; ++c) {
                        float sum = 0;
                        for (size_t t = 0; t < team; ++t)
                            sum += grads_[t * kPaddedTheta + j * kLanes + c];
                        theta_[j * kLanes + c] -= step_size * sum;
                    }
                // omp for's implicit barrier: theta is whole before the next step reads it.
            }
        }
        for (size_t j = 0; j < kFeatures; ++j)
            std::copy_n(theta_.data() + j * kLanes, kClasses, theta + j * kClasses);
    }

private:
    size_t n_;
    Settings settings_;
    int threads_;
    std::vector<float> theta_;  // padded, kFeatures x kLanes
    std::vector<float> grads_;  // one padded gradient per thread
    std::vector<float> tails_;  // per thread: its short last tile, zero-padded to kTile rows
};

using OmpPlugin = HostPlugin<kOmp, OmpTrainer>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, make_info(kOmp))
