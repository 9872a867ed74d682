#include "check.hpp"

#include "leak.hpp"

namespace gpubench {

extern const Check out_of_memory_after_runs_check{
    "out_of_memory_after_runs", CheckVerdict::error,
    "out of memory once a run() had succeeded: the plugin's fault, most likely a leak",
    "`GPUBENCH_OUT_OF_MEMORY` from any phase once a `run()` has completed",
    "`… (after 313 successful runs: leaks 256 MiB of device memory per"
    " run())`",
    nullptr};  // judged where the failure is recorded (judge_out_of_memory)

void judge_out_of_memory(Measurement &result, size_t runs_done, LeakWatch *leaks) {
    if (runs_done == 0) return;  // before any run() completed the size does not fit: skipped
    result.status = out_of_memory_after_runs_check.status();
    result.refused_by = out_of_memory_after_runs_check.name;
    std::string leak;
    if (leaks) {
        leaks->read_now(runs_done);
        leak = leaks->leak();
    }
    result.message += " (after " + std::to_string(runs_done) + " successful runs: " +
                      (leak.empty() ? "memory that run() does not give back?" : leak) + ")";
}

}  // namespace gpubench
