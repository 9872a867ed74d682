#include "ann_common.hpp"

#include "device_launches.hpp"
#include "random_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace ann {
namespace inputs = gpubench::inputs;
namespace {

// The independent streams of one seed.
enum Stream : uint64_t { kTrainingX = 0, kTestX = 1, kSubsets = 2 };

// Uniform in [0, bound) from 64 random bits (Lemire's multiply; the bias, bound / 2^64, is
// far below anything measurable here).
uint64_t below(uint64_t bound, uint64_t random_bits) {
    return uint64_t((unsigned __int128)random_bits * bound >> 64);
}

// x uniform in [-0.5, 0.5) as the notebook's rand() - 1/2 (24 random bits, exact), and
// y = sin(sum of the row) / 2. Element k of x is a pure function of (seed, stream, k).
void fill_set(uint64_t seed, Stream stream, size_t obs, int threads, double *x, double *y) {
    const uint64_t key = inputs::stream_key(seed, stream);
    const int64_t rows = int64_t(obs);
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
    for (int64_t i = 0; i < rows; ++i) {
        double sum = 0;
        for (size_t c = 0; c < kInputs; ++c) {
            const size_t k = size_t(i) * kInputs + c;
            x[k] = inputs::unit(inputs::bits(key, k)) - 0.5;
            sum += x[k];
        }
        y[i] = std::sin(sum) / 2;
    }
}

// Neuron k's rows: `rows` distinct indices of [0, obs) drawn by Floyd's algorithm from the
// random numbers k * rows ... (k + 1) * rows - 1 of the stream, then sorted (the notebook's
// permutation(obs)[:rows] as a set; sorted, the gathers read x in order).
void draw_subsets(uint64_t seed, size_t obs, size_t rows, int threads, int64_t *subsets) {
    const uint64_t key = inputs::stream_key(seed, kSubsets);
#pragma omp parallel num_threads(std::max(1, threads))
    {
        std::unordered_set<int64_t> chosen;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < int64_t(kNeurons); ++k) {
            chosen.clear();
            for (size_t j = obs - rows, draw = size_t(k) * rows; j < obs; ++j, ++draw) {
                const int64_t t = int64_t(below(j + 1, inputs::bits(key, draw)));
                if (!chosen.insert(t).second) chosen.insert(int64_t(j));
            }
            int64_t *mine = subsets + size_t(k) * rows;
            std::copy(chosen.begin(), chosen.end(), mine);
            std::sort(mine, mine + rows);
        }
    }
}

}  // namespace

size_t rows_per_neuron(size_t obs) { return std::max(obs / kNeurons, kInputs); }

gpubench::Info make_info(const gpubench::BackendSpec &s) {
    return gpubench::Info{s.name,
                          "ann",
                          s.backend,
                          s.device_kind,
                          s.description,
                          "obs: training rows (10 inputs, y = sin(sum x)/2), as many test "
                          "rows; 1000 hidden neurons, float64",
                          "1.0",
                          "",
                          kMinObs,
                          s.max_size,
                          s.default_sizes,
                          "training rows",
                          GPUBENCH_HEADLINE_FLOPS,
                          ""};
}

double hidden_layer_bytes(uint64_t obs) { return 8.0 * double(obs) * double(kNeurons); }

gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t obs, double scratch_bytes) {
    const double n = double(obs), m = double(rows_per_neuron(obs)), d = double(kInputs),
                 neurons = double(kNeurons);
    // Householder QR of m x d, Q^T b, back-substitution, arctanh of the m targets.
    const double fits = neurons * (2 * m * d * d - 2 * d * d * d / 3 + 4 * m * d + d * d + m);
    const double layer = 2 * n * d * neurons + n * neurons;  // X W^T, tanh
    const double normal_equations = n * neurons * (neurons + 1) + 2 * n * neurons;
    const double solve = neurons * neurons * neurons / 3 + 2 * neurons * neurons + neurons;
    const double predictions = layer + 2 * n * neurons;

    gpubench::Work w;
    w.flops = fits + layer + normal_equations + solve + predictions;
    w.math = GPUBENCH_MATH_FP64;
    // x twice (the fits' gathers, H), the test inputs, y, the subsets (int64), H^T H written
    // once; W, V and the predictions written. H itself is not counted: the C++ CPU backends
    // never store it, the array libraries write and read it once (2 * 8 * n * 1000 more).
    const double model = 8 * (neurons * d + neurons + n);
    w.bytes = 8 * (2 * n * d + n + n * d + neurons * m + neurons * neurons) + model;
    w.items = n;
    // Per neuron's fit: none (cuda: batched kernels), nine cuBLAS and cuSOLVER calls, CuPy's
    // gathers and lstsq (an SVD with a host sync and some thirty array operations, estimated).
    w.launches = gpubench::device_launches(spec, neurons, {{"cuda", 0, 150}, {"cublas", 9, 17}, {"cupy", 50, 20}});
    // Training and test sets, subsets, outputs, the reference W, H^T H and its factor.
    const double instance = 8 * (2 * n * d + 2 * n + neurons * m + neurons * d) + model +
                            8 * 2 * neurons * neurons;
    const bool on_device = spec.device_kind == GPUBENCH_DEVICE_CUDA;
    w.host_bytes = instance + (on_device ? 0 : scratch_bytes);
    w.device_bytes = on_device ? instance + scratch_bytes : 0;
    return w;
}

HostModel::HostModel(size_t obs)
    : w(kWeights, std::numeric_limits<double>::quiet_NaN()),
      v(kNeurons, std::numeric_limits<double>::quiet_NaN()),
      predictions(obs, std::numeric_limits<double>::quiet_NaN()) {}

Task::Task(const gpubench::BackendSpec &backend, const gpubench::Setup &setup)
    : obs_(gpubench::checked_size(make_info(backend), setup.size)),
      rows_per_neuron_(rows_per_neuron(obs_)),
      threads_(setup.threads()),
      x_(obs_ * kInputs), y_(obs_), x_test_(obs_ * kInputs), y_test_(obs_),
      subsets_(kNeurons * rows_per_neuron_) {
    fill_set(setup.seed, kTrainingX, obs_, threads_, x_.data(), y_.data());
    fill_set(setup.seed, kTestX, obs_, threads_, x_test_.data(), y_test_.data());
    draw_subsets(setup.seed, obs_, rows_per_neuron_, threads_, subsets_.data());
}

TrainingData Task::data() const {
    return {obs_, rows_per_neuron_, x_.data(), y_.data(), x_test_.data(), subsets_.data()};
}

}  // namespace ann
