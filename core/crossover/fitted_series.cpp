#include "fitted_series.hpp"

#include <utility>

namespace gpubench {

FittedSeries fit_series(Series series) {
    FittedSeries f{std::move(series), {}, {}};
    f.model = fit_cost_model(fit_points(f.series));
    if (f.model.fitted()) f.noise = series_noise(f.series, f.model);
    return f;
}

}  // namespace gpubench
