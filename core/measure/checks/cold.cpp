#include "check.hpp"

namespace gpubench {

extern const Check cold_check{
    "cold", CheckVerdict::flag, "--cold: the GPU's L2 cache was flushed before each timed run", "", "",
    [](const Measurement &e) -> std::string { return e.timing.cache == "cold" ? "cold" : ""; }};

}  // namespace gpubench
