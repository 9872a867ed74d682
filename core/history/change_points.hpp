// Change points in a series of timings over commits (runner history regressions, the HTML
// report's trends). The method and its tested false-positive rate are in docs/history.md:
// the series is fitted as piecewise constant by exact optimal partitioning (the Potts
// functional with an L1 cost, as asv's step_detect), the penalty per segment scaled by a
// robust estimate of the noise; steps smaller than min_relative_step are merged away.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace gpubench {

struct ChangePointOptions {
    // A step smaller than this fraction of the level before it is never reported, however
    // clean the series: run-to-run noise of a few percent is not a change.
    double min_relative_step = 0.05;
    // The penalty per segment, in units of the noise estimate times ln(n + 1): higher finds
    // fewer steps. 3 keeps Gaussian 2% noise well under 1% false positives while finding 20%
    // steps of two points (the rates are measured by tests/test_change_points.cpp).
    double penalty = 3.0;
};

// A step between points[index - 1] and points[index].
struct ChangePoint {
    size_t index = 0;
    double before = 0, after = 0;  // the fitted levels on either side (medians of the segments)
    double relative_step() const { return before != 0 ? (after - before) / std::fabs(before) : 0; }
};

// The steps of `series` (one value per commit, oldest first), in order. Every segment holds
// at least two points, except the newest: one point unlike all before it is reported (it
// may be a step or an outlier; the next run tells), one such point in the middle is not.
std::vector<ChangePoint> find_change_points(const std::vector<double> &series,
                                            const ChangePointOptions &options = {});

}  // namespace gpubench
