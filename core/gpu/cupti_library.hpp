// CUPTI, loaded with dlopen once per process: gpubench never links it, so that a machine
// without it runs every plugin, and says what it could not do. This is the one loader: it opens
// the library and resolves every entry point gpubench calls, typed from CUPTI's own headers,
// for the device trace (device_trace_cupti.cpp) and the GPU counters (gpu_counters_cupti.cpp).
#pragma once

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <optional>
#include <string>

namespace gpubench {

// The activity API: the device trace's records.
struct CuptiActivityApi {
    decltype(&cuptiActivityRegisterCallbacks) register_callbacks;
    decltype(&cuptiActivityEnable) enable;
    decltype(&cuptiActivityDisable) disable;
    decltype(&cuptiActivityFlushAll) flush_all;
    decltype(&cuptiActivityGetNextRecord) next_record;
    decltype(&cuptiActivityGetNumDroppedRecords) dropped_records;
    decltype(&cuptiGetStreamIdEx) stream_id;
    decltype(&cuptiGetContextId) context_id;
};

// The range profiler and its host API: the GPU counters.
struct CuptiRangeProfilerApi {
    decltype(&cuptiProfilerInitialize) initialize;
    decltype(&cuptiProfilerDeviceSupported) device_supported;
    decltype(&cuptiDeviceGetChipName) chip_name;
    decltype(&cuptiProfilerGetCounterAvailability) counter_availability;
    decltype(&cuptiProfilerHostInitialize) host_initialize;
    decltype(&cuptiProfilerHostGetBaseMetrics) base_metrics;
    decltype(&cuptiProfilerHostConfigAddMetrics) add_metrics;
    decltype(&cuptiProfilerHostGetConfigImageSize) config_size;
    decltype(&cuptiProfilerHostGetConfigImage) config_image;
    decltype(&cuptiProfilerHostGetNumOfPasses) pass_count;
    decltype(&cuptiProfilerHostEvaluateToGpuValues) evaluate;
    decltype(&cuptiRangeProfilerEnable) enable;
    decltype(&cuptiRangeProfilerDisable) disable;
    decltype(&cuptiRangeProfilerGetCounterDataSize) counter_data_size;
    decltype(&cuptiRangeProfilerCounterDataImageInitialize) counter_data_initialize;
    decltype(&cuptiRangeProfilerSetConfig) set_config;
    decltype(&cuptiRangeProfilerStart) start;
    decltype(&cuptiRangeProfilerStop) stop;
    decltype(&cuptiRangeProfilerPushRange) push_range;
    decltype(&cuptiRangeProfilerPopRange) pop_range;
    decltype(&cuptiRangeProfilerDecodeData) decode;
    decltype(&cuptiRangeProfilerGetCounterDataInfo) counter_data_info;
};

struct CuptiApi {
    decltype(&cuptiGetResultString) result_string = nullptr;
    std::string version;  // "12.6"
    // Each nullopt where the library lacks one of its entry points (the range profiler came
    // with CUDA 12.6).
    std::optional<CuptiActivityApi> activity;
    std::optional<CuptiRangeProfilerApi> range_profiler;
};

// The library's entry points, or nullptr with `why_not` set: not found (naming where it was
// looked for), or of another major version than the headers gpubench was built with (its
// records and structs may be laid out differently).
const CuptiApi *cupti_api(std::string &why_not);

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
