#include "cost_model.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gpubench {

namespace {

// The model's design row at `size`: the latency's 1, the work within each segment, then
// whether each step is passed.
std::vector<double> design_row(double size, double exponent, const ModelForm &form) {
    const double work = std::pow(size, exponent);
    std::vector<double> row{1.0};
    double below = 0;  // where the segment starts, in work
    for (double knot : form.knots) {
        const double edge = std::pow(knot, exponent);
        row.push_back(std::clamp(work - below, 0.0, edge - below));
        below = edge;
    }
    row.push_back(std::max(0.0, work - below));
    for (double step : form.steps) row.push_back(size > step ? 1.0 : 0.0);
    return row;
}

// Least squares of the rows (each already divided by its figure) against ones, the columns
// scaled to 1 for conditioning; a coefficient that comes out negative is held at 0 and the
// rest solved again (latency and slopes are never negative). Returns the coefficients.
std::vector<double> non_negative_fit(const std::vector<std::vector<double>> &rows) {
    const size_t m = rows.front().size();
    std::vector<double> scale(m, 0.0);
    for (const auto &row : rows)
        for (size_t j = 0; j < m; ++j) scale[j] = std::max(scale[j], std::abs(row[j]));
    std::vector<bool> free(m);
    for (size_t j = 0; j < m; ++j) free[j] = scale[j] > 0;
    std::vector<double> x(m, 0.0);
    for (size_t round = 0; round <= m; ++round) {
        std::vector<size_t> cols;
        for (size_t j = 0; j < m; ++j)
            if (free[j]) cols.push_back(j);
        const size_t k = cols.size();
        if (k == 0) break;
        // Normal equations A'A c = A'1 over the free columns, by Gaussian elimination.
        std::vector<std::vector<double>> a(k, std::vector<double>(k + 1, 0.0));
        for (const auto &row : rows)
            for (size_t p = 0; p < k; ++p) {
                const double rp = row[cols[p]] / scale[cols[p]];
                for (size_t q = 0; q < k; ++q) a[p][q] += rp * row[cols[q]] / scale[cols[q]];
                a[p][k] += rp;
            }
        for (size_t p = 0; p < k; ++p) {
            size_t pivot = p;
            for (size_t r = p + 1; r < k; ++r)
                if (std::abs(a[r][p]) > std::abs(a[pivot][p])) pivot = r;
            std::swap(a[p], a[pivot]);
            if (std::abs(a[p][p]) < 1e-300) a[p][p] = 1e-300;
            for (size_t r = 0; r < k; ++r) {
                if (r == p) continue;
                const double f = a[r][p] / a[p][p];
                for (size_t c = p; c <= k; ++c) a[r][c] -= f * a[p][c];
            }
        }
        std::fill(x.begin(), x.end(), 0.0);
        size_t most_negative = m;
        for (size_t p = 0; p < k; ++p) {
            x[cols[p]] = a[p][k] / a[p][p] / scale[cols[p]];
            if (x[cols[p]] < 0 && (most_negative == m || x[cols[p]] < x[most_negative])) most_negative = cols[p];
        }
        if (most_negative == m) break;
        free[most_negative] = false;
    }
    for (double &c : x) c = std::max(c, 0.0);
    return x;
}

// The model of `points` with this exponent and form, and its sum of squared relative errors.
CostModel linear_part(const std::vector<FitPoint> &points, double exponent, const ModelForm &form,
                      double &relative_sse) {
    std::vector<std::vector<double>> rows;
    for (const FitPoint &p : points) {
        std::vector<double> row = design_row(p.size, exponent, form);
        for (double &v : row) v /= p.figure;
        rows.push_back(std::move(row));
    }
    const std::vector<double> c = non_negative_fit(rows);
    CostModel model;
    model.exponent = exponent;
    model.knots = form.knots, model.steps = form.steps;
    model.latency = c.front();
    const auto first_jump = c.end() - static_cast<std::ptrdiff_t>(form.steps.size());
    model.slopes.assign(c.begin() + 1, first_jump);
    model.jumps.assign(first_jump, c.end());
    relative_sse = 0;
    for (const FitPoint &p : points) relative_sse += std::pow(model.at(p.size) / p.figure - 1, 2);
    return model;
}

// The points' distinct sizes, each with the geometric mean of its figures.
std::map<double, double> figure_by_size(const std::vector<FitPoint> &points) {
    std::map<double, std::pair<double, int>> sums;
    for (const FitPoint &p : points) {
        sums[p.size].first += std::log(p.figure);
        ++sums[p.size].second;
    }
    std::map<double, double> by_size;
    for (const auto &[size, sum] : sums) by_size[size] = std::exp(sum.first / sum.second);
    return by_size;
}

// The leave-out errors of the model's form over `points`.
void judge_by_leaving_out(const std::vector<FitPoint> &points, CostModel &model) {
    const std::map<double, double> by_size = figure_by_size(points);
    std::vector<double> errors;
    for (auto it = std::next(by_size.begin()); by_size.size() >= 4 && std::next(it) != by_size.end(); ++it) {
        std::vector<FitPoint> rest;
        for (const FitPoint &p : points)
            if (p.size != it->first) rest.push_back(p);
        const CostModel without = refit_cost_model(rest, model.form());
        if (without.fitted()) errors.push_back(std::abs(without.at(it->first) / it->second - 1));
    }
    model.leave_out_sizes = errors.size();
    if (errors.empty()) return;
    std::sort(errors.begin(), errors.end());
    model.leave_out_max_error = errors.back();
    model.leave_out_median_error = median(errors);
}

// Knots where consecutive distinct sizes read from different known levels: at the smaller size.
std::vector<double> level_breaks(std::vector<FitPoint> points) {
    std::sort(points.begin(), points.end(), [](const FitPoint &a, const FitPoint &b) { return a.size < b.size; });
    std::vector<double> knots;
    for (size_t i = 1; i < points.size(); ++i) {
        const FitPoint &a = points[i - 1], &b = points[i];
        if (a.size < b.size && !a.level.empty() && !b.level.empty() && a.level != b.level) knots.push_back(a.size);
    }
    return knots;
}

double relative_sse(const std::vector<FitPoint> &points, const CostModel &model) {
    double sse = 0;
    for (const FitPoint &p : points) sse += std::pow(model.at(p.size) / p.figure - 1, 2);
    return sse;
}

// `form` with one step more, in the gap between consecutive distinct sizes (two at least on
// either side) where it fits best; nullopt where no gap has that many sizes around it.
std::optional<ModelForm> with_best_step(const std::vector<FitPoint> &points, const ModelForm &form) {
    std::vector<double> sizes;
    for (const auto &[size, figure] : figure_by_size(points)) sizes.push_back(size);
    std::optional<ModelForm> best;
    double best_sse = std::numeric_limits<double>::infinity();
    for (size_t i = 2; i + 2 <= sizes.size(); ++i) {
        ModelForm candidate = form;
        candidate.steps.push_back(std::sqrt(sizes[i - 1] * sizes[i]));
        std::sort(candidate.steps.begin(), candidate.steps.end());
        const double sse = relative_sse(points, refit_cost_model(points, candidate));
        if (sse < best_sse) best = std::move(candidate), best_sse = sse;
    }
    return best;
}

}  // namespace

