// The device trace of a build without CUPTI's headers: nothing traces, and entries say why.
#include "device_trace.hpp"

namespace gpubench {

DeviceTrace *device_trace(std::string &why_not) {
    why_not = "gpubench was built without CUPTI's headers";
    return nullptr;
}

}  // namespace gpubench
