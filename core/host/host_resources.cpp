#include "host_resources.hpp"

#include "thread_name.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>

namespace gpubench {

bool read_small_file(const char *path, char *buf, size_t size) {
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = ::read(fd, buf, size - 1);
    ::close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    return true;
}

std::vector<pid_t> this_process_threads() {
    std::vector<pid_t> threads;
    DIR *dir = ::opendir("/proc/self/task");
    if (!dir) return threads;
    while (const dirent *e = ::readdir(dir)) {
        char *end = nullptr;
        const long tid = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0') continue;  // "." and ".."
        threads.push_back(static_cast<pid_t>(tid));
    }
    ::closedir(dir);
    return threads;
}

bool read_schedstat(pid_t tid, uint64_t &run_ns, uint64_t &wait_ns) {
    char path[64], buf[128];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", static_cast<int>(tid));
    return read_small_file(path, buf, sizeof buf) && std::sscanf(buf, "%" SCNu64 " %" SCNu64, &run_ns, &wait_ns) == 2;
}

namespace {

// The "NAME: N kB" line of a /proc file, in bytes; nullopt where it is not there.
std::optional<uint64_t> proc_kb_field(const char *path, const std::string &name) {
    std::ifstream in(path);
    for (std::string key; in >> key; std::getline(in, key)) {
        uint64_t kb = 0;
        if (key == name && in >> kb) return kb * 1024;
    }
    return std::nullopt;
}

}  // namespace

std::optional<uint64_t> available_host_memory() { return proc_kb_field("/proc/meminfo", "MemAvailable:"); }

void reset_peak_rss() {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";  // Linux >= 4.0: resets VmHWM to the current resident set
}

uint64_t peak_rss_bytes() {
    if (const std::optional<uint64_t> peak = proc_kb_field("/proc/self/status", "VmHWM:")) return *peak;
    return process_usage().peak_rss_bytes;
}

unsigned logical_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

ProcessUsage process_usage() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval &t) { return t.tv_sec + t.tv_usec * 1e-6; };
    return {seconds(usage.ru_utime) + seconds(usage.ru_stime),
            static_cast<uint64_t>(usage.ru_maxrss) * 1024,  // ru_maxrss is in kB on Linux
            usage};
}

namespace {

// The CPU clock of any thread of this process, as glibc's pthread_getcpuclockid makes it
// from a thread id: CPUCLOCK_SCHED (2) | CPUCLOCK_PERTHREAD_MASK (4), the id inverted above.
clockid_t thread_cpu_clock(pid_t tid) { return static_cast<clockid_t>((~static_cast<clockid_t>(tid)) << 3) | 6; }

std::optional<int64_t> read_clock(clockid_t clock) {
    timespec t{};
    if (clock_gettime(clock, &t) != 0) return std::nullopt;
    return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
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

int64_t process_cpu_ns() { return read_clock(CLOCK_PROCESS_CPUTIME_ID).value_or(0); }

int64_t own_thread_cpu_ns() { return read_clock(CLOCK_THREAD_CPUTIME_ID).value_or(0); }

bool thread_runnable(pid_t tid) {
    char buf[1024];
    const char *after_name = stat_after_name(tid, buf, sizeof buf);
    char state = 0;
    return after_name && std::sscanf(after_name + 1, " %c", &state) == 1 && state == 'R';
}

bool thread_exiting(pid_t tid) {
    char buf[1024];
    const char *after_name = stat_after_name(tid, buf, sizeof buf);
    if (!after_name) {  // gone since it was listed; an entry that cannot be read says nothing
        char path[64];
        std::snprintf(path, sizeof path, "/proc/self/task/%d", static_cast<int>(tid));
        return access(path, F_OK) != 0 && errno == ENOENT;
    }
    char state = 0;
    unsigned long flags = 0;  // stat's fields 3 to 9: state ppid pgrp session tty_nr tpgid flags
    if (std::sscanf(after_name + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2) return false;
    constexpr unsigned long pf_exiting = 0x4;  // include/linux/sched.h
    return (flags & pf_exiting) != 0 || state == 'Z' || state == 'X';
}

ThreadTimes::ThreadTimes() : self_(static_cast<pid_t>(syscall(SYS_gettid))) {}

bool ThreadTimes::harness(pid_t tid) {
    if (tid == self_) return true;
    const auto [known, added] = harness_.try_emplace(tid, false);
    if (!added) return known->second;
    char path[64], name[32];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", static_cast<int>(tid));
    return known->second = read_small_file(path, name, sizeof name) &&
                           std::strncmp(name, harness_thread_prefix, sizeof harness_thread_prefix - 1) == 0;
}

bool ThreadTimes::read_thread(pid_t tid, int64_t &cpu_ns) {
    uint64_t run_ns = 0, wait_ns = 0;
    if (const std::optional<int64_t> ns = read_clock(thread_cpu_clock(tid))) {
        cpu_ns = *ns;
        return true;
    }
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
