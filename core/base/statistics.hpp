// Summary statistics of timing samples.
#pragma once

#include <cstddef>
#include <vector>

namespace gpubench {

struct Summary {
    size_t count = 0;
    double median = 0, mean = 0, min = 0, max = 0;
    double stddev = 0;      // sample standard deviation (n - 1)
    double rel_stddev = 0;  // stddev / mean: the relative spread
};

// Summarises `samples` (any order). An empty input gives an all-zero summary.
Summary summarize(std::vector<double> samples);

// The relative standard error of the median: how far the median of `samples` would move
// between repeated measurements, over the median. From the median absolute deviation (robust
// to the odd outlier): 1.2533 * 1.4826 * MAD / sqrt(n) / median. 0 for fewer than 2 samples.
double median_relative_standard_error(std::vector<double> samples);

// The median of `samples` (any order); 0 for an empty input. Without the rest of a Summary:
// for the many medians of a bootstrap.
double median(std::vector<double> samples);

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (1.96 as df grows;
// infinity for df 0): how much wider than normal an interval must be when its spread was
// estimated from df residuals.
double student_t_95(size_t df);

// The q-quantile (0 <= q <= 1) of `sorted` (ascending), interpolated linearly between
// neighbours; 0 for an empty input. Quartiles: q = 0.25 and 0.75.
double quantile(const std::vector<double> &sorted, double q);

// Elementwise sums of equally long sample series (e.g. upload + run + download).
std::vector<double> add_samples(const std::vector<double> &a, const std::vector<double> &b);

}  // namespace gpubench
