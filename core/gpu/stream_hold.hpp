// Holding a CUDA stream while the host enqueues, so that a timed span measures device work
// alone, not the host's path to each launch (Python's interpreter, a library's checks). As
// nvbench does, a one-thread kernel spins on a page-locked host flag ahead of the work until
// the flag is set. (cuStreamWaitValue32 on the flag left the L2 cold behind it on an H100.)
//
// A call that waits for its own work while held (cudaStreamSynchronize, a blocking copy), or
// enqueues more than the launch queue holds, would wait forever: a watchdog sets the flag after
// a timeout, and release() says so; the caller then stops holding for that entry.
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
    // available() is false and why_not() says why.
    explicit StreamHold(void *stream);
    ~StreamHold();
    StreamHold(const StreamHold &) = delete;
    StreamHold &operator=(const StreamHold &) = delete;

    bool available() const { return kernel_ != nullptr; }
    const std::string &why_not() const { return why_not_; }

    // Enqueues the hold: later work on the stream starts at release(), or after timeout_s.
    // Throws std::runtime_error when it cannot be enqueued (available() is then false).
    void hold(double timeout_s);
    // Ends the wait. True when the hold lasted until now; false when the watchdog had ended it.
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
