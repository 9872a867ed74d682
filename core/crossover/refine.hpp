// Where to measure next to narrow a crossover's interval: sizes between the two measured sizes
// that bracket n* (within its interval), spread evenly in log space.
#pragma once

#include "crossover.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench {

// The interval a search stops at: within this fraction of n* either side.
constexpr double crossover_precision = 0.25;

// Up to `count` new sizes for `crossover` given the sizes already `measured` (any order), none
// within 2% of one measured; none when its verdict is not `from` or its interval is already
// within crossover_precision. Where the bracket holds no room, sizes just beside n* instead.
std::vector<uint64_t> sizes_to_refine(const Crossover &crossover, const std::vector<uint64_t> &measured,
                                      size_t count = 3);

}  // namespace gpubench
