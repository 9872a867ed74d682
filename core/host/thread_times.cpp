#include "thread_times.hpp"

#include "host_resources.hpp"
#include "thread_name.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>

namespace gpubench {

namespace {

// The CPU clock of any thread of this process, as glibc's pthread_getcpuclockid makes it
// from a thread id: CPUCLOCK_SCHED (2) | CPUCLOCK_PERTHREAD_MASK (4), the id inverted above.
clockid_t thread_cpu_clock(pid_t tid) { return static_cast<clockid_t>((~static_cast<clockid_t>(tid)) << 3) | 6; }

bool read_clock(clockid_t clock, int64_t &cpu_ns) {
    timespec t{};
    if (clock_gettime(clock, &t) != 0) return false;
    cpu_ns = int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
    return true;
}

// /proc/self/task/<tid>/stat after the thread's name (field 2, which may hold spaces and
// parentheses: the fields are counted from its last ')'); nullptr where it cannot be read.
const char *stat_after_name(pid_t tid, char *buf, size_t size) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", static_cast<int>(tid));
    if (!read_small_file(path, buf, size)) return nullptr;
    return std::strrchr(buf, ')');
}

// stat's utime and stime (fields 14 and 15), in clock ticks.
bool read_stat_ticks(pid_t tid, int64_t &cpu_ns) {
    char buf[1024];
    const char *after_name = stat_after_name(tid, buf, sizeof buf);
    unsigned long long user = 0, system = 0;
    if (!after_name || std::sscanf(after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                                   &user, &system) != 2)
        return false;
    const long ticks = sysconf(_SC_CLK_TCK);
    cpu_ns = static_cast<int64_t>((user + system) * (1e9 / (ticks > 0 ? ticks : 100)));
    return true;
}

}  // namespace

int64_t process_cpu_ns() {
    int64_t ns = 0;
    read_clock(CLOCK_PROCESS_CPUTIME_ID, ns);
    return ns;
}

int64_t own_thread_cpu_ns() {
    int64_t ns = 0;
    read_clock(CLOCK_THREAD_CPUTIME_ID, ns);
    return ns;
}

bool thread_runnable(pid_t tid) {
    char buf[1024];
    const char *after_name = stat_after_name(tid, buf, sizeof buf);
    char state = 0;
    return after_name && std::sscanf(after_name + 1, " %c", &state) == 1 && state == 'R';
}

ThreadTimes::ThreadTimes() : self_(static_cast<pid_t>(syscall(SYS_gettid))) {}

bool ThreadTimes::harness(pid_t tid) {
    if (tid == self_) return true;
    const auto known = harness_.find(tid);
    if (known != harness_.end()) return known->second;
    char path[64], name[32];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", static_cast<int>(tid));
    const bool ours = read_small_file(path, name, sizeof name) &&
                      std::strncmp(name, harness_thread_prefix, sizeof harness_thread_prefix - 1) == 0;
    harness_[tid] = ours;
    return ours;
}

bool ThreadTimes::read_thread(pid_t tid, int64_t &cpu_ns) {
    uint64_t run_ns = 0, wait_ns = 0;
    if (read_clock(thread_cpu_clock(tid), cpu_ns)) return true;
    if (read_schedstat(tid, run_ns, wait_ns)) {
        cpu_ns = static_cast<int64_t>(run_ns);
        return true;
    }
    if (!read_stat_ticks(tid, cpu_ns)) return false;
    coarse_ = true;
    return true;
}

std::vector<ThreadTime> ThreadTimes::read() {
    std::vector<ThreadTime> threads;
    for (pid_t tid : this_process_threads()) {
        ThreadTime t{tid, 0};
        if (!harness(tid) && read_thread(tid, t.cpu_ns)) threads.push_back(t);
    }
    return threads;
}

}  // namespace gpubench
