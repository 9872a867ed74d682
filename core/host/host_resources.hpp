// What the host has and what this process uses: memory available for a new entry, the CPU time
// and peak memory of the process (the worker measuring one entry), and the CPU time of each of
// its threads, for the thread audit (measure/checks/thread_audit.hpp): which threads worked
// while the plugin's run() ran and which after it returned. Linux only (/proc/self/task);
// elsewhere a reading is empty.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpubench {

// MemAvailable of /proc/meminfo: what can be allocated without swapping; nullopt if unknown.
std::optional<uint64_t> available_host_memory();

struct ProcessUsage {
    double cpu_s = 0;           // user + system CPU time so far, all threads
    uint64_t peak_rss_bytes = 0;  // the largest resident set so far
    rusage counters{};          // getrusage's whole record: faults, context switches...
};
ProcessUsage process_usage();

// The largest resident set since the last reset_peak_rss() (VmHWM), so that a worker that
// measures several entries reports each one's own peak. Falls back to the process's lifetime
// peak where the kernel cannot reset it.
void reset_peak_rss();
uint64_t peak_rss_bytes();

// Reads a small /proc file whole into buf (NUL-terminated); false where it cannot be read.
bool read_small_file(const char *path, char *buf, size_t size);

// The ids of this process's threads now (/proc/self/task); none where it cannot be read.
std::vector<pid_t> this_process_threads();
// A thread's /proc/self/task/<tid>/schedstat: nanoseconds on a CPU, and runnable waiting for
// one; false where it cannot be read (the thread ended, or the kernel keeps no schedstat).
bool read_schedstat(pid_t tid, uint64_t &run_ns, uint64_t &wait_ns);

// Logical CPU cores of the host (at least 1).
unsigned logical_cores();

struct ThreadTime {
    pid_t tid = 0;
    int64_t cpu_ns = 0;  // user + system time on a CPU since the thread started
};

// CPU time so far of the whole process (exited threads included) and of the calling thread.
int64_t process_cpu_ns();
int64_t own_thread_cpu_ns();

// Whether thread `tid` of this process is running or waiting for a CPU (state R in /proc);
// false when it sleeps, has exited or cannot be read.
bool thread_runnable(pid_t tid);
// Whether thread `tid` of this process is exiting or gone: the kernel's PF_EXITING flag, a
// zombie or dead state in /proc, or no /proc entry left; false where its stat cannot be read.
bool thread_exiting(pid_t tid);

class ThreadTimes {
public:
    ThreadTimes();
    // Every thread of this process now with its CPU time so far, but the calling thread and
    // the harness's own (named "gpubench...", thread_name.hpp). A thread that exits while it
    // is read drops out.
    std::vector<ThreadTime> read();
    // One thread's CPU time so far; false once it has exited. A microsecond for a thread
    // already known, where read() lists the threads first (several).
    bool read_thread(pid_t tid, int64_t &cpu_ns);
    // How fine the readings were: "ns" (each thread's CPU clock, or schedstat), or
    // "clock ticks" where only /proc/<tid>/stat could be read (the audit is coarse then).
    std::string resolution() const { return coarse_ ? "clock ticks" : "ns"; }

private:
    bool harness(pid_t tid);
    pid_t self_;
    std::unordered_map<pid_t, bool> harness_;  // whether each thread seen is the harness's
    bool coarse_ = false;
};

}  // namespace gpubench
