#include "gpu.hpp"

#include "cuda_check.hpp"
#include "elapsed.hpp"
#include "l2_bandwidth.hpp"
#include "stream_hold.hpp"
#include "text_format.hpp"
#include "thread_name.hpp"
#include "visible_devices.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <utility>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

using cuda_check::check;
using cuda_check::describe;

// A CUDA graph replayed between the timer's events, on its stream.
class CudaGraphWork final : public CapturedWork {
public:
    CudaGraphWork(cudaGraphExec_t exec, cudaStream_t stream, cudaEvent_t begin, cudaEvent_t end,
                  StreamHold *hold)
        : exec_(exec), stream_(stream), begin_(begin), end_(end), hold_(hold) {}
    ~CudaGraphWork() override { cudaGraphExecDestroy(exec_); }
    double replay(size_t times, bool hold) override {
        // Graph launches never wait for their own work: the timeout is a last resort.
        const bool held = hold && hold_->available();
        if (held) hold_->hold(1.0);
        check(cudaEventRecord(begin_, stream_), "cudaEventRecord");
        for (size_t i = 0; i < times; ++i) {
            const cudaError_t status = cudaGraphLaunch(exec_, stream_);
            if (status != cudaSuccess && held) hold_->release();
            check(status, "cudaGraphLaunch");
        }
        check(cudaEventRecord(end_, stream_), "cudaEventRecord");
        if (held) hold_->release();
        check(cudaEventSynchronize(end_), "waiting for the graph replays");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
        return ms * 1e-3;
    }

private:
    cudaGraphExec_t exec_;
    cudaStream_t stream_;
    cudaEvent_t begin_, end_;
    StreamHold *hold_;  // the timer's
};

