#include "ann_linalg.hpp"

#include <algorithm>

namespace ann {

double dot(const double *a, const double *b, size_t count) {
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (size_t i = 0; i < count; ++i) sum += a[i] * b[i];
    return sum;
}

void fit_neuron(const TrainingData &data, size_t k, double *w, double *scratch) {
    const size_t m = data.rows_per_neuron;
    const int64_t *rows = data.subsets + k * m;
    // The block column-major (column c at a + c m): every reflection walks columns.
    double *a = scratch, *b = scratch + kInputs * m;
    for (size_t i = 0; i < m; ++i) {
        const double *x_row = data.x + size_t(rows[i]) * kInputs;
        for (size_t c = 0; c < kInputs; ++c) a[c * m + i] = x_row[c];
        b[i] = std::atanh(data.y[rows[i]]);
    }
    // Column j's reflection u = a_j[j..m) - alpha e_j zeroes it below the diagonal and leaves
    // R_jj = alpha; alpha takes the sign opposite to a_jj so that u_j does not cancel.
    // u^T u = -2 alpha u_j, so applying I - 2 u u^T / u^T u to a column c is c += (u.c) u / (alpha u_j).
    double r_diagonal[kInputs];
    for (size_t j = 0; j < kInputs; ++j) {
        double *u = a + j * m;
        const double norm = std::sqrt(dot(u + j, u + j, m - j));
        const double alpha = u[j] > 0 ? -norm : norm;
        r_diagonal[j] = alpha;
        u[j] -= alpha;
        const double scale = 1 / (alpha * u[j]);  // -2 / u^T u
        for (size_t c = j + 1; c <= kInputs; ++c) {  // c = kInputs: the targets b
            double *column = a + c * m;
            const double f = dot(u + j, column + j, m - j) * scale;
            for (size_t i = j; i < m; ++i) column[i] += f * u[i];
        }
    }
    // R w = (Q^T b)[0, kInputs), R_jc = a[c m + j] above the diagonal.
    for (size_t j = kInputs; j-- > 0;) {
        double sum = b[j];
        for (size_t c = j + 1; c < kInputs; ++c) sum -= a[c * m + j] * w[c];
        w[j] = sum / r_diagonal[j];
    }
}

void solve_output_weights(double *g, double *v, int threads) {
    constexpr size_t n = kNeurons;
    double trace = 0;
    for (size_t j = 0; j < n; ++j) trace += g[j * n + j];
    const double ridge = kRidge * trace / double(n);
    for (size_t j = 0; j < n; ++j) g[j * n + j] += ridge;

    // Cholesky-Crout by columns: L_jj = sqrt(g_jj - L_j. L_j.), then every row below,
    // L_ij = (g_ij - L_i. L_j.) / L_jj over the first j columns: contiguous rows, independent.
#pragma omp parallel num_threads(std::max(1, threads)) if (threads > 1)
    for (size_t j = 0; j < n; ++j) {
        double *row_j = g + j * n;
#pragma omp single
        row_j[j] = std::sqrt(row_j[j] - dot(row_j, row_j, j));
#pragma omp for schedule(static)
        for (size_t i = j + 1; i < n; ++i) {
            double *row_i = g + i * n;
            row_i[j] = (row_i[j] - dot(row_i, row_j, j)) / row_j[j];
        }
    }

    // L z = H^T y, then L^T v = z, in place.
    for (size_t i = 0; i < n; ++i) v[i] = (v[i] - dot(g + i * n, v, i)) / g[i * n + i];
    for (size_t i = n; i-- > 0;) {
        double sum = v[i];
        for (size_t k = i + 1; k < n; ++k) sum -= g[k * n + i] * v[k];
        v[i] = sum / g[i * n + i];
    }
}

}  // namespace ann
