// How the runner times one phase call (upload, run, download). One implementation per clock:
// a monotonic host clock for CPU plugins, CUDA events on the runner's stream for CUDA plugins.
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
    // Replays the work `times` times back to back between one pair of events; waits for it
    // and returns the seconds it took. hold: the stream is held while the replays are
    // enqueued (where the timer can), so no launch gap falls between them. Throws
    // std::runtime_error on a device error.
    virtual double replay(size_t times, bool hold) = 0;
};

class PhaseTimer {
public:
    virtual ~PhaseTimer() = default;
    virtual const char *clock_name() const = 0;
    // The stream CUDA plugins enqueue on (a cudaStream_t), or nullptr.
    virtual void *cuda_stream() const { return nullptr; }
    // True when cuda_streams() are real streams this process's CUDA made, whose device work
    // can be traced (device_trace.hpp); false for a host clock, or one that only claims them.
    virtual bool real_streams() const { return false; }
    // The CUDA devices the timed work runs on and the stream of each, in the same order (the
    // first are cuda_stream() and its device); empty for a host clock. Several for a plugin
    // that works across GPUs (ABI 1.5).
    virtual std::vector<int> cuda_devices() const { return {}; }
    virtual std::vector<void *> cuda_streams() const {
        if (void *stream = cuda_stream()) return {stream};
        return {};
    }
    // Whether the timed work runs on a GPU (a stream, or devices), not on the host.
    bool on_device() const { return cuda_stream() || !cuda_devices().empty(); }
    // Memory of the device this timer works on, or nullopt (host clock).
    struct DeviceMemory {
        uint64_t free = 0, total = 0;
        std::optional<unsigned> processes;  // with a CUDA context on the device (NVML), ours too
        // Another process computes there too: the device's used memory and busy time are
        // not this plugin's alone (GpuState::shared, read at one moment).
        bool shared() const { return processes && *processes > 1; }
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
    // Holds the stream from the next start() until stop() (stream_hold.hpp): work enqueued
    // meanwhile waits, so that the span covers device work alone, not the host's enqueueing.
    // A watchdog ends the hold after timeout_s. Returns "" when the next span is held, else
    // why not (a host clock has no stream; no driver support; several devices).
    virtual std::string hold_next(double timeout_s) {
        (void)timeout_s;
        return "a host clock has no stream to hold";
    }
    // After a held stop(): false when the watchdog had ended the hold first (the call waited for
    // its own work, or took longer than the timeout to enqueue it).
    virtual bool hold_lasted() const { return true; }
    // Ends a hold whose span will not be stopped (the call failed); harmless without one.
    virtual void release_hold() {}
    virtual void start() = 0;
    // Waits until the timed work is complete; returns its duration in seconds. Throws
    // std::runtime_error when the device reports an error, or with `why` when a wait limit
    // (limit_waits) ran out first.
    virtual double stop() = 0;
    // From now on, stop() waits at most `seconds` for a span's end (0: as long as it takes),
    // then throws std::runtime_error(why): a collective across ranks whose peer stopped taking
    // part never ends. A host clock has nothing to wait for.
    void limit_waits(double seconds, std::string why) {
        wait_limit_s_ = seconds;
        wait_why_ = std::move(why);
    }
    // Right after stop(): waits for the whole device and returns how much longer it stayed
    // busy than an idle device takes to answer that wait (seconds, >= 0). Work the plugin left
    // on a stream of its own shows here. nullopt for a host clock.
    virtual std::optional<double> device_drain_s() { return std::nullopt; }
    // Captures the device work `enqueue` puts on cuda_stream() into a replayable graph, or
    // returns nullptr with the reason in `why_not` (a host clock; a call that cannot be
    // captured). `enqueue` may throw; the capture is then abandoned and the exception passed on.
    virtual std::unique_ptr<CapturedWork> capture(const std::function<void()> &enqueue,
                                                  std::string &why_not) {
        (void)enqueue;
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
