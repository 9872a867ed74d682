// The checks of a trained network: finite outputs, the hidden weights against reference fits,
// the predictions against the backend's own W and V, and the test correlation's floor.
#include "ann_common.hpp"
#include "ann_linalg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace ann {
namespace {

// Correlation floors by size, measured with ann_naive over seeds 1..20: the lowest is
// 0.999988 at 1000 rows, 0.999998 at 3000, 0.9999984 at 1e4 and 1e5 (ann_omp at 1e6:
// 0.9999977); 0.970 at 100 rows and 0.9956 at 300 (fewer rows than neurons, the subsets
// overlapping). Below 100 rows the fit interpolates a few points in 10 dimensions (lowest
// 0.86 at 33 rows, -0.39 at 10): no floor there (-1), only the other checks.
struct Floor {
    size_t from_obs;
    double correlation;
};
constexpr Floor kFloors[] = {{0, -1.0}, {100, 0.9}, {1000, 0.999}};

double correlation_floor(size_t obs) {
    double floor = -1;
    for (const Floor &f : kFloors)
        if (obs >= f.from_obs) floor = f.correlation;
    return floor;
}

// max |w - w_ref| / max(1, max |w_ref|) per neuron. The C++ backends share the reference's
// fit (0); NumPy's and CuPy's lstsq (SVD) differ by about cond * 1e-16 (3e-12 measured at
// 1e4 rows), and a 10-row subset's condition number exceeds 1e9, where that could reach
// 1e-6, for about one draw in 10^8 (P(cond > t) ~ 16 / t for these 10 x 10 blocks).
constexpr double kWeightTolerance = 1e-6;

// |p - p_ref| / sum_k |tanh(xt . w_k) v_k| at sampled test rows, p_ref recomputed from the
// backend's own W and V: only summation order and tanh's last bits differ.
constexpr double kPredictionTolerance = 1e-9;
constexpr size_t kSampledRows = 1000;

bool all_finite(const double *values, size_t count) {
    return std::all_of(values, values + count, [](double e) { return std::isfinite(e); });
}

std::string format(const char *pattern, double value) {
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

// The reference fits of every neuron on its subset, on `threads` threads.
std::vector<double> reference_weights(const TrainingData &inputs, size_t rows_per_neuron,
                                      int threads) {
    std::vector<double> reference(kWeights);
#pragma omp parallel num_threads(threads)
    {
        std::vector<double> scratch(fit_scratch(rows_per_neuron));
#pragma omp for schedule(static)
        for (int64_t k = 0; k < int64_t(kNeurons); ++k)
            fit_neuron(inputs, size_t(k), &reference[size_t(k) * kInputs], scratch.data());
    }
    return reference;
}

// max over the neurons of max |w - w_ref| / max(1, max |w_ref|).
double max_weight_error(const double *reference, const double *w) {
    double weight_error = 0;
    for (size_t k = 0; k < kNeurons; ++k) {
        const double *ref = &reference[k * kInputs];
        double scale = 1, error = 0;
        for (size_t c = 0; c < kInputs; ++c) {
            scale = std::max(scale, std::fabs(ref[c]));
            error = std::max(error, std::fabs(w[k * kInputs + c] - ref[c]));
        }
        weight_error = std::max(weight_error, error / scale);
    }
    return weight_error;
}

// The largest relative error of `samples` predictions, at rows spread over the obs test rows,
// against tanh(xt W^T) V recomputed from the backend's own W and V.
double max_prediction_error(const double *x_test, size_t obs, size_t samples, const double *w,
                            const double *v, const double *predictions) {
    double prediction_error = 0;
    for (size_t s = 0; s < samples; ++s) {
        const size_t i = s * obs / samples;
        const double *x_row = &x_test[i * kInputs];
        double magnitude = 0;
        for (size_t k = 0; k < kNeurons; ++k)
            magnitude += std::fabs(std::tanh(input_dot(x_row, w + k * kInputs)) * v[k]);
        const double error = std::fabs(predictions[i] - predict_row(x_row, w, v));
        prediction_error = std::max(prediction_error, error / std::max(magnitude, 1e-300));
    }
    return prediction_error;
}

// Pearson correlation and RMSE of the predictions against the test targets, two passes in
// double.
void test_fit(const double *predictions, const double *y_test, size_t obs, double &correlation,
              double &rmse) {
    double mean_p = 0, mean_y = 0;
    for (size_t i = 0; i < obs; ++i) {
        mean_p += predictions[i];
        mean_y += y_test[i];
    }
    mean_p /= double(obs);
    mean_y /= double(obs);
    double cov = 0, var_p = 0, var_y = 0, squared_error = 0;
    for (size_t i = 0; i < obs; ++i) {
        const double dp = predictions[i] - mean_p, dy = y_test[i] - mean_y;
        cov += dp * dy;
        var_p += dp * dp;
        var_y += dy * dy;
        squared_error += (predictions[i] - y_test[i]) * (predictions[i] - y_test[i]);
    }
    // Constant predictions (or targets) correlate with nothing: 0, not NaN.
    correlation = var_p > 0 && var_y > 0 ? cov / std::sqrt(var_p * var_y) : 0;
    rmse = std::sqrt(squared_error / double(obs));
}

}  // namespace

gpubench::Verification Task::verify(const double *w, const double *v, const double *predictions) {
    gpubench::Verification result;
    result.checked = kWeights + kNeurons + obs_;
    const double floor = correlation_floor(obs_);
    result.tolerance = 1 - floor;
    if (!all_finite(w, kWeights) || !all_finite(v, kNeurons) || !all_finite(predictions, obs_)) {
        result.max_error = NAN;
        result.detail = "a weight or a prediction is not finite (NaN where never written)";
        return result;
    }

    if (w_reference_.empty()) w_reference_ = reference_weights(data(), rows_per_neuron_, threads_);
    const double weight_error = max_weight_error(w_reference_.data(), w);
    const size_t samples = std::min(obs_, kSampledRows);
    const double prediction_error =
        max_prediction_error(x_test_.data(), obs_, samples, w, v, predictions);
    test_fit(predictions, y_test_.data(), obs_, correlation_, test_rmse_);
    max_abs_v_ = 0;
    for (size_t k = 0; k < kNeurons; ++k) max_abs_v_ = std::max(max_abs_v_, std::fabs(v[k]));

    const bool weights_ok = weight_error <= kWeightTolerance;
    const bool predictions_ok = prediction_error <= kPredictionTolerance;
    const bool correlation_ok = correlation_ >= floor;
    result.max_error = 1 - correlation_;
    result.passed = weights_ok && predictions_ok && correlation_ok;
    result.detail =
        "1 - test correlation " + format("%.3g", 1 - correlation_) +
        (floor > -1 ? (correlation_ok ? " <= " : " EXCEEDS ") + format("%g", 1 - floor)
                    : std::string(" (no floor below 100 rows)")) +
        "; W vs reference fits " + format("%.1e", weight_error) +
        (weights_ok ? " <= " : " EXCEEDS ") + format("%.0e", kWeightTolerance) + "; " +
        std::to_string(samples) + " predictions vs own W, V " +
        format("%.1e", prediction_error) + (predictions_ok ? " <= " : " EXCEEDS ") +
        format("%.0e", kPredictionTolerance);
    return result;
}

std::vector<gpubench::Metric> Task::metrics() const {
    return {{"correlation", correlation_, "", "Pearson correlation of test predictions and targets",
             GPUBENCH_BETTER_HIGHER},
            {"test_rmse", test_rmse_, "", "root mean square error on the test set", GPUBENCH_BETTER_LOWER},
            {"max_abs_v", max_abs_v_, "", "largest |output weight| (ridge " + format("%g", kRidge) +
                                              " x mean diagonal of H^T H)"}};
}

}  // namespace ann
