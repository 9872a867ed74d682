// The GPU's counters through CUPTI's range profiler and its host API: one user range around
// the counted call, user replay (the caller makes the call once per pass). Metric names are
// Nsight Compute's, so that its figures for the same kernels compare one to one.
#include "gpu_counters.hpp"

#include "cupti_detach.hpp"
#include "cupti_library.hpp"
#include "gpu_counter_figures.hpp"

#include <cuda.h>

#include <map>
#include <set>
#include <stdexcept>

namespace gpubench {
namespace {

// CUPTI's range profiler and the driver calls that find the context it counts in.
struct ProfilerApi {
    const CuptiApi *cupti = nullptr;
    const CuptiRangeProfilerApi *range = nullptr;
    decltype(&cuCtxGetCurrent) current_context = nullptr;
    decltype(&cuCtxGetDevice) context_device = nullptr;
};

// CUPTI's parameter struct `Type`: its size, the fields given (in the struct's order), the
// rest zero.
#define GPUBENCH_CUPTI_PARAMS(Type, ...) Type{.structSize = Type##_STRUCT_SIZE, __VA_ARGS__}

void check(const ProfilerApi &api, CUptiResult result, const char *call) {
    cupti_check(*api.cupti, result, call);
}

// Loaded and cuptiProfilerInitialize'd once per process; nullptr with `why_not` otherwise.
const ProfilerApi *profiler_api(std::string &why_not) {
    static std::string failure;
    static const ProfilerApi *const loaded = []() -> const ProfilerApi * {
        const CuptiApi *cupti = cupti_api(failure);
        if (!cupti) return nullptr;
        if (!cupti->range_profiler) {
            failure = "the CUPTI found has no range profiler (CUDA 12.6 or later has)";
            return nullptr;
        }
        static ProfilerApi api{cupti, &*cupti->range_profiler};
        if (!driver_entry("cuCtxGetCurrent", api.current_context) ||
            !driver_entry("cuCtxGetDevice", api.context_device)) {
            failure = "the CUDA driver lacks cuCtxGetCurrent or cuCtxGetDevice";
            return nullptr;
        }
        CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if (const CUptiResult r = api.range->initialize(&init); r != CUPTI_SUCCESS) {
            failure = "cuptiProfilerInitialize: " + cupti_error_text(*api.cupti, r);
            return nullptr;
        }
        keep_cupti_attached();  // its host objects and chip configs live as long as the process
        return &api;
    }();
    why_not = loaded ? "" : failure;
    return loaded;
}

// What the chip counts: its base metrics of every type.
std::set<std::string> base_metrics(const ProfilerApi &api, CUpti_Profiler_Host_Object *host) {
    std::set<std::string> names;
    for (CUpti_MetricType type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
        auto params = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, .pHostObject = host,
                                            .metricType = type);
        check(api, api.range->base_metrics(&params), "cuptiProfilerHostGetBaseMetrics");
        for (size_t i = 0; i < params.numMetrics; ++i) names.insert(params.ppMetricNames[i]);
    }
    return names;
}

// A chip's host object, the figures it can count and the config image asking for their
// metrics: made once per chip and process (a few tens of milliseconds).
struct ChipConfig {
    CUpti_Profiler_Host_Object *host = nullptr;
    std::vector<CounterFigure> figures;
    std::vector<const char *> metric_names;  // into figures' terms
    std::vector<uint8_t> image;
    size_t passes = 0;  // how many the hardware needs to count them all
    std::vector<double> floor;  // each metric in a range around nothing (the first session's)
};

ChipConfig &chip_config(const ProfilerApi &api, CUcontext context, const std::string &chip) {
    static std::map<std::string, ChipConfig> configs;
    if (const auto known = configs.find(chip); known != configs.end()) return known->second;
    auto availability = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, .ctx = context);
    check(api, api.range->counter_availability(&availability), "cuptiProfilerGetCounterAvailability");
    std::vector<uint8_t> available(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = available.data();
    check(api, api.range->counter_availability(&availability), "cuptiProfilerGetCounterAvailability");

    ChipConfig config;
    auto init = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params,
                                      .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER, .pChipName = chip.c_str(),
                                      .pCounterAvailabilityImage = available.data());
    check(api, api.range->host_initialize(&init), "cuptiProfilerHostInitialize");
    config.host = init.pHostObject;

