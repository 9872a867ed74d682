// Holding a CUDA stream while the host enqueues, so that a timed span measures device work
// alone. Without it the begin event fires on an idle stream at once, and the span includes the
// host's path to its first launch and every gap where the GPU waits for the next one: Python's
// interpreter, a library's argument checks. As nvbench does, a one-thread kernel spins on a
// page-locked host flag ahead of the work; setting the flag lets it end. (A stream wait on the
// flag, cuStreamWaitValue32, left the L2 cache cold behind it on an H100.)
//
// A call that waits for its own work while the stream is held (cudaStreamSynchronize, a
// blocking copy, a pageable download), or that enqueues more than the launch queue holds,
// would wait forever: a watchdog thread sets the flag after a timeout, and release() says so.
// The span is then not device time alone; the caller stops holding for that entry.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace gpubench {

class StreamHold {
public:
    // For `stream` (a cudaStream_t) on the current device. Never throws: without support
    // (the kernel does not load, no mapped host memory) available() is false and why_not() says
    // why.
    explicit StreamHold(void *stream);
    ~StreamHold();
    StreamHold(const StreamHold &) = delete;
    StreamHold &operator=(const StreamHold &) = delete;

    bool available() const { return kernel_ != nullptr; }
    const std::string &why_not() const { return why_not_; }

    // Enqueues the hold: work enqueued on the stream after it starts when release() is
    // called, or when timeout_s has passed. Throws std::runtime_error when the wait cannot be
    // enqueued (available() is then false for later calls).
    void hold(double timeout_s);
    // Ends the wait. True when the hold lasted until now; false when the watchdog had ended it
    // (the host took longer than the timeout, or waited for work behind the hold).
    bool release();

private:
    void watch();
    void set_flag(uint32_t value);

    void *stream_;
    void *library_ = nullptr;  // cudaLibrary_t of the hold kernel
    void *kernel_ = nullptr;   // cudaKernel_t: the kernel spinning on the flag

    std::string why_not_;
    volatile uint32_t *flag_ = nullptr;  // page-locked, mapped: the device polls it
    unsigned long long device_flag_ = 0;
    uint32_t generation_ = 0;  // the kernel of hold() number g spins until flag >= g (cyclic)

    std::mutex mutex_;
    std::condition_variable changed_;
    bool armed_ = false, fired_ = false, stopping_ = false;
    std::chrono::steady_clock::time_point deadline_;
    std::thread watchdog_;
};

}  // namespace gpubench
