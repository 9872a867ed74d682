// Where a GPU series meets the best of the CPU series: the size n* from which the GPU's figure
// (time or energy per result) is lower at every larger size compared, with a 95% interval,
// and the margin at the largest size compared, with its interval. From the series' cost models
// (cost_model.hpp), so between measured sizes too.
//
// The spread comes from resampling: each replicate draws every point's samples again (with
// replacement) and moves its median by the series' noise between entries and its spell's
// (series_noise.hpp: what its model's residuals hold beyond its samples' own noise), refits
// every model and finds n* again. Since that noise is estimated from few residuals and spells,
// the spread is widened by Student's t over the normal for their degrees of freedom.
//
// The interval answers "where would a repeat run on this host put n*?": that run's n* misses
// this one's by the noise of both runs, so the spread is widened by √2 more. A drift slower
// than the run is not in it; pooled runs show it (series_noise.hpp), and their interval is a
// repeat of them all. It holds the true
// n* more often than 95%, and a second run's n* 95% of the time where the noise is as estimated.
// A near tie (sizes where the gap's own interval holds 0, next to n*) is inside it too.
#pragma once

#include "fitted_series.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

enum class CrossoverVerdict {
    from,     // the GPU wins from n* on
    never,    // not at any size compared (up to `largest`)
    always,   // at every size compared (from `smallest`)
    unknown,  // nothing to compare: `why`
};
const char *verdict_name(CrossoverVerdict verdict);  // "from", "never", "always", "unknown"

// A figure and its 95% interval. An n*'s `lo` is 0 where the interval reaches below the
// smallest size compared and `hi` infinite where it reaches above the largest.
struct Estimate {
    double value = 0, lo = 0, hi = 0;
};

struct Crossover {
    CrossoverVerdict verdict = CrossoverVerdict::unknown;
    std::string why;       // unknown: what was missing
    Estimate size;         // n* (from); never: infinite, always: 0; its interval either way
    double smallest = 0, largest = 0;  // the sizes both sides measured, the range compared
    Estimate margin;       // the best CPU figure over the GPU's at `largest`: > 1 the GPU wins
    std::string best_cpu;  // the CPU series best at n* (else at `largest`)
    size_t replicates = 0, degrees_of_freedom = 0;
    // The runs pooled (SeriesPoint::run) in the two series that cross: over 1, the interval
    // holds the drift between them, and is where a repeat of them all would put n*.
    size_t runs = 1;
    // Whether the interval is within `fraction` of n* either side; for `always` (`never`),
    // whether a crossing is ruled out above `smallest` (below `largest`) by more than that.
    bool within(double fraction) const;
};

struct CrossoverOptions {
    size_t replicates = 400;
    uint64_t seed = 1;  // the same inputs give the same interval
};

// `gpu` against the best of `cpus` at each size (a CPU series counts within its measured
// sizes only). Series with fewer than 3 sizes are left out; none left: unknown.
Crossover find_crossover(const FittedSeries &gpu, const std::vector<const FittedSeries *> &cpus,
                         const CrossoverOptions &options = {});
// The same, fitting the series first.
Crossover find_crossover(const Series &gpu, const std::vector<Series> &cpus, const CrossoverOptions &options = {});

}  // namespace gpubench
