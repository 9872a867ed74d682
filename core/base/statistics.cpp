#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gpubench {

Summary summarize(std::vector<double> samples) {
    Summary s;
    s.count = samples.size();
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    size_t n = samples.size();
    s.min = samples.front();
    s.max = samples.back();
    s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
    if (n > 1) {
        double sq = 0;
        for (double v : samples) sq += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(sq / static_cast<double>(n - 1));
    }
    s.rel_stddev = s.mean > 0 ? s.stddev / s.mean : 0;
    return s;
}

double median_relative_standard_error(std::vector<double> samples) {
    const size_t n = samples.size();
    if (n < 2) return 0;
    const double median = summarize(samples).median;
    if (median <= 0) return 0;
    for (double &v : samples) v = std::fabs(v - median);
    const double mad = summarize(std::move(samples)).median;
    return 1.2533 * 1.4826 * mad / std::sqrt(static_cast<double>(n)) / median;
}

std::vector<double> add_samples(const std::vector<double> &a, const std::vector<double> &b) {
    if (a.size() != b.size()) throw std::invalid_argument("add_samples: lengths differ");
    std::vector<double> sum(a.size());
    for (size_t i = 0; i < a.size(); ++i) sum[i] = a[i] + b[i];
    return sum;
}

double median(std::vector<double> samples) {
    if (samples.empty()) return 0;
    const auto middle = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
    std::nth_element(samples.begin(), middle, samples.end());
    if (samples.size() % 2) return *middle;
    return (*middle + *std::max_element(samples.begin(), middle)) / 2;
}

double student_t_95(size_t df) {
    // Exact to three decimals up to 30; beyond, the Cornish-Fisher expansion in 1/df.
    static constexpr double table[] = {
        INFINITY, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
        2.179,    2.160,  2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
        2.064,    2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < std::size(table)) return table[df];
    const double z = 1.959964, n = static_cast<double>(df);
    return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

double quantile(const std::vector<double> &sorted, double q) {
    if (sorted.empty()) return 0;
    const double position = q * static_cast<double>(sorted.size() - 1);
    const size_t below = static_cast<size_t>(position);
    const size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace gpubench
