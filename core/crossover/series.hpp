// A series: one backend's measured sizes (one plugin, parameter setting and device), each with
// the samples of one figure per result (seconds, or joules). What the cost model is fitted to
// and what the crossover resamples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

struct SeriesPoint {
    uint64_t size = 0;
    std::vector<double> samples;  // per result; their median is the figure fitted
    // The cache level its working set was read from ("L2", "DRAM"...; "" unknown): where it
    // changes between sizes, the model may break (cost_model.hpp).
    std::string level;
    // When its entry finished, in seconds since the sweep began (-1: unknown): entries measured
    // together share the host's state (series_noise.hpp).
    double measured_at_s = -1;
    // Which run it came from, where runs are pooled (runner report --pool: each file a run);
    // runs share no spell, and a shift shared by a run is the drift between runs.
    size_t run = 0;
};

// Ascending by size; a size may appear more than once (measured again later in the sweep).
struct Series {
    std::string name;  // the backend, as the answer names it
    std::vector<SeriesPoint> points;
    uint64_t smallest() const { return points.empty() ? 0 : points.front().size; }
    uint64_t largest() const { return points.empty() ? 0 : points.back().size; }
};

}  // namespace gpubench
