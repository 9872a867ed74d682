// A series with its cost model and its noise beyond its samples' (series_noise.hpp): fitted
// once, then compared by every crossover that takes it (a CPU series meets each GPU column).
#pragma once

#include "cost_model.hpp"
#include "series.hpp"
#include "series_noise.hpp"

#include <vector>

namespace gpubench {

struct FittedSeries {
    Series series;
    CostModel model;  // unfitted with fewer than 3 sizes
    SeriesNoise noise;
};

FittedSeries fit_series(Series series);

}  // namespace gpubench
