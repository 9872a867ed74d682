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
// within 2% of one measured; none when its interval is already within crossover_precision or
// its verdict is unknown or `never`. Where the bracket holds no room, sizes just beside n*
// instead. An `always` whose interval reaches into the sizes compared (a near tie at the
// smallest sizes) gets sizes within that reach: the sizes measured may have missed where the
// GPU loses (cuBLAS is faster at powers of two than between them). A `never`'s reach lies among
// the largest sizes, the dearest to measure: its interval says it, and no round is spent on it.
std::vector<uint64_t> sizes_to_refine(const Crossover &crossover, const std::vector<uint64_t> &measured,
                                      size_t count = 3);

}  // namespace gpubench
