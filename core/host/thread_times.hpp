// The CPU time of each of this process's threads, for the thread audit (measure/checks/
// thread_audit.hpp): which threads worked while the plugin's run() ran and which after it
// returned. Linux only (/proc/self/task); elsewhere a reading is empty.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpubench {

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
