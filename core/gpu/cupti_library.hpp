// CUPTI, loaded with dlopen once per process: gpubench never links it, so that a machine
// without it runs every plugin, and says what it could not do. The device trace
// (device_trace_cupti.cpp) and the GPU counters (gpu_counters_cupti.cpp) share the one handle.
#pragma once

#include <cuda_runtime_api.h>

#include <dlfcn.h>

#include <string>

namespace gpubench {

// The library, or nullptr with `why_not` set: not found (naming where it was looked for), or
// of another major version than the headers gpubench was built with (its records and structs
// may be laid out differently).
void *cupti_library(std::string &why_not);

// Points `function` at `name` in `library`; false where it lacks it.
template <class F>
bool cupti_symbol(void *library, F &function, const char *name) {
    function = reinterpret_cast<F>(dlsym(library, name));
    return function != nullptr;
}

// A driver call the runtime does not offer, through the runtime's entry-point query (so that
// gpubench links no libcuda); false where the driver lacks it.
template <class F>
bool driver_entry(const char *symbol, F &function) {
    void *pointer = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion(symbol, &pointer, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
        return false;
    function = reinterpret_cast<F>(pointer);
    return true;
}

}  // namespace gpubench
