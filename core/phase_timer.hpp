// How the runner times one phase call (upload, run, download). One implementation per clock:
// a monotonic host clock for CPU plugins, CUDA events on the runner's stream for CUDA plugins.
#pragma once

#include "nvml_probe.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gpubench {

class PhaseTimer {
public:
    virtual ~PhaseTimer() = default;
    virtual const char *clock_name() const = 0;
    // The stream CUDA plugins enqueue on (a cudaStream_t), or nullptr.
    virtual void *cuda_stream() const { return nullptr; }
    // Memory of the device this timer works on, or nullopt (host clock).
    struct DeviceMemory {
        uint64_t free = 0, total = 0;
    };
    virtual std::optional<DeviceMemory> device_memory() const { return std::nullopt; }
    // --cold: evicts the device's L2 cache, outside any timed region (enqueued before the
    // next start()). False when this clock has no cache to flush.
    virtual bool flush_cache() { return false; }
    // The device's clocks, temperature, power... now (NVML); nullopt for a host clock. A
    // device timer without NVML gives a state whose readings are all absent, and says why in
    // gpu_state_note().
    virtual std::optional<GpuState> gpu_state() const { return std::nullopt; }
    virtual std::string gpu_state_note() const { return ""; }
    virtual void start() = 0;
    // Waits until the timed work is complete; returns its duration in seconds. Throws
    // std::runtime_error when the device reports an error.
    virtual double stop() = 0;
};

class SteadyClockTimer final : public PhaseTimer {
public:
    const char *clock_name() const override { return "steady_clock"; }
    void start() override { begin_ = std::chrono::steady_clock::now(); }
    double stop() override {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
    }

private:
    std::chrono::steady_clock::time_point begin_{};
};

}  // namespace gpubench
