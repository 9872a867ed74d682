#include "check.hpp"

namespace gpubench {

// CUPTI, once it has traced, adds host time to every CUDA call of the process (cupti_detach.hpp);
// the device trace detaches it after each traced cycle, and where it cannot, the entry says so.
extern const Check cupti_attached_check{
    "cupti_attached", CheckVerdict::flag,
    "CUPTI stayed in the process during the entry (--counters, or another tool holding its "
    "callbacks): run()'s host times (host/call) include its cost in every CUDA call",
    "`stream_audit.traced.stays_attached` says why; for launch overhead, measure without "
    "`--counters` or with `--no-device-trace`",
    "", [](const Measurement &e) -> std::string {
        return e.stream_audit.traced.stays_attached.empty() ? "" : "cupti_attached";
    }};

}  // namespace gpubench
