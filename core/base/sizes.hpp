// Parsing of size lists as given to --sizes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpubench {

// Parses a comma-separated list of sizes and ranges, in the order written, duplicates kept:
//   10,100,1e6         whole numbers, scientific notation allowed when it is whole
//   2^10               a power
//   2^10..2^20         every power of two from 2^10 to 2^20 (a range's default step is *2)
//   10..1e6:*10        a geometric range with factor 10
//   100..1000:+100     an arithmetic range
// Throws std::invalid_argument with a one-line message naming the offending item.
std::vector<uint64_t> parse_sizes(std::string_view text);

}  // namespace gpubench
