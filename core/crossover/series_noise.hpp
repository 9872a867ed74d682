// The noise of a series beyond its samples' own, in log(median), as its model's residuals hold
// it: from one entry to the next, and from one spell of the sweep to another. A series measures
// its entries back to back in spells (the sweep's pass over it, each round of --find-crossover):
// the entries of a spell share the host's state then (another tenant, the clocks, the page
// cache), which moves them together and moves them again in another run. So a shift shared by
// a spell is what a second run would see, and the interval must hold it. Drift slower than a
// run moves all of its spells alike, and only runs pooled (SeriesPoint::run) show it: a shift
// shared by a run, on top of its spells'.
#pragma once

#include "cost_model.hpp"
#include "series.hpp"

#include <cstddef>
#include <vector>

namespace gpubench {

struct SeriesNoise {
    double entry_sd = 0;            // each entry's own, beyond its samples'
    double spell_sd = 0;            // shared by the entries of a spell, about its run's mean
    double run_sd = 0;              // shared by the spells of a run (0 with one run)
    std::vector<size_t> spell_of;   // each of the series' points: its spell (0 where unknown)
    std::vector<size_t> run_of;     // each spell's run, numbered from 0 in the order met
    size_t spells = 1, runs = 1;
    size_t spell_df() const { return spells - runs; }  // of spell_sd: 0 where no run has two spells
    size_t run_df() const { return runs - 1; }
};

// Spells are told apart by run and by the time each entry finished (SeriesPoint::measured_at_s):
// a gap over three times the series' median gap within runs starts a new one. Without times,
// one spell per run.
SeriesNoise series_noise(const Series &series, const CostModel &model);

}  // namespace gpubench
