// The noise of a series beyond its samples' own, in log(median), as its model's residuals hold
// it: from one entry to the next, and from one spell of the sweep to another. A series measures
// its entries back to back in spells (the sweep's pass over it, each round of --find-crossover):
// the entries of a spell share the host's state then (another tenant, the clocks, the page
// cache), which moves them together and moves them again in another run. So a shift shared by
// a spell is what a second run would see, and the interval must hold it.
#pragma once

#include "cost_model.hpp"
#include "series.hpp"

#include <cstddef>
#include <vector>

namespace gpubench {

struct SeriesNoise {
    double entry_sd = 0;            // each entry's own, beyond its samples'
    double spell_sd = 0;            // shared by the entries of a spell
    std::vector<size_t> spell_of;   // each of the series' points: its spell (0 where unknown)
    size_t spells = 1;
};

// Spells are told apart by the time each entry finished (SeriesPoint::measured_at_s): a gap
// over three times the series' median gap starts a new one. Without times, one spell.
SeriesNoise series_noise(const Series &series, const CostModel &model);

}  // namespace gpubench
