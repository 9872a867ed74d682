#include "check.hpp"

namespace gpubench {

extern const Check throttled_check{
    "throttled", CheckVerdict::flag,
    "NVML reported a power or thermal slowdown of the GPU while sampling",
    "the clock-event reasons NVML gives at the start and end of sampling (`resources.gpu_before/after`)",
    "", [](const Measurement &e) -> std::string { return e.resources.throttled() ? "throttled" : ""; }};

}  // namespace gpubench
