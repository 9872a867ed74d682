// The timer of a plugin across several GPUs (ABI 1.5): a CUDA event timer per device, on whose
// streams this one records its own events, every device's end before any is waited for, so
// that no device's span includes the wait for another's.
#include "cuda_check.hpp"
#include "gpu.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {
namespace {

using cuda_check::check;

class MultiDeviceTimer final : public PhaseTimer {
public:
    explicit MultiDeviceTimer(const std::vector<int> &devices) {
        if (devices.empty()) throw std::runtime_error("a multi-device timer needs a device");
        for (int device : devices) {
            // Made first: on success it leaves `device` current, where the events belong.
            Lane lane{device, make_cuda_event_timer(device)};
            check(cudaEventCreate(&lane.begin), "cudaEventCreate");
            check(cudaEventCreate(&lane.end), "cudaEventCreate");
            lanes_.push_back(std::move(lane));
        }
        set_roofline(lanes_.front().timer->roofline());
        use_first();
    }
    ~MultiDeviceTimer() override {
        for (Lane &lane : lanes_) {
            cudaSetDevice(lane.device);
            if (lane.begin) cudaEventDestroy(lane.begin);
            if (lane.end) cudaEventDestroy(lane.end);
            lane.timer.reset();
        }
        if (!lanes_.empty()) cudaSetDevice(lanes_.front().device);
    }

    const char *clock_name() const override { return "cuda_event_multi_device"; }
    bool real_streams() const override { return true; }
    void *cuda_stream() const override { return lanes_.front().timer->cuda_stream(); }
    std::vector<int> cuda_devices() const override {
        std::vector<int> devices;
        for (const Lane &lane : lanes_) devices.push_back(lane.device);
        return devices;
    }
    std::vector<void *> cuda_streams() const override {
        std::vector<void *> streams;
        for (const Lane &lane : lanes_) streams.push_back(lane.timer->cuda_stream());
        return streams;
    }
    // The first device's: gpubench_work.device_bytes of such a plugin is per device.
    std::optional<DeviceMemory> device_memory() const override {
        use_first();
        return lanes_.front().timer->device_memory();
    }
    std::optional<GpuState> gpu_state() const override { return lanes_.front().timer->gpu_state(); }
    std::optional<uint64_t> gpu_energy_mj() const override { return lanes_.front().timer->gpu_energy_mj(); }
    std::string gpu_state_note() const override {
        return lanes_.front().timer->gpu_state_note() + " (NVML readings of the first device only)";
    }
    bool flush_cache() override {
        each_lane([](Lane &lane) { lane.timer->flush_cache(); });
        return true;
    }
    std::string hold_next(double) override {
        return "a plugin across several GPUs enqueues on several streams";
    }
    // The first device's begin is recorded last, its end first: the host time between the
    // devices' events falls outside its span. The plugin's call follows with it current.
    void start() override {
        each_lane([](Lane &lane) { record(lane.begin, lane); }, true);
    }
    // The longest per-device span: events of different devices cannot be compared.
    double stop() override {
        each_lane([](Lane &lane) { record(lane.end, lane); });
        double longest = 0;
        const auto deadline = wait_deadline();
        for (Lane &lane : lanes_) {
            cuda_check::wait_for_event(lane.end, "waiting for the timed work", deadline, wait_why());
            float ms = 0;
            check(cudaEventElapsedTime(&ms, lane.begin, lane.end), "cudaEventElapsedTime");
            longest = std::max(longest, ms * 1e-3);
        }
        return longest;
    }
    std::optional<double> device_drain_s() override {
        double longest = 0;
        each_lane([&](Lane &lane) {
            longest = std::max(longest, lane.timer->device_drain_s().value_or(0));
        });
        return longest;
    }
    std::unique_ptr<CapturedWork> capture(const std::function<void()> &,
                                          std::string &why_not) override {
        why_not = "multi-device work is not captured (a graph would span several devices)";
        return nullptr;
    }

private:
    struct Lane {
        int device;
        std::unique_ptr<PhaseTimer> timer;
        cudaEvent_t begin = nullptr, end = nullptr;
    };
    static void record(cudaEvent_t event, const Lane &lane) {
        const auto stream = static_cast<cudaStream_t>(lane.timer->cuda_stream());
        check(cudaEventRecord(event, stream), "cudaEventRecord");
    }
    void use_first() const { check(cudaSetDevice(lanes_.front().device), "cudaSetDevice"); }
    // Runs `body` on each lane (backwards: the first lane last) with its device current (the
    // plugin may have made another current), then makes the first device current again.
    template <class Body>
    void each_lane(Body &&body, bool backwards = false) {
        for (size_t i = 0; i < lanes_.size(); ++i) {
            Lane &lane = lanes_[backwards ? lanes_.size() - 1 - i : i];
            check(cudaSetDevice(lane.device), "cudaSetDevice");
            body(lane);
        }
        use_first();
    }

    std::vector<Lane> lanes_;
};

}  // namespace

std::unique_ptr<PhaseTimer> make_multi_device_timer(const std::vector<int> &devices) {
    return std::make_unique<MultiDeviceTimer>(devices);
}

}  // namespace gpubench