    config.figures = chip_figures(base_metrics(api, config.host));
    for (const CounterFigure &figure : config.figures)
        for (const auto &[metric, weight] : figure.terms) config.metric_names.push_back(metric.c_str());
    if (config.figures.empty()) throw std::runtime_error("the chip " + chip + " counts none of gpubench's metrics");
    auto add = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, .pHostObject = config.host,
                                     .ppMetricNames = config.metric_names.data(),
                                     .numMetrics = config.metric_names.size());
    check(api, api.range->add_metrics(&add), "cuptiProfilerHostConfigAddMetrics");
    auto size = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, .pHostObject = config.host);
    check(api, api.range->config_size(&size), "cuptiProfilerHostGetConfigImageSize");
    config.image.resize(size.configImageSize);
    auto image = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, .pHostObject = config.host,
                                       .configImageSize = config.image.size(), .pConfigImage = config.image.data());
    check(api, api.range->config_image(&image), "cuptiProfilerHostGetConfigImage");
    auto passes = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params,
                                        .configImageSize = config.image.size(), .pConfigImage = config.image.data());
    check(api, api.range->pass_count(&passes), "cuptiProfilerHostGetNumOfPasses");
    config.passes = passes.numOfPasses;
    return configs.emplace(chip, std::move(config)).first->second;
}

// Why the device cannot be profiled, or "" where it can.
std::string unsupported(const ProfilerApi &api, CUdevice device) {
    auto params = GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, .cuDevice = device,
                                        .api = CUPTI_PROFILER_RANGE_PROFILING);
    if (api.range->device_supported(&params) != CUPTI_SUCCESS || params.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return "";
    const std::pair<CUpti_Profiler_Support_Level, const char *> reasons[] = {
        {params.architecture, "its architecture has no profiler (compute capability 7.0 or later has)"},
        {params.vGpu, "a vGPU whose profiling is not enabled"},
        {params.confidentialCompute, "confidential computing is on"},
        {params.sli, "SLI is on"},
        {params.cmp, "a mining processor (CMP)"},
        {params.wsl, "WSL does not allow it"}};
    for (const auto &[level, why] : reasons)
        if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return std::string("the device cannot be profiled: ") + why;
    return "the device cannot be profiled (cuptiProfilerDeviceSupported)";
}

class CuptiCounterSession final : public GpuCounterSession {
public:
    CuptiCounterSession(const ProfilerApi &api, ChipConfig &config, CUcontext context)
        : api_(api), config_(config), context_(context) {
        // The profiler's own traffic (its records go through the L2: some 2 MB a range on an
        // H100), counted once per process in a range around nothing, taken off every count.
        begin();
        if (config_.floor.empty()) {
            do start_pass();
            while (!end_pass());
            config_.floor = evaluate();
            disable();
            begin();
        }
    }
    ~CuptiCounterSession() override { disable(); }

    std::string name() const override { return "CUPTI " + api_.cupti->version + " range profiler"; }
    size_t passes() const override { return config_.passes; }

    void start_pass() override {
        wait_for_device();  // the inputs' upload is not counted
        auto start = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, .pRangeProfilerObject = profiler_);
        check(api_, api_.range->start(&start), "cuptiRangeProfilerStart");
        auto push = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params, .pRangeProfilerObject = profiler_,
                                          .pRangeName = "run");
        check(api_, api_.range->push_range(&push), "cuptiRangeProfilerPushRange");
    }

    bool end_pass() override {
        wait_for_device();
        auto pop = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params, .pRangeProfilerObject = profiler_);
        check(api_, api_.range->pop_range(&pop), "cuptiRangeProfilerPopRange");
        auto stop = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, .pRangeProfilerObject = profiler_);
        check(api_, api_.range->stop(&stop), "cuptiRangeProfilerStop");
        if (++passes_ > max_passes && !stop.isAllPassSubmitted)
            throw std::runtime_error("the counters asked for more than " + std::to_string(max_passes) + " passes");
        return stop.isAllPassSubmitted != 0;
    }

    std::vector<std::pair<std::string, double>> read() override {
        CountedFigures counted = evaluate_figures(config_.figures, evaluate(), config_.floor);
        caveat_ = std::move(counted.caveat);
        return std::move(counted.values);
    }
    std::string caveat() const override { return caveat_; }

