// The small dense arithmetic the CPU backends and the checks share, written once so that
// ann_naive and ann_omp make the same arithmetic choices and differ only in how they order
// and split the large sums (H, H^T H, the predictions):
//   - each neuron's least squares by Householder QR (as LAPACK's gels), not the 10 x 10
//     normal equations, which square the condition number: at obs = 1e4 a neuron's 10 rows
//     make a square system whose condition number exceeds 1e4 for about one neuron in 600
//     (so in most runs) and 1e6 for one in 50000;
//   - the ridge, the Cholesky factorisation and the two triangular solves of the output
//     weights;
//   - one row's hidden activations and prediction.
#pragma once

#include "ann_common.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ann {

// Doubles of scratch fit_neuron needs: the gathered m x kInputs block and its targets.
constexpr size_t fit_scratch(size_t rows) { return (kInputs + 1) * rows; }

// Neuron k's weights w (kInputs): least squares of x[rows] w ~ arctanh(y[rows]) over the
// data's subset k, by Householder QR. scratch: fit_scratch(rows_per_neuron) doubles.
void fit_neuron(const TrainingData &data, size_t k, double *w, double *scratch);

// g (kNeurons x kNeurons, row-major, lower triangle read) += kRidge * trace / kNeurons on the
// diagonal; then g's lower triangle becomes L with L L^T = g (Cholesky-Crout, the rows below
// each column in parallel on `threads` threads; 1: no threads started); then v (kNeurons,
// holding H^T y) becomes the solution of L L^T v = H^T y. A g that is not positive definite
// even with the ridge gives NaN in v.
void solve_output_weights(double *g, double *v, int threads);

// sum of a[i] * b[i] over [0, count), in the compiler's SIMD split (an order fixed per build).
double dot(const double *a, const double *b, size_t count);

// The dot product of one row of inputs with one neuron's weights, in input order.
inline double input_dot(const double *x_row, const double *w_k) {
    double sum = 0;
    for (size_t c = 0; c < kInputs; ++c) sum += x_row[c] * w_k[c];
    return sum;
}

// The network's prediction for one row: sum over the neurons, in order, of
// tanh(x_row . w_k) v_k.
inline double predict_row(const double *x_row, const double *w, const double *v) {
    double sum = 0;
    for (size_t k = 0; k < kNeurons; ++k) sum += std::tanh(input_dot(x_row, w + k * kInputs)) * v[k];
    return sum;
}

}  // namespace ann
