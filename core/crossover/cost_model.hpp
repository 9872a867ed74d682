// A series' cost model: the time (or energy) per result as a latency plus the work over a
// throughput, where the work grows as size^exponent and the throughput may change where the
// working set leaves a cache level, and the latency may jump where the backend changes its
// algorithm (a GPU sort's one-block sort giving way to its multi-pass one):
//     t(n) = latency + sum_j jump_j [n > step_j] + sum_k slope_k * (the part of n^exponent in segment k)
// the segments split at `knots`. Fitted to the points' medians by least squares on relative
// error (so small and large sizes weigh alike), every term kept non-negative; judged by its
// error at each measured size left out of the fit.
#pragma once

#include "series.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace gpubench {

// The form of a model: where its throughput changes and where its latency jumps.
struct ModelForm {
    std::vector<double> knots, steps;
};

struct CostModel {
    double latency = 0;          // t as n -> 0
    double exponent = 1;         // the work grows as n^exponent
    std::vector<double> knots;   // sizes where the throughput changes, ascending
    std::vector<double> slopes;  // per unit of n^exponent, one per segment (knots + 1); empty: unfitted
    std::vector<double> steps;   // sizes past which the latency jumps, ascending...
    std::vector<double> jumps;   // ...by these
    size_t points = 0;           // the medians fitted
    size_t parameters = 0;       // latency, exponent, slopes and jumps
    // log(median / model) over the fitted points: their spread (parameters counted out).
    double residual_sd = 0;
    // Each measured size between the smallest and the largest, fitted without it: the relative
    // error of the model at it, median and largest; 0 and 0 sizes when too few points.
    double leave_out_median_error = 0, leave_out_max_error = 0;
    size_t leave_out_sizes = 0;

    bool fitted() const { return !slopes.empty(); }
    ModelForm form() const { return {knots, steps}; }
    double at(double size) const;                        // the modelled figure at `size`
    size_t residual_df() const { return points > parameters ? points - parameters : 0; }
};

// One point of a fit: a size, its figure (> 0) and where its level changes.
struct FitPoint {
    double size = 0, figure = 0;
    std::string level;
};

// The fit of `points` (any order). Knots go where consecutive sizes read from different known
// levels, and one step in the gap between two sizes where it fits best; each kept only where
// the leave-out error says it helps and enough points remain (at least one more than
// parameters). Fewer than 3 distinct sizes give an unfitted model.
CostModel fit_cost_model(const std::vector<FitPoint> &points);

// The fit with a given form, only exponent, latency, slopes and jumps fitted. With
// `near_exponent`, the exponent is searched within 0.5 of it only (the crossover's resamples
// refit so, near the fit of the measured points). No leave-out error.
CostModel refit_cost_model(const std::vector<FitPoint> &points, const ModelForm &form,
                           std::optional<double> near_exponent = std::nullopt);

// The medians of `series` as fit points.
std::vector<FitPoint> fit_points(const Series &series);

}  // namespace gpubench
