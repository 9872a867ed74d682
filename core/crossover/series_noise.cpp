#include "series_noise.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpubench {

namespace {

// Each point's spell, by the gaps between the times they finished.
std::vector<size_t> spells_of(const Series &series, size_t &spells) {
    const std::vector<SeriesPoint> &points = series.points;
    std::vector<size_t> order(points.size()), spell(points.size(), 0);
    std::iota(order.begin(), order.end(), size_t(0));
    spells = 1;
    if (std::any_of(points.begin(), points.end(), [](const SeriesPoint &p) { return p.measured_at_s < 0; }))
        return spell;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return points[a].measured_at_s < points[b].measured_at_s; });
    std::vector<double> gaps;
    for (size_t i = 1; i < order.size(); ++i)
        gaps.push_back(points[order[i]].measured_at_s - points[order[i - 1]].measured_at_s);
    const double typical = median(gaps);
    for (size_t i = 1; i < order.size(); ++i) {
        if (gaps[i - 1] > 3 * typical && gaps[i - 1] > 0) ++spells;
        spell[order[i]] = spells - 1;
    }
    return spell;
}

}  // namespace

SeriesNoise series_noise(const Series &series, const CostModel &model) {
    SeriesNoise noise;
    noise.spell_of = spells_of(series, noise.spells);
    const size_t n = series.points.size();
    std::vector<double> residual(n, 0.0), sum(noise.spells, 0.0), count(noise.spells, 0.0);
    double within = 0;  // the mean variance of a point's log median from its own samples
    for (size_t i = 0; i < n; ++i) {
        const SeriesPoint &p = series.points[i];
        const double m = median(p.samples);
        residual[i] = m > 0 && model.fitted() ? std::log(m / model.at(double(p.size))) : 0.0;
        within += std::pow(median_relative_standard_error(p.samples), 2) / double(n);
        sum[noise.spell_of[i]] += residual[i], count[noise.spell_of[i]] += 1;
    }
    if (n <= model.parameters) return noise;
    // Around each spell's mean: the entries' own noise; the spells' means around theirs: the spells'.
    double inside = 0, mean_of_means = 0;
    for (size_t i = 0; i < n; ++i) {
        const size_t g = noise.spell_of[i];
        inside += std::pow(residual[i] - sum[g] / count[g], 2);
    }
    const double inside_df = std::max(1.0, double(n) - double(model.parameters) - double(noise.spells - 1));
    const double inside_var = inside / inside_df;
    noise.entry_sd = std::sqrt(std::max(0.0, inside_var - within));
    if (noise.spells < 2) return noise;
    for (size_t g = 0; g < noise.spells; ++g) mean_of_means += sum[g] / count[g] / double(noise.spells);
    double spread = 0;
    for (size_t g = 0; g < noise.spells; ++g) {
        spread += std::pow(sum[g] / count[g] - mean_of_means, 2) / double(noise.spells - 1);
    }
    // Not less what the entries' own noise puts in the spells' means: with a few spells, an
    // estimate so corrected is often nothing where the shifts are real, and the interval too
    // narrow; uncorrected, it errs wide.
    noise.spell_sd = std::sqrt(spread);
    return noise;
}

}  // namespace gpubench
