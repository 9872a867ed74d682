// CUPTI, loaded with dlopen once per process for the device trace and the GPU counters:
// gpubench never links it, so that a machine without it runs every plugin, and says what it
// could not do. Entry points are typed from CUPTI's own headers.
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

// Each entry point gpubench calls, as X(field, symbol): the one list that both declares
// the API structs' fields and resolves them (cupti_library.cpp).
#define GPUBENCH_CUPTI_ENTRY_POINT(field, symbol) decltype(&symbol) field;

// The activity API: the device trace's records.
#define GPUBENCH_CUPTI_ACTIVITY(X)                        \
    X(register_callbacks, cuptiActivityRegisterCallbacks) \
    X(enable, cuptiActivityEnable)                        \
    X(disable, cuptiActivityDisable)                      \
    X(flush_all, cuptiActivityFlushAll)                   \
    X(next_record, cuptiActivityGetNextRecord)            \
    X(dropped_records, cuptiActivityGetNumDroppedRecords) \
    X(stream_id, cuptiGetStreamIdEx)                      \
    X(context_id, cuptiGetContextId)
struct CuptiActivityApi {
    GPUBENCH_CUPTI_ACTIVITY(GPUBENCH_CUPTI_ENTRY_POINT)
};

// The range profiler and its host API: the GPU counters.
#define GPUBENCH_CUPTI_RANGE_PROFILER(X)                                     \
    X(initialize, cuptiProfilerInitialize)                                   \
    X(device_supported, cuptiProfilerDeviceSupported)                        \
    X(chip_name, cuptiDeviceGetChipName)                                     \
    X(counter_availability, cuptiProfilerGetCounterAvailability)             \
    X(host_initialize, cuptiProfilerHostInitialize)                          \
    X(base_metrics, cuptiProfilerHostGetBaseMetrics)                         \
    X(add_metrics, cuptiProfilerHostConfigAddMetrics)                        \
    X(config_size, cuptiProfilerHostGetConfigImageSize)                      \
    X(config_image, cuptiProfilerHostGetConfigImage)                         \
    X(pass_count, cuptiProfilerHostGetNumOfPasses)                           \
    X(evaluate, cuptiProfilerHostEvaluateToGpuValues)                        \
    X(enable, cuptiRangeProfilerEnable)                                      \
    X(disable, cuptiRangeProfilerDisable)                                    \
    X(counter_data_size, cuptiRangeProfilerGetCounterDataSize)               \
    X(counter_data_initialize, cuptiRangeProfilerCounterDataImageInitialize) \
    X(set_config, cuptiRangeProfilerSetConfig)                               \
    X(start, cuptiRangeProfilerStart)                                        \
    X(stop, cuptiRangeProfilerStop)                                          \
    X(push_range, cuptiRangeProfilerPushRange)                               \
    X(pop_range, cuptiRangeProfilerPopRange)                                 \
    X(decode, cuptiRangeProfilerDecodeData)                                  \
    X(counter_data_info, cuptiRangeProfilerGetCounterDataInfo)
struct CuptiRangeProfilerApi {
    GPUBENCH_CUPTI_RANGE_PROFILER(GPUBENCH_CUPTI_ENTRY_POINT)
};

// Taking CUPTI out of the process again (cupti_detach.hpp).
#define GPUBENCH_CUPTI_ATTACH(X)            \
    X(subscribe, cuptiSubscribe)            \
    X(unsubscribe, cuptiUnsubscribe)        \
    X(enable_domain, cuptiEnableDomain)     \
    X(finalize, cuptiFinalize)
struct CuptiAttachApi {
    GPUBENCH_CUPTI_ATTACH(GPUBENCH_CUPTI_ENTRY_POINT)
};

struct CuptiApi {
    decltype(&cuptiGetResultString) result_string = nullptr;
    std::string version;  // "12.6"
    // Each nullopt where the library lacks one of its entry points (the range profiler came
    // with CUDA 12.6).
    std::optional<CuptiActivityApi> activity;
    std::optional<CuptiRangeProfilerApi> range_profiler;
    std::optional<CuptiAttachApi> attach;
};

// The library's entry points, or nullptr with `why_not` set: not found, or of another major
// version than the headers (its records and structs may be laid out differently).
const CuptiApi *cupti_api(std::string &why_not);

// CUPTI's text for `result` (saying how to allow profiling where privileges are lacking), and
// a check that throws std::runtime_error("call: text") on a result other than success.
std::string cupti_error_text(const CuptiApi &api, CUptiResult result);
void cupti_check(const CuptiApi &api, CUptiResult result, const char *call);

// A driver call through the runtime's entry-point query (gpubench links no libcuda); false
// where the driver lacks it.
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
