// The device trace and the GPU counters of a build without CUPTI's headers: nothing traces
// nor counts, and entries say why.
#include "device_trace.hpp"
#include "gpu_counters.hpp"

namespace gpubench {

DeviceTrace *device_trace(std::string &why_not) {
    why_not = "gpubench was built without CUPTI's headers";
    return nullptr;
}

std::unique_ptr<GpuCounterSession> open_gpu_counters(std::string &why_not) {
    why_not = "this gpubench was built without CUPTI's headers";
    return nullptr;
}

}  // namespace gpubench