private:
    static constexpr int max_passes = 64;  // a call the counters could not converge on

    // A profiler object on the context, configured for one range.
    void begin() {
        auto enable = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, .ctx = context_);
        check(api_, api_.range->enable(&enable), "cuptiRangeProfilerEnable");
        profiler_ = enable.pRangeProfilerObject;
        passes_ = 0;
        try {
            configure();
        } catch (...) {
            disable();
            throw;
        }
    }

    void configure() {
        auto size = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params,
                                          .pRangeProfilerObject = profiler_,
                                          .pMetricNames = const_cast<const char **>(config_.metric_names.data()),
                                          .numMetrics = config_.metric_names.size(), .maxNumOfRanges = 1,
                                          .maxNumRangeTreeNodes = 1);
        check(api_, api_.range->counter_data_size(&size), "cuptiRangeProfilerGetCounterDataSize");
        counter_data_.assign(size.counterDataSize, 0);
        auto init = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                                          .pRangeProfilerObject = profiler_,
                                          .counterDataSize = counter_data_.size(),
                                          .pCounterData = counter_data_.data());
        check(api_, api_.range->counter_data_initialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
        auto set = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, .pRangeProfilerObject = profiler_,
                                         .configSize = config_.image.size(), .pConfig = config_.image.data(),
                                         .counterDataImageSize = counter_data_.size(),
                                         .pCounterDataImage = counter_data_.data(), .range = CUPTI_UserRange,
                                         .replayMode = CUPTI_UserReplay, .maxRangesPerPass = 1,
                                         .numNestingLevels = 1, .minNestingLevel = 1, .passIndex = 0,
                                         .targetNestingLevel = 1);
        check(api_, api_.range->set_config(&set), "cuptiRangeProfilerSetConfig");
    }

    // Each metric's value over the one range, in config_.metric_names' order.
    std::vector<double> evaluate() {
        auto decode =
            GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, .pRangeProfilerObject = profiler_);
        check(api_, api_.range->decode(&decode), "cuptiRangeProfilerDecodeData");
        auto info = GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params,
                                          .pCounterDataImage = counter_data_.data(),
                                          .counterDataImageSize = counter_data_.size());
        check(api_, api_.range->counter_data_info(&info), "cuptiRangeProfilerGetCounterDataInfo");
        if (decode.numOfRangeDropped > 0 || info.numTotalRanges != 1)
            throw std::runtime_error("the range profiler kept " + std::to_string(info.numTotalRanges) +
                                     " ranges of the one counted");
        std::vector<double> values(config_.metric_names.size());
        auto evaluate = GPUBENCH_CUPTI_PARAMS(
            CUpti_Profiler_Host_EvaluateToGpuValues_Params, .pHostObject = config_.host,
            .pCounterDataImage = counter_data_.data(), .counterDataImageSize = counter_data_.size(),
            .rangeIndex = 0, .ppMetricNames = const_cast<const char **>(config_.metric_names.data()),
            .numMetrics = values.size(), .pMetricValues = values.data());
        check(api_, api_.range->evaluate(&evaluate), "cuptiProfilerHostEvaluateToGpuValues");
        return values;
    }

    void wait_for_device() {
        if (const cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess)
            throw std::runtime_error(std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(status));
    }

    void disable() {
        if (!profiler_) return;
        auto disable =
            GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, .pRangeProfilerObject = profiler_);
        api_.range->disable(&disable);
        profiler_ = nullptr;
    }

    const ProfilerApi &api_;
    ChipConfig &config_;
    CUcontext context_;
    CUpti_RangeProfiler_Object *profiler_ = nullptr;
    std::vector<uint8_t> counter_data_;
    int passes_ = 0;
    std::string caveat_;
};

}  // namespace

std::unique_ptr<GpuCounterSession> open_gpu_counters(std::string &why_not) {
    const ProfilerApi *api = profiler_api(why_not);
    if (!api) return nullptr;
    CUcontext context = nullptr;
    CUdevice device = 0;
    if (api->current_context(&context) != CUDA_SUCCESS || !context || api->context_device(&device) != CUDA_SUCCESS) {
        why_not = "no CUDA context is current on the harness's thread";
        return nullptr;
    }
    if (why_not = unsupported(*api, device); !why_not.empty()) return nullptr;
    try {
        auto chip =
            GPUBENCH_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, .deviceIndex = static_cast<size_t>(device));
        check(*api, api->range->chip_name(&chip), "cuptiDeviceGetChipName");
        return std::make_unique<CuptiCounterSession>(*api, chip_config(*api, context, chip.pChipName), context);
    } catch (const std::exception &e) {
        why_not = e.what();
        return nullptr;
    }
}

}  // namespace gpubench
