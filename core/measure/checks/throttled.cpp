#include "check.hpp"

namespace gpubench {

namespace {
std::string throttled(const Measurement &e) { return e.resources.throttled() ? "throttled" : ""; }
}  // namespace

extern const Check throttled_check{
    "throttled", CheckVerdict::flag,
    "NVML reported a power or thermal slowdown of the GPU while sampling",
    "the clock-event reasons NVML gives at the start and end of sampling (`resources.gpu_before/after`)",
    "", throttled};

}  // namespace gpubench
