// Was the host contended while an entry was sampled? Other processes taking the CPU skew
// CPU timings (and the launch side of GPU timings) without any error showing, so the worker
// reads the scheduler's own accounts around the samples and says when they were crowded.
// Linux only: everything comes from /proc; elsewhere `available` stays false.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace gpubench {

// The contention rule (the contended check's, measure/checks/contended.cpp): the rest of the
// machine kept contended_others_cores busy, and either the entry's threads waited for a CPU
// contended_wait_share of the time they ran or waited and contended_wait_of_wall of the wall
// time (a thread that mostly sleeps waits a few microseconds at each wake-up: not flagged), or
// the whole machine was contended_busy_fraction busy. Nothing is flagged over less than
// host_load_min_wall_s, or where /proc cannot be read.
inline constexpr double contended_wait_share = 0.05;
inline constexpr double contended_wait_of_wall = 0.05;
inline constexpr double contended_others_cores = 0.5;
inline constexpr double contended_busy_fraction = 0.9;
inline constexpr double host_load_min_wall_s = 1e-3;

struct HostLoad {
    double wall_s = 0;              // wall time between begin() and end()
    double own_cpu_s = 0;           // CPU time of this process meanwhile (all threads, user+system)
    double machine_busy_cores = 0;  // host cores busy on average (/proc/stat), at most host_cores
    double others_cores = 0;        // machine_busy_cores - own_cpu_s / wall_s, at least 0
    double own_wait_s = 0;          // this process's threads runnable, waiting for a CPU (schedstat)
    double wait_share = 0;          // own_wait_s / (own_wait_s + their on-CPU time), or 0
    unsigned host_cores = 0;        // logical cores
    bool available = false;         // /proc/stat and schedstat were read (else the above are 0)
    bool contended() const;
    // "" when not contended, else what crowded the entry, e.g. "the worker's threads waited
    // 12% of their time for a CPU; the rest of the host used 1.9 of 2 cores".
    std::string reason() const;
};

// Two snapshots of the scheduler's accounts; cheap enough to take around every entry's
// samples (one short /proc/stat read, one small file per thread of this process).
class HostLoadWatch {
public:
    void begin();
    HostLoad end();  // the figures since begin(); never throws

private:
    struct TaskTimes {
        uint64_t run_ns = 0, wait_ns = 0;
    };
    static bool read_tasks(std::map<long, TaskTimes> &tasks);
    std::chrono::steady_clock::time_point start_{};
    double own_cpu_s_ = 0;
    uint64_t busy_jiffies_ = 0;
    std::map<long, TaskTimes> tasks_;  // by thread id
    bool readable_ = false;  // begun, and /proc could be read
};

}  // namespace gpubench