double CostModel::at(double size) const {
    if (!fitted()) return 0;
    const std::vector<double> row = design_row(size, exponent, form());
    double t = latency;
    for (size_t k = 0; k < slopes.size(); ++k) t += slopes[k] * row[k + 1];
    for (size_t j = 0; j < jumps.size(); ++j) t += jumps[j] * row[slopes.size() + 1 + j];
    return t;
}

CostModel refit_cost_model(const std::vector<FitPoint> &points, const ModelForm &form,
                           std::optional<double> near_exponent) {
    if (figure_by_size(points).size() < 3) return {};
    // The exponent: the best of a coarse grid (or the one given), then golden-section search around it.
    const auto sse_at = [&](double exponent) {
        double sse = 0;
        linear_part(points, exponent, form, sse);
        return sse;
    };
    constexpr double grid_step = 0.25, lowest = 0.25, highest = 4.0;
    double best = near_exponent.value_or(lowest), best_sse = std::numeric_limits<double>::infinity();
    for (double e = lowest; !near_exponent && e <= highest + 1e-9; e += grid_step)
        if (const double sse = sse_at(e); sse < best_sse) best = e, best_sse = sse;
    const double reach = near_exponent ? 0.5 : grid_step, golden = (std::sqrt(5.0) - 1) / 2;
    double a = std::max(0.05, best - reach), b = best + reach;
    double c = b - golden * (b - a), d = a + golden * (b - a), fc = sse_at(c), fd = sse_at(d);
    for (int i = 0; i < (near_exponent ? 14 : 24); ++i) {
        if (fc < fd) b = d, d = c, fd = fc, c = b - golden * (b - a), fc = sse_at(c);
        else a = c, c = d, fc = fd, d = a + golden * (b - a), fd = sse_at(d);
    }
    double sse = 0;
    CostModel model = linear_part(points, fc < fd ? c : d, form, sse);
    model.points = points.size();
    model.parameters = 2 + model.slopes.size() + model.jumps.size();
    double log_sse = 0;
    for (const FitPoint &p : points) log_sse += std::pow(std::log(p.figure / model.at(p.size)), 2);
    model.residual_sd = model.residual_df() ? std::sqrt(log_sse / model.residual_df()) : 0;
    return model;
}

