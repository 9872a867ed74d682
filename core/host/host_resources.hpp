// What the host has and what this process uses: memory available for a new entry, and the
// CPU time and peak memory of the process (the worker measuring one entry).
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
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

}  // namespace gpubench
