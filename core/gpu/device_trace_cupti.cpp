// The device trace through CUPTI's activity API (cupti_library.hpp).
#include "device_trace.hpp"

#include "cupti_detach.hpp"
#include "cupti_library.hpp"
#include "text_format.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

constexpr char hold_kernel[] = "gpubench_stream_hold";  // the runner's own (stream_hold_cuda.cpp)

// The records of the calls being traced, filled by CUPTI's buffer callbacks.
struct Records {
    std::mutex mutex;
    TracedCall call;
    size_t dropped = 0;
};
Records records;
const CuptiApi *api = nullptr;  // with its activity API, once device_trace() found it

std::string demangled(const char *name) {
    if (!name) return "kernel (unnamed)";
    int status = 0;
    char *plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string text = status == 0 && plain ? plain : name;
    std::free(plain);
    if (text.size() > 120) text = text.substr(0, 117) + "...";
    return "kernel " + text;
}

std::string byte_count(uint64_t bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB"};
    int unit = 0;
    double value = static_cast<double>(bytes);
    while (value >= 1024 && unit < 3) value /= 1024, ++unit;
    return format_text(unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
}

const char *copy_kind(uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "";
    }
}

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    constexpr size_t bytes = 1 << 20;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, bytes));
    *size = *buffer ? bytes : 0;
    *max_records = 0;  // as many as fit
}

// Kernel, copy and memset records share these fields: `record` is a Record, `what` names its work.
template <class Record, class What>
void add(const CUpti_Activity *record, What what) {
    const Record &r = *reinterpret_cast<const Record *>(record);
    records.call.work.push_back({.what = what(r), .device = static_cast<int>(r.deviceId), .start_ns = r.start,
                                 .end_ns = r.end, .id = {r.contextId, r.streamId}, .correlation = r.correlationId});
}

void add_wait(const CUpti_ActivitySynchronization2 &s) {
    TracedWait::Kind kind;
    switch (s.type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: kind = TracedWait::stream_waits_event; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: kind = TracedWait::host_waits_event; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: kind = TracedWait::host_waits_stream; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: kind = TracedWait::host_waits_context; break;
    default: return;
    }
    if (s.returnValue != 0) return;  // a wait that failed ordered nothing
    records.call.waits.push_back({.kind = kind, .stream = {s.contextId, s.streamId}, .correlation = s.correlationId,
                                  .sync_id = s.cudaEventSyncId});
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer, size_t,
                               size_t valid) {
    {
        std::lock_guard lock(records.mutex);
        CUpti_Activity *record = nullptr;
        while (api->activity->next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
            switch (record->kind) {
            case CUPTI_ACTIVITY_KIND_KERNEL:
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
                add<CUpti_ActivityKernel10>(record, [](const auto &k) { return demangled(k.name); });
                break;
            case CUPTI_ACTIVITY_KIND_MEMCPY:
                add<CUpti_ActivityMemcpy6>(record, [](const auto &c) {
                    return std::string("memcpy ") + copy_kind(c.copyKind) + " " + byte_count(c.bytes);
                });
                break;
            case CUPTI_ACTIVITY_KIND_MEMCPY2:
                add<CUpti_ActivityMemcpyPtoP4>(record,
                                               [](const auto &c) { return "memcpy peer " + byte_count(c.bytes); });
                break;
            case CUPTI_ACTIVITY_KIND_MEMSET:
                add<CUpti_ActivityMemset4>(record, [](const auto &m) { return "memset " + byte_count(m.bytes); });
                break;
            case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
                const auto &e = *reinterpret_cast<const CUpti_ActivityCudaEvent2 *>(record);
                records.call.records.push_back({{e.contextId, e.streamId}, e.correlationId, e.cudaEventSyncId});
                break;
            }
            case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
                add_wait(*reinterpret_cast<const CUpti_ActivitySynchronization2 *>(record));
                break;
            default: break;
            }
        }
        size_t dropped = 0;
        if (api->activity->dropped_records(context, stream, &dropped) == CUPTI_SUCCESS) records.dropped += dropped;
    }
    std::free(buffer);
}

