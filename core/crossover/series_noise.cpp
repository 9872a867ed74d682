#include "series_noise.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpubench {

namespace {

// Each point's spell, by its run and the gaps between the times they finished; `run_of` gets
// each spell's run.
std::vector<size_t> spells_of(const Series &series, size_t &spells, std::vector<size_t> &run_of) {
    const std::vector<SeriesPoint> &points = series.points;
    std::vector<size_t> order(points.size()), spell(points.size(), 0);
    std::iota(order.begin(), order.end(), size_t(0));
    const bool timed =
        std::none_of(points.begin(), points.end(), [](const SeriesPoint &p) { return p.measured_at_s < 0; });
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::pair(points[a].run, timed ? points[a].measured_at_s : 0.0) <
               std::pair(points[b].run, timed ? points[b].measured_at_s : 0.0);
    });
    std::vector<double> gaps;  // within runs
    for (size_t i = 1; i < order.size(); ++i)
        if (points[order[i]].run == points[order[i - 1]].run)
            gaps.push_back(points[order[i]].measured_at_s - points[order[i - 1]].measured_at_s);
    const double typical = timed && !gaps.empty() ? median(gaps) : 0.0;
    spells = 0;
    run_of.clear();
    for (size_t i = 0; i < order.size(); ++i) {
        const SeriesPoint &p = points[order[i]], *before = i ? &points[order[i - 1]] : nullptr;
        const bool new_run = !before || before->run != p.run;
        const double gap = new_run ? 0.0 : p.measured_at_s - before->measured_at_s;
        if (new_run || (timed && gap > 3 * typical && gap > 0)) {
            ++spells;
            run_of.push_back(new_run ? (before ? run_of.back() + 1 : 0) : run_of.back());
        }
        spell[order[i]] = spells - 1;
    }
    if (spells == 0) spells = 1, run_of = {0};  // no points
    return spell;
}

// The spread of `means` about the mean of their group (`group_of` each), over `df`.
double spread_about_groups(const std::vector<double> &means, const std::vector<size_t> &group_of, size_t groups,
                           size_t df, std::vector<double> &group_means) {
    std::vector<double> sum(groups, 0.0), count(groups, 0.0);
    for (size_t g = 0; g < means.size(); ++g) sum[group_of[g]] += means[g], count[group_of[g]] += 1;
    group_means.assign(groups, 0.0);
    for (size_t k = 0; k < groups; ++k) group_means[k] = sum[k] / count[k];
    if (df == 0) return 0;
    double squares = 0;
    for (size_t g = 0; g < means.size(); ++g) squares += std::pow(means[g] - group_means[group_of[g]], 2);
    return std::sqrt(squares / double(df));
}

}  // namespace

SeriesNoise series_noise(const Series &series, const CostModel &model) {
    SeriesNoise noise;
    noise.spell_of = spells_of(series, noise.spells, noise.run_of);
    noise.runs = noise.run_of.back() + 1;
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
    // Around each spell's mean: the entries' own noise; the spells' means around their run's:
    // the spells'; the runs' means around theirs: the runs'.
    double inside = 0;
    for (size_t i = 0; i < n; ++i) {
        const size_t g = noise.spell_of[i];
        inside += std::pow(residual[i] - sum[g] / count[g], 2);
    }
    const double inside_df = std::max(1.0, double(n) - double(model.parameters) - double(noise.spells - 1));
    const double inside_var = inside / inside_df;
    noise.entry_sd = std::sqrt(std::max(0.0, inside_var - within));
    std::vector<double> spell_means(noise.spells), run_means;
    for (size_t g = 0; g < noise.spells; ++g) spell_means[g] = sum[g] / count[g];
    // Not less what the entries' own noise puts in the spells' means (nor the spells' in the
    // runs'): with a few spells, an estimate so corrected is often nothing where the shifts are
    // real, and the interval too narrow; uncorrected, it errs wide.
    noise.spell_sd = spread_about_groups(spell_means, noise.run_of, noise.runs, noise.spell_df(), run_means);
    std::vector<double> overall;
    noise.run_sd = spread_about_groups(run_means, std::vector<size_t>(noise.runs, 0), 1, noise.run_df(), overall);
    return noise;
}

}  // namespace gpubench
