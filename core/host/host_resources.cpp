#include "host_resources.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
    unsigned long long run = 0, wait = 0;
    if (!read_small_file(path, buf, sizeof buf) || std::sscanf(buf, "%llu %llu", &run, &wait) != 2)
        return false;
    run_ns = run;
    wait_ns = wait;
    return true;
}

std::optional<uint64_t> available_host_memory() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    uint64_t value = 0;
    while (meminfo >> key >> value) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:") return value * 1024;  // the file counts in kB
    }
    return std::nullopt;
}

void reset_peak_rss() {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";  // Linux >= 4.0: resets VmHWM to the current resident set
}

uint64_t peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    uint64_t kb = 0;
    while (status >> key) {
        if (key == "VmHWM:" && status >> kb) return kb * 1024;
        std::getline(status, key);
    }
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

}  // namespace gpubench