class CudaEventTimer final : public PhaseTimer {
public:
    explicit CudaEventTimer(int device) : device_(device) {
        // NVML starts beside the CUDA context (tens of milliseconds each): the bus id needs
        // only the driver, not a context.
        char bus[32] = {};
        std::future<std::unique_ptr<NvmlProbe>> nvml;
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess)
            nvml = std::async(std::launch::async, [this, id = std::string(bus)] {
                name_this_thread("nvml-open");
                return NvmlProbe::open(id, nvml_note_);
            });
        else
            nvml_note_ = "no PCI bus id to find the device in NVML";
        check(cudaSetDevice(device), "cudaSetDevice");
        GpuInfo gpu = probe_gpu(device);
        gpu.l2_bytes_per_s = l2_bytes_per_s(gpu, true);  // measured once per GPU, then cached
        // A blocking stream: plugins that (wrongly) use the legacy default stream still
        // serialise with it, so their work stays between the events.
        check(cudaStreamCreate(&stream_), "cudaStreamCreate");
        check(cudaEventCreate(&begin_), "cudaEventCreate");
        check(cudaEventCreate(&end_), "cudaEventCreate");
        hold_ = std::make_unique<StreamHold>(stream_);
        if (nvml.valid()) nvml_ = nvml.get();
        Roofline roofline = gpu_roofline(gpu);
        roofline.interconnect =
            interconnect_peak(nvml_ ? nvml_->link_answers() : LinkAnswers{"NVML: " + nvml_note_});
        set_roofline(std::move(roofline));
        // What waiting for an idle device costs by itself, subtracted in device_drain_s().
        idle_wait_s_ = 1.0;
        for (int i = 0; i < 5; ++i) {
            const auto began = std::chrono::steady_clock::now();
            check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            idle_wait_s_ = std::min(idle_wait_s_, seconds_since(began));
        }
    }
    ~CudaEventTimer() override {
        hold_.reset();  // releases anything still held before the stream goes
        if (flush_buffer_) cudaFree(flush_buffer_);
        cudaEventDestroy(begin_);
        cudaEventDestroy(end_);
        cudaStreamDestroy(stream_);
    }
    const char *clock_name() const override { return "cuda_event"; }
    bool real_streams() const override { return true; }
    void *cuda_stream() const override { return stream_; }
    std::vector<int> cuda_devices() const override { return {device_}; }
    std::optional<DeviceMemory> device_memory() const override {
        size_t free = 0, total = 0;
        if (cudaMemGetInfo(&free, &total) != cudaSuccess) return std::nullopt;
        return DeviceMemory{free, total, nvml_ ? nvml_->compute_processes() : std::nullopt};
    }
    std::string hold_next(double timeout_s) override {
        if (!hold_->available()) return hold_->why_not();
        try {
            hold_->hold(timeout_s);
        } catch (const std::runtime_error &e) {
            return e.what();
        }
        held_ = true;
        return "";
    }
    bool hold_lasted() const override { return hold_lasted_; }
    void release_hold() override {
        if (held_) hold_lasted_ = hold_->release();
        held_ = false;
    }
    // After a hold_next(), the event waits behind the hold: the span starts with the device work.
    void start() override { check(cudaEventRecord(begin_, stream_), "cudaEventRecord"); }
    std::optional<GpuState> gpu_state() const override {
        return nvml_ ? nvml_->read() : GpuState{};
    }
    std::string gpu_state_note() const override { return nvml_note_; }
    std::optional<uint64_t> gpu_energy_mj() const override {
        return nvml_ ? nvml_->energy_mj() : std::nullopt;
    }
    // Writes, then reads, a buffer twice the size of L2 on the stream: whatever the plugin left
    // in L2 is evicted before the next sample, and the L2 holds clean lines of the buffer.
    // Allocated once, at the first flush.
    bool flush_cache() override {
        if (!flush_buffer_) {
            int device = 0, l2 = 0;
            check(cudaGetDevice(&device), "cudaGetDevice");
            check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
            flush_bytes_ = std::max<size_t>(2 * static_cast<size_t>(l2), 1 << 20);
            check(cudaMalloc(&flush_buffer_, flush_bytes_), "allocating the L2 flush buffer");
            check(cudaDeviceGetAttribute(&flush_sms_, cudaDevAttrMultiProcessorCount, device), "SM count");
        }
        check(cudaMemsetAsync(flush_buffer_, ++flush_value_, flush_bytes_, stream_), "L2 flush");
        enqueue_l2_read(flush_buffer_, flush_bytes_, flush_sms_, stream_);  // leaves the lines clean
        check(cudaGetLastError(), "L2 flush read");
        // Wait for it: a run queued behind a busy stream would start without the launch gap
        // that a hot sample (idle stream) includes, and cold would look faster than hot.
        check(cudaStreamSynchronize(stream_), "L2 flush");
        return true;
    }
    double stop() override {
        const cudaError_t recorded = cudaEventRecord(end_, stream_);
        hold_lasted_ = true;
        release_hold();
        check(recorded, "cudaEventRecord");
        cuda_check::wait_for_event(end_, "waiting for the timed work", wait_deadline(), wait_why());
        float ms = 0;
        check(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
        return ms * 1e-3;
    }
    std::optional<double> device_drain_s() override {
        auto began = std::chrono::steady_clock::now();
        check(cudaDeviceSynchronize(), "waiting for the whole device");
        const double first = seconds_since(began);
        // The same wait again, on a device now surely idle for this process: what a wait
        // costs under the present conditions (other processes on the GPU, a loaded host).
        began = std::chrono::steady_clock::now();
        check(cudaDeviceSynchronize(), "waiting for the whole device");
        return std::max(0.0, first - std::max(seconds_since(began), idle_wait_s_));
    }
    std::unique_ptr<CapturedWork> capture(const std::function<void()> &enqueue,
                                          std::string &why_not) override {
        // Thread-local mode: only this thread's calls are checked, so other threads of a
        // library (NVML, a profiler) cannot break the capture.
        const auto fail = [&](std::string why) -> std::unique_ptr<CapturedWork> {
            cudaGetLastError();  // a failed capture leaves the plugin no sticky error
            why_not = std::move(why);
            return nullptr;
        };
        cudaError_t status = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
        if (status != cudaSuccess) return fail("cudaStreamBeginCapture: " + describe(status));
        cudaGraph_t graph = nullptr;
        try {
            enqueue();
        } catch (...) {
            cudaStreamEndCapture(stream_, &graph);
            if (graph) cudaGraphDestroy(graph);
            cudaGetLastError();  // a capture error is not the plugin's sticky error
            throw;
        }
        status = cudaStreamEndCapture(stream_, &graph);
        if (status != cudaSuccess || !graph) {
            if (graph) cudaGraphDestroy(graph);
            return fail("the capture failed: " + describe(status));
        }
        // A run() that put no work on the stream (host work only) would replay as nothing.
        size_t nodes = 0;
        if (cudaGraphGetNodes(graph, nullptr, &nodes) != cudaSuccess || nodes == 0) {
            cudaGraphDestroy(graph);
            return fail("nothing was enqueued on the stream while captured (host work is not "
                        "replayed by a graph)");
        }
        cudaGraphExec_t exec = nullptr;
        status = cudaGraphInstantiate(&exec, graph, 0);
        cudaGraphDestroy(graph);
        if (status != cudaSuccess) return fail("cudaGraphInstantiate: " + describe(status));
        return std::make_unique<CudaGraphWork>(exec, stream_, begin_, end_, hold_.get());
    }

private:
    int device_;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t begin_ = nullptr, end_ = nullptr;
    std::unique_ptr<StreamHold> hold_;
    bool held_ = false, hold_lasted_ = true;  // a hold_next() waits for stop()
    std::unique_ptr<NvmlProbe> nvml_;  // null: no NVML, see nvml_note_
    std::string nvml_note_;
    void *flush_buffer_ = nullptr;
    double idle_wait_s_ = 0;
    size_t flush_bytes_ = 0;
    int flush_sms_ = 0;
    unsigned char flush_value_ = 0;
};

