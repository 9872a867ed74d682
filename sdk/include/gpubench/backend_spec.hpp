// One backend's row in its workload's table of backends: what make_info() puts into that
// backend's descriptor. The workload adds what all its backends share (workload name, what
// the size means, parameters, item name, headline).
#pragma once

#include <gpubench/plugin.h>

#include <cstdint>
#include <vector>

namespace gpubench {

struct BackendSpec {
    const char *name, *backend;
    gpubench_device_kind device_kind;
    const char *description;
    uint64_t max_size;
    std::vector<uint64_t> default_sizes;
    const char *params_help = nullptr;  // nullptr: the workload's own
};

}  // namespace gpubench
