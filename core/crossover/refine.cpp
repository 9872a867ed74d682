#include "refine.hpp"

#include <algorithm>
#include <cmath>

namespace gpubench {

namespace {

// Whether `size` is new: not within 2% of a measured or already chosen size.
bool is_new(double size, const std::vector<uint64_t> &measured, const std::vector<uint64_t> &chosen) {
    const auto near = [&](uint64_t other) { return std::abs(double(other) / size - 1) < 0.02; };
    return size >= 1 && std::none_of(measured.begin(), measured.end(), near) &&
           std::none_of(chosen.begin(), chosen.end(), near);
}

}  // namespace

std::vector<uint64_t> sizes_to_refine(const Crossover &crossover, const std::vector<uint64_t> &measured,
                                      size_t count) {
    // A never's reach lies among the largest sizes, the dearest to measure: its interval says it.
    const bool from = crossover.verdict == CrossoverVerdict::from, always = crossover.verdict == CrossoverVerdict::always;
    if (!(from || always) || crossover.within(crossover_precision) || count == 0) return {};
    // From: the measured sizes bracketing n*, within its interval. Always: its interval, from the
    // smallest size up to where a near tie reaches (the GPU may lose at a size there unmeasured).
    const double n = crossover.size.value;
    double below = crossover.smallest, above = std::min(crossover.largest, crossover.size.hi);
    if (from) {
        for (uint64_t size : measured) {
            if (double(size) <= n) below = std::max(below, double(size));
            if (double(size) >= n) above = std::min(above, double(size));
        }
        below = std::max(below, crossover.size.lo);
    }
    std::vector<uint64_t> chosen;
    const double span = std::log(above / below);
    for (size_t i = 1; i <= count && span > 0; ++i) {
        const double size = std::round(below * std::exp(span * double(i) / double(count + 1)));
        if (is_new(size, measured, chosen)) chosen.push_back(uint64_t(size));
    }
    // No room left between the bracket's sizes: beside n*, nearest first.
    for (double step : {0.05, -0.05, 0.1, -0.1, 0.2, -0.2})
        if (from && chosen.size() < count && is_new(std::round(n * (1 + step)), measured, chosen))
            chosen.push_back(uint64_t(std::round(n * (1 + step))));
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

}  // namespace gpubench
