// Simulated series for the crossover's tests: known truths, sizes, samples with noise within
// and between entries, and runs in spells, as a shared host gives them.
#pragma once

#include "crossover.hpp"
#include "series.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace simulated_series {

using namespace gpubench;

using Truth = std::function<double(double)>;

// The series `truth` gives at `sizes`: `samples` per size, each off by `within` (lognormal sd),
// every entry's median off by `between` too.
inline Series simulated(const std::string &name, const Truth &truth, const std::vector<uint64_t> &sizes, double within,
                 double between, std::mt19937_64 &random, size_t samples = 15) {
    std::normal_distribution<double> normal(0.0, 1.0);
    Series series{name, {}};
    for (uint64_t size : sizes) {
        const double entry = truth(double(size)) * std::exp(between * normal(random));
        SeriesPoint point{size, {}, ""};
        for (size_t i = 0; i < samples; ++i) point.samples.push_back(entry * std::exp(within * normal(random)));
        series.points.push_back(std::move(point));
    }
    std::sort(series.points.begin(), series.points.end(),
              [](const SeriesPoint &a, const SeriesPoint &b) { return a.size < b.size; });
    return series;
}

inline std::vector<uint64_t> log_sizes(double from, double to, size_t count) {
    std::vector<uint64_t> sizes;
    for (size_t i = 0; i < count; ++i)
        sizes.push_back(uint64_t(std::round(from * std::pow(to / from, double(i) / double(count - 1)))));
    return sizes;
}

// A CPU that starts at once and a GPU with a launch's latency and ten times the throughput:
// they meet at (10e-6 - 0.5e-6) / (1e-9 - 1e-10) = 10,555.6.
inline const Truth cpu_time = [](double n) { return 0.5e-6 + n * 1e-9; };
inline const Truth gpu_time = [](double n) { return 10e-6 + n * 1e-10; };
inline constexpr double true_crossover = 9.5e-6 / 0.9e-9;


// A run of the sweep in three spells (its pass over nine sizes, then two rounds of three sizes
// near n*), each moving a series' entries together by `spell_sd` (lognormal): the host's state
// in that spell, which a second run meets otherwise.
inline Series run_in_spells(const std::string &name, const Truth &truth, double spell_sd, std::mt19937_64 &random) {
    std::normal_distribution<double> normal(0.0, 1.0);
    const std::vector<std::vector<uint64_t>> spells{log_sizes(100, 1e6, 9), {6000, 9000, 14000}, {7500, 11000, 12500}};
    Series series{name, {}};
    double at = 0;
    for (const std::vector<uint64_t> &sizes : spells) {
        const double shift = std::exp(spell_sd * normal(random));
        at += 60;  // the other backends' entries between spells
        for (const SeriesPoint &p :
             simulated(name, [&](double n) { return truth(n) * shift; }, sizes, 0.04, 0.02, random).points) {
            series.points.push_back(p);
            series.points.back().measured_at_s = at += 1;
        }
    }
    std::sort(series.points.begin(), series.points.end(),
              [](const SeriesPoint &a, const SeriesPoint &b) { return a.size < b.size; });
    return series;
}

inline bool holds(const Crossover &c, double size) { return c.size.lo <= size && size <= c.size.hi; }

}  // namespace simulated_series