constexpr CUpti_ActivityKind traced_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
    // What orders streams: event records and the waits for them. (Their device timestamps,
    // cuptiActivityEnableCudaEventDeviceTimestamps, hung the first traced call on an H200 with
    // CUDA 13.0's CUPTI: the order is proved by the records alone.)
    CUPTI_ACTIVITY_KIND_CUDA_EVENT, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};

// Driver calls the runtime lacks: a stream's context, and whether a device's primary context
// exists (its work must be waited for; one that does not exist must not be made).
struct Driver {
    decltype(&cuStreamGetCtx) stream_context = nullptr;
    decltype(&cuDevicePrimaryCtxGetState) primary_state = nullptr;
};

class CuptiTrace final : public DeviceTrace {
public:
    CuptiTrace(std::string name, Driver driver) : name_(std::move(name)), driver_(driver) {}
    const std::string &name() const override { return name_; }

    std::string watch(const std::vector<void *> &runner_streams) override {
        watched_ = runner_streams;
        // Detached: named when CUPTI attaches again (a CUPTI call now would attach it early).
        if (registered_at_ != cupti_detaches()) return "";
        runner_.clear();
        named_.clear();
        for (void *stream : runner_streams) {
            const auto key = key_of(static_cast<CUstream>(stream), 0);
            if (!key) return "CUPTI did not identify the runner's stream";
            runner_.push_back(*key);
            named_.push_back({*key, "the runner's stream"});
            // The default streams of that context, named where a plugin's work lands by mistake.
            if (const auto legacy = key_of(CU_STREAM_LEGACY, 0, stream))
                named_.push_back({*legacy, "the legacy default stream"});
            if (const auto per_thread = key_of(CU_STREAM_PER_THREAD, 1, stream))
                named_.push_back({*per_thread, "the per-thread default stream"});
        }
        return "";
    }

    void attach() override {
        if (registered_at_ != cupti_detaches()) attach_again();
    }

    // A detach counts in cupti_detaches(): the next attach() registers again. Nothing to do
    // where CUPTI is out of the process already.
    void detach() override {
        if (registered_at_ == cupti_detaches()) stays_attached_ = cupti_detach(*api);
    }

    void begin() override {
        attach();
        {
            std::lock_guard lock(records.mutex);
            records.call = TracedCall{};
            records.dropped = 0;
        }
        for (CUpti_ActivityKind kind : traced_kinds)
            cupti_check(*api, api->activity->enable(kind), "cuptiActivityEnable");
    }

    std::string stays_attached() const override { return stays_attached_; }

    TracedCall end() override {
        const cudaError_t waited = wait_for_devices();
        for (CUpti_ActivityKind kind : traced_kinds) api->activity->disable(kind);
        const CUptiResult flushed = api->activity->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        cupti_check(*api, flushed, "cuptiActivityFlushAll");
        if (waited != cudaSuccess)
            throw std::runtime_error(std::string("waiting for the traced work: ") +
                                     cudaGetErrorString(waited));
        std::lock_guard lock(records.mutex);
        if (records.dropped)
            throw std::runtime_error("the device trace dropped " + std::to_string(records.dropped) +
                                     " records");
        TracedCall call = std::move(records.call);
        records.call = TracedCall{};
        std::vector<TracedWork> work;
        for (TracedWork &w : call.work) {
            w.runner_stream = std::find(runner_.begin(), runner_.end(), w.id) != runner_.end();
            if (w.runner_stream && w.what == std::string("kernel ") + hold_kernel) continue;
            w.stream = stream_name(w.id);
            work.push_back(std::move(w));
        }
        call.work = std::move(work);
        call.runner_streams = runner_;
        return call;
    }

private:
    // After a detach: the buffer callbacks and the streams' ids, which CUPTI numbers afresh.
    void attach_again() {
        cupti_check(*api, api->activity->register_callbacks(buffer_requested, buffer_completed),
                    "cuptiActivityRegisterCallbacks");
        registered_at_ = cupti_detaches();
        if (const std::string why = watch(watched_); !why.empty())
            throw std::runtime_error("after CUPTI attached again: " + why);
    }