void set_peaks(GpuInfo &info) {
    int clock_khz = 0, memory_clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, info.device);
    cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, info.device);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, info.device);
    cudaGetLastError();  // an attribute this device lacks leaves 0, not an error to carry
    const ArchitectureRates rates = architecture_rates(info.compute_major, info.compute_minor);
    info.boost_clock_hz = clock_khz * 1e3;
    info.memory_bus_bits = bus_bits;
    const double sm_hz = info.sm_count * info.boost_clock_hz;
    info.peak_fp32_flops = sm_hz * rates.fp32_lanes * 2;
    info.peak_fp64_flops = sm_hz * rates.fp64_lanes * 2;
    info.peak_bytes_per_s = 2.0 * (memory_clock_khz * 1e3) * bus_bits / 8;
}

// nvidia-smi's spelling: GPU-8-4-4-4-12 hex digits.
std::string uuid_text(const cudaUUID_t &uuid) {
    std::string text = "GPU-";
    for (int i = 0; i < 16; ++i) {
        text += format_text("%02x", static_cast<unsigned char>(uuid.bytes[i]));
        if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
    }
    return text;
}

}  // namespace

int built_cuda_runtime_version() { return CUDART_VERSION; }

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

GpuInfo probe_gpu(int device) {
    GpuInfo info;
    info.device = device;
    cudaDriverGetVersion(&info.driver_version);
    cudaRuntimeGetVersion(&info.runtime_version);
    info.driver_release = driver_release();
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        // With no driver at all the runtime says "driver version is insufficient": say what it is.
        info.unavailable_reason = info.driver_version == 0
                                      ? "no NVIDIA driver found (the CUDA runtime found no libcuda)"
                                      : "no usable CUDA driver or device (" + describe(status) + ")";
        cudaGetLastError();
        return info;
    }
    if (device < 0 || device >= count) {
        info.unavailable_reason = "CUDA device " + std::to_string(device) + " does not exist (" +
                                  std::to_string(count) + " found)";
        return info;
    }
    cudaDeviceProp prop{};
    status = cudaGetDeviceProperties(&prop, device);
    if (status != cudaSuccess) {
        info.unavailable_reason = "cudaGetDeviceProperties failed (" + describe(status) + ")";
        return info;
    }
    info.available = true;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.memory_bytes = prop.totalGlobalMem;
    info.l2_bytes = static_cast<uint64_t>(prop.l2CacheSize);
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) info.pci_bus_id = bus;
    info.uuid = uuid_text(prop.uuid);
    set_peaks(info);
    info.l2_bytes_per_s = l2_bytes_per_s(info, false);  // where an earlier run measured it
    return info;
}

std::unique_ptr<PhaseTimer> make_cuda_event_timer(int device) {
    return std::make_unique<CudaEventTimer>(device);
}

std::string cuda_sticky_error() {
    cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess) status = cudaGetLastError();
    return status == cudaSuccess ? "" : describe(status);
}

}  // namespace gpubench
