// OpenMP over every stage, the arithmetic of ann_naive (the same fits, ridge and Cholesky):
//   1. the neurons' fits in parallel;
//   2. H by blocks of kBlockRows training rows, never stored whole: the threads fill the
//      block's activations neuron by neuron (neuron-major, each neuron's rows contiguous),
//      then split H^T H's lower half by strips of 4 rows and add the block's products, 4 x 2
//      outputs at a time in registers, vectorised over the block's rows;
//   3. the Cholesky factorisation with the rows below each column in parallel;
//   4. the test predictions in parallel over rows.
// Every sum is in an order fixed by the block and strip shapes, not by the thread count.
#include "ann_common.hpp"
#include "ann_linalg.hpp"

#include <omp.h>

#include <algorithm>

namespace {

using ann::kInputs, ann::kNeurons;

const gpubench::BackendSpec kOmp{
    "ann_omp", "omp", GPUBENCH_DEVICE_CPU,
    "the notebook's random-feature network with OpenMP: the neurons' fits, blocks of 64 "
    "rows of H, H^T H in 4x2 register tiles, the Cholesky's rows and the predictions in "
    "parallel (max_size 4e6: 4e12 flops)",
    4'000'000, {10'000, 100'000, 1'000'000}};

// A block of H is kNeurons x kBlockRows doubles (512 KB, about a core's L2), read by every
// strip of H^T H; 32 and 128 rows measured the same within the noise.
constexpr size_t kBlockRows = 64;
constexpr size_t kStripRows = 4, kTileColumns = 2;  // 8 accumulators: fit in 16 registers
static_assert(kNeurons % kStripRows == 0 && kStripRows % kTileColumns == 0);

class OmpTrainer {
public:
    OmpTrainer(const ann::Task &task, const gpubench::Setup &setup)
        : threads_(setup.threads()),
          fit_size_(ann::fit_scratch(ann::rows_per_neuron(task.obs()))),
          fit_(size_t(threads_) * fit_size_), block_(kNeurons * kBlockRows),
          gram_(kNeurons * kNeurons) {}

    void train(const ann::TrainingData &data, const ann::Model &model) {
#pragma omp parallel num_threads(threads_)
        {
            double *scratch = &fit_[size_t(omp_get_thread_num()) * fit_size_];
#pragma omp for schedule(dynamic, 8)
            for (size_t k = 0; k < kNeurons; ++k)
                ann::fit_neuron(data, k, model.w + k * kInputs, scratch);
#pragma omp for schedule(static)
            for (size_t j = 0; j < kNeurons; ++j) {
                std::fill_n(&gram_[j * kNeurons], kNeurons, 0.0);
                model.v[j] = 0;  // H^T y, then V in place
            }
            for (size_t first = 0; first < data.obs; first += kBlockRows) {
                const size_t rows = std::min(kBlockRows, data.obs - first);
#pragma omp for schedule(static)
                for (size_t k = 0; k < kNeurons; ++k)
                    for (size_t r = 0; r < rows; ++r)
                        block_[k * kBlockRows + r] = std::tanh(ann::input_dot(
                            data.x + (first + r) * kInputs, model.w + k * kInputs));
#pragma omp for schedule(dynamic)
                for (size_t j0 = 0; j0 < kNeurons; j0 += kStripRows) {
                    add_strip(j0, rows);
                    for (size_t j = j0; j < j0 + kStripRows; ++j)
                        model.v[j] += ann::dot(&block_[j * kBlockRows], data.y + first, rows);
                }
            }
        }
        ann::solve_output_weights(gram_.data(), model.v, threads_);
#pragma omp parallel for schedule(static) num_threads(threads_)
        for (size_t i = 0; i < data.obs; ++i)
            model.predictions[i] = ann::predict_row(data.x_test + i * kInputs, model.w, model.v);
    }

private:
    // Rows j0..j0+3 of H^T H, columns 0..j0+3 (the diagonal tile's few entries above the
    // diagonal are computed too, and never read), += the block's products.
    void add_strip(size_t j0, size_t rows) {
        const double *__restrict h0 = &block_[j0 * kBlockRows];
        const double *__restrict h1 = h0 + kBlockRows;
        const double *__restrict h2 = h1 + kBlockRows;
        const double *__restrict h3 = h2 + kBlockRows;
        for (size_t k0 = 0; k0 < j0 + kStripRows; k0 += kTileColumns) {
            const double *__restrict g0 = &block_[k0 * kBlockRows];
            const double *__restrict g1 = g0 + kBlockRows;
            double s00 = 0, s01 = 0, s10 = 0, s11 = 0, s20 = 0, s21 = 0, s30 = 0, s31 = 0;
#pragma omp simd reduction(+ : s00, s01, s10, s11, s20, s21, s30, s31)
            for (size_t r = 0; r < rows; ++r) {
                s00 += h0[r] * g0[r];
                s01 += h0[r] * g1[r];
                s10 += h1[r] * g0[r];
                s11 += h1[r] * g1[r];
                s20 += h2[r] * g0[r];
                s21 += h2[r] * g1[r];
                s30 += h3[r] * g0[r];
                s31 += h3[r] * g1[r];
            }
            double *row = &gram_[j0 * kNeurons + k0];
            row[0] += s00;
            row[1] += s01;
            row[kNeurons] += s10;
            row[kNeurons + 1] += s11;
            row[2 * kNeurons] += s20;
            row[2 * kNeurons + 1] += s21;
            row[3 * kNeurons] += s30;
            row[3 * kNeurons + 1] += s31;
        }
    }

    int threads_;
    size_t fit_size_;
    std::vector<double> fit_, block_, gram_;
};

using OmpPlugin = ann::HostPlugin<kOmp, OmpTrainer>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, ann::make_info(kOmp))