CostModel fit_cost_model(const std::vector<FitPoint> &points) {
    const std::vector<double> breaks = level_breaks(points);
    std::vector<std::vector<double>> forms{{}};  // none, each break alone, all of them
    for (double knot : breaks) forms.push_back({knot});
    if (breaks.size() > 1) forms.push_back(breaks);
    CostModel chosen;
    for (const std::vector<double> &knots : forms) {
        if (points.size() < knots.size() + 4) continue;  // a point more than parameters at least
        CostModel model = refit_cost_model(points, {knots, {}});
        if (!model.fitted()) continue;
        judge_by_leaving_out(points, model);
        // A break must earn its place: a lower error where sizes were left out.
        if (!chosen.fitted() || model.leave_out_median_error < chosen.leave_out_median_error * 0.9)
            chosen = std::move(model);
    }
    if (!chosen.fitted()) return figure_by_size(points).size() >= 3 ? refit_cost_model(points, {}) : chosen;
    // A jump must earn more: a step fits some noise wherever it goes. It must be a fifth of the
    // figure at least, explain the residuals far beyond chance (F > 20 for its position and size,
    // sought over every gap), and cut the error at sizes left out by 30%.
    if (const auto stepped = with_best_step(points, chosen.form()); stepped && points.size() >= chosen.parameters + 3) {
        CostModel model = refit_cost_model(points, *stepped);
        bool large = true;
        for (size_t j = 0; j < model.steps.size(); ++j)
            large = large && model.jumps[j] >= 0.2 * model.at(model.steps[j]);
        const double before = relative_sse(points, chosen), after = relative_sse(points, model);
        const double f = (before - after) / 2 / (after / double(points.size() - model.parameters - 1));
        judge_by_leaving_out(points, model);
        if (large && f > 20 && model.leave_out_median_error < chosen.leave_out_median_error * 0.7)
            chosen = std::move(model);
    }
    return chosen;
}

std::vector<FitPoint> fit_points(const Series &series) {
    std::vector<FitPoint> points;
    for (const SeriesPoint &p : series.points)
        if (const double m = median(p.samples); m > 0) points.push_back({double(p.size), m, p.level});
    return points;
}

}  // namespace gpubench
