// How the runner times one phase call (upload, run, download): a host clock for CPU plugins,
// CUDA events on the runner's stream for CUDA plugins.
#pragma once

#include "nvml_probe.hpp"
#include "roofline.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

// Work captured once (a CUDA graph) and replayed by the timer alone, without the plugin.
class CapturedWork {
public:
    virtual ~CapturedWork() = default;
    // Replays the work `times` times back to back between one pair of events and returns the
    // seconds it took. hold: the stream is held while they are enqueued (where the timer can),
    // so no launch gap falls between them. Throws std::runtime_error on a device error.
    virtual double replay(size_t times, bool hold) = 0;
};

class PhaseTimer {
public:
    virtual ~PhaseTimer() = default;
    virtual const char *clock_name() const = 0;
    // The stream CUDA plugins enqueue on (a cudaStream_t), or nullptr.
    virtual void *cuda_stream() const { return nullptr; }
    // True when cuda_streams() are real streams of this process's CUDA, whose work can be
    // traced (device_trace.hpp); false for a host clock, or one that only claims them.
    virtual bool real_streams() const { return false; }
    // The CUDA devices the timed work runs on and the stream of each, in the same order (the
    // first are cuda_stream() and its device); several for a plugin across GPUs (ABI 1.5).
    virtual std::vector<int> cuda_devices() const { return {}; }
    virtual std::vector<void *> cuda_streams() const {
        if (void *stream = cuda_stream()) return {stream};
        return {};
    }
    bool on_device() const { return cuda_stream() || !cuda_devices().empty(); }
    // Memory of the device this timer works on, or nullopt (host clock).
    struct DeviceMemory {
        uint64_t free = 0, total = 0;
        std::optional<unsigned> processes;  // with a CUDA context on the device (NVML), ours too
        // As GpuState::shared: the device's used memory and busy time are not ours alone.
        bool shared() const { return processes && *processes > 1; }
    };
    virtual std::optional<DeviceMemory> device_memory() const { return std::nullopt; }
    // --cold: evicts the device's L2 cache, outside any timed region (enqueued before the
    // next start()). False when this clock has no cache to flush.
    virtual bool flush_cache() { return false; }
    // The device's clocks, temperature, power... now (NVML); nullopt for a host clock, all
    // readings absent without NVML (gpu_state_note() says why).
    virtual std::optional<GpuState> gpu_state() const { return std::nullopt; }
    virtual std::string gpu_state_note() const { return ""; }
    // The device's energy counter alone (GpuState::energy_mj), read many times in a row to
    // align an energy window to its changes (counter_change.hpp); nullopt without one.
    virtual std::optional<uint64_t> gpu_energy_mj() const { return std::nullopt; }
    // Holds the stream from the next start() until stop() (stream_hold.hpp), so that the span
    // covers device work alone, not the host's enqueueing; a watchdog ends the hold after
    // timeout_s. Returns "" when the next span is held, else why not.
    virtual std::string hold_next(double) { return "a host clock has no stream to hold"; }
    // After a held stop(): false when the watchdog had ended the hold first.
    virtual bool hold_lasted() const { return true; }
    // Ends a hold whose span will not be stopped (the call failed); harmless without one.
    virtual void release_hold() {}
    virtual void start() = 0;
    // Waits until the timed work is complete; returns its duration in seconds. Throws
    // std::runtime_error on a device error, or when a wait limit (limit_waits) ran out first.
    virtual double stop() = 0;
    // From now on, stop() waits at most `seconds` for a span's end (0: no limit), then throws
    // std::runtime_error(why): a collective whose peer stopped never ends.
    void limit_waits(double seconds, std::string why) {
        wait_limit_s_ = seconds;
        wait_why_ = std::move(why);
    }
    // Right after stop(): waits for the whole device and returns how much longer it stayed
    // busy than an idle device takes to answer (seconds, >= 0): work the plugin left on a
    // stream of its own. nullopt for a host clock.
    virtual std::optional<double> device_drain_s() { return std::nullopt; }
    // Captures the device work `enqueue` puts on cuda_stream() into a replayable graph, or
    // returns nullptr with the reason in `why_not`. An exception of `enqueue` abandons the
    // capture and is passed on.
    virtual std::unique_ptr<CapturedWork> capture(const std::function<void()> & /*enqueue*/,
                                                  std::string &why_not) {
        why_not = "no device to capture work on";
        return nullptr;
    }
    // The ceilings throughput is read against (unknown: an all-zero roofline).
    virtual const Roofline &roofline() const { return roofline_; }
    void set_roofline(Roofline roofline) { roofline_ = std::move(roofline); }

protected:
    // The deadline of a wait that starts now, or nullopt without a limit.
    std::optional<std::chrono::steady_clock::time_point> wait_deadline() const {
        if (wait_limit_s_ <= 0) return std::nullopt;
        return std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(wait_limit_s_));
    }
    const std::string &wait_why() const { return wait_why_; }

private:
    Roofline roofline_;
    double wait_limit_s_ = 0;
    std::string wait_why_;
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