    // A stream's identity in CUPTI's records (its context is of one device); `owner` (a stream
    // of the same context) gives the context of a default stream, whose handle does not name one.
    std::optional<TracedStream> key_of(CUstream stream, uint8_t per_thread, void *owner = nullptr) const {
        CUcontext context = nullptr;
        if (driver_.stream_context(owner ? static_cast<CUstream>(owner) : stream, &context) !=
            CUDA_SUCCESS)
            return std::nullopt;
        uint32_t context_id = 0, stream_id = 0;
        if (api->activity->context_id(context, &context_id) != CUPTI_SUCCESS ||
            api->activity->stream_id(context, stream, per_thread, &stream_id) != CUPTI_SUCCESS)
            return std::nullopt;
        return TracedStream{context_id, stream_id};
    }

    std::string stream_name(const TracedStream &key) const {
        for (const auto &[named, name] : named_)
            if (named == key) return name;
        return "stream " + std::to_string(key.stream) + " (context " + std::to_string(key.context) + ")";
    }

    // Every device whose primary context exists: work a plugin put on another GPU is traced
    // only once it completes.
    cudaError_t wait_for_devices() const {
        int current = 0, count = 0;
        cudaError_t status = cudaGetDevice(&current);
        if (status == cudaSuccess) status = cudaGetDeviceCount(&count);
        for (int device = 0; status == cudaSuccess && device < count; ++device) {
            unsigned flags = 0;
            int active = 0;
            if (device != current &&
                (driver_.primary_state(device, &flags, &active) != CUDA_SUCCESS || !active))
                continue;
            status = cudaSetDevice(device);
            if (status == cudaSuccess) status = cudaDeviceSynchronize();
        }
        const cudaError_t back = cudaSetDevice(current);
        return status != cudaSuccess ? status : back;
    }

    std::string name_;
    Driver driver_;
    uint64_t registered_at_ = cupti_detaches();  // the buffer callbacks' attachment
    std::vector<void *> watched_;                // the runner's streams, as watch() got them
    std::string stays_attached_ = "not detached since it was loaded";
    std::vector<TracedStream> runner_;
    std::vector<std::pair<TracedStream, std::string>> named_;
};

}  // namespace

DeviceTrace *device_trace(std::string &why_not) {
    static std::string failure;
    static std::unique_ptr<DeviceTrace> trace = []() -> std::unique_ptr<DeviceTrace> {
        if (const char *off = std::getenv("GPUBENCH_DEVICE_TRACE"); off && std::string(off) == "0") {
            failure = "off (GPUBENCH_DEVICE_TRACE=0)";
            return nullptr;
        }
        const CuptiApi *loaded = cupti_api(failure);
        if (!loaded) return nullptr;
        if (!loaded->activity) {
            failure = "the CUPTI found lacks an entry point gpubench uses";
            return nullptr;
        }
        Driver driver;
        if (!driver_entry("cuStreamGetCtx", driver.stream_context) ||
            !driver_entry("cuDevicePrimaryCtxGetState", driver.primary_state)) {
            failure = "the CUDA driver lacks cuStreamGetCtx or cuDevicePrimaryCtxGetState";
            return nullptr;
        }
        api = loaded;
        if (const CUptiResult r = api->activity->register_callbacks(buffer_requested, buffer_completed);
            r != CUPTI_SUCCESS) {
            failure = "CUPTI refused its callbacks (" + cupti_error_text(*api, r) +
                      "): another tool may be tracing this process";
            return nullptr;
        }
        return std::make_unique<CuptiTrace>("CUPTI " + api->version, driver);
    }();
    why_not = trace ? "" : failure;
    return trace.get();
}

}  // namespace gpubench
