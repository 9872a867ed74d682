#include "check.hpp"

namespace gpubench {

namespace {
std::string cold(const Measurement &e) { return e.cache == "cold" ? "cold" : ""; }
}  // namespace

extern const Check cold_check{
    "cold", CheckVerdict::flag, "--cold: the GPU's L2 cache was flushed before each timed run", "", "", cold};

}  // namespace gpubench
