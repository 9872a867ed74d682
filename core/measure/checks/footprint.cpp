#include "check.hpp"

#include "host_resources.hpp"
#include "text_format.hpp"

namespace gpubench {

extern const Check footprint_check{
    "footprint", CheckVerdict::skipped, "the plugin's declared footprint does not fit in the memory available",
    "before create(), the host and device bytes `work()` declares (`host_bytes`, `device_bytes`) "
    "against the host's available memory and the device's free memory: a size far too large is "
    "refused before anything is allocated",
    "`out of memory: needs ~96 GiB of device memory, 79.1 GiB available (the plugin's declared footprint)`",
    nullptr};  // judged before set-up (read_work, measure.cpp)

std::string footprint_problem(const Work &work, const PhaseTimer &timer) {
    const auto gib = [](double bytes) { return format_text("%.3g GiB", bytes / (1024.0 * 1024 * 1024)); };
    const auto check = [&](double needed, std::optional<uint64_t> available, const char *what) {
        if (!available || needed <= static_cast<double>(*available)) return std::string();
        return "needs ~" + gib(needed) + " of " + what + ", " + gib(static_cast<double>(*available)) +
               " available (the plugin's declared footprint)";
    };
    std::string problem = check(work.host_bytes, available_host_memory(), "host memory");
    if (const auto device = timer.device_memory(); problem.empty() && device)
        problem = check(work.device_bytes, device->free, "device memory");
    return problem;
}

}  // namespace gpubench
