#include "host_load.hpp"

#include "elapsed.hpp"
#include "host_resources.hpp"
#include "text_format.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace gpubench {

namespace {

// Jiffies all cores spent neither idle nor in iowait: /proc/stat's first line,
// "cpu  user nice system idle iowait irq softirq steal guest guest_nice". guest and guest_nice
// are already inside user and nice. steal counts as busy: the hypervisor gave that core's
// time to someone else.
std::optional<uint64_t> busy_jiffies() {
    char buf[512];  // the first line is well under this; the rest is not needed
    if (!read_small_file("/proc/stat", buf, sizeof buf)) return std::nullopt;
    unsigned long long v[8] = {};
    if (std::sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                    &v[4], &v[5], &v[6], &v[7]) < 7)
        return std::nullopt;
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
}

bool waited_for_cpu(const HostLoad &l) {
    return l.wait_share >= contended_wait_share &&
           l.own_wait_s >= contended_wait_of_wall * l.wall_s;
}

}  // namespace

bool HostLoad::contended() const {
    if (!available || wall_s < host_load_min_wall_s) return false;
    // Waits alone are no proof: OpenMP threads woken for microsecond regions wait on an idle host.
    return others_cores >= contended_others_cores &&
           (waited_for_cpu(*this) || machine_busy_cores >= contended_busy_fraction * host_cores);
}

std::string HostLoad::reason() const {
    if (!contended()) return "";
    std::string text;
    if (waited_for_cpu(*this))
        text = format_text("the worker's threads waited %.0f%% of their time for a CPU; ", wait_share * 100);
    // The host's load is said in both cases: it tells whether the wait came from outside.
    return text + format_text("the rest of the host used %.1f of %u cores", others_cores, host_cores);
}

bool HostLoadWatch::read_tasks(std::map<long, TaskTimes> &tasks) {
    tasks.clear();
    // A thread that ended between listing and reading is simply not counted.
    for (pid_t tid : this_process_threads())
        if (TaskTimes t; read_schedstat(tid, t.run_ns, t.wait_ns)) tasks[tid] = t;
    return !tasks.empty();  // the calling thread is always there when schedstat exists
}

void HostLoadWatch::begin() {
    std::optional<uint64_t> busy = busy_jiffies();
    readable_ = busy && read_tasks(tasks_);
    busy_jiffies_ = busy.value_or(0);
    own_cpu_s_ = process_usage().cpu_s;
    start_ = std::chrono::steady_clock::now();  // last, so that the reads above are not timed
}

HostLoad HostLoadWatch::end() {
    HostLoad load;
    load.host_cores = logical_cores();
    if (!readable_) return load;
    // Wall and CPU time first: the /proc reads below are not the entry's.
    double wall_s = seconds_since(start_);
    double own_cpu_s = process_usage().cpu_s - own_cpu_s_;
    std::optional<uint64_t> busy = busy_jiffies();
    std::map<long, TaskTimes> now;
    if (!busy || !read_tasks(now) || wall_s <= 0) return load;

    uint64_t run_ns = 0, wait_ns = 0;
    for (const auto &[tid, t] : now) {
        auto before = tasks_.find(tid);
        // A thread started meanwhile counts whole; one whose counters went back is a new thread
        // that reused the id. A thread that ended meanwhile cannot be read and is left out.
        bool same = before != tasks_.end() && t.run_ns >= before->second.run_ns &&
                    t.wait_ns >= before->second.wait_ns;
        run_ns += same ? t.run_ns - before->second.run_ns : t.run_ns;
        wait_ns += same ? t.wait_ns - before->second.wait_ns : t.wait_ns;
    }

    static const long ticks_per_s = std::max(1L, ::sysconf(_SC_CLK_TCK));
    load.available = true;
    load.wall_s = wall_s;
    load.own_cpu_s = std::max(0.0, own_cpu_s);
    // Jiffies come in 10 ms steps: over a short wall time one step more would read as more
    // cores than the host has.
    uint64_t busy_delta = *busy >= busy_jiffies_ ? *busy - busy_jiffies_ : 0;
    double busy_s = static_cast<double>(busy_delta) / ticks_per_s;
    load.machine_busy_cores = std::min<double>(busy_s / wall_s, load.host_cores);
    load.others_cores = std::max(0.0, load.machine_busy_cores - load.own_cpu_s / wall_s);
    load.own_wait_s = wait_ns * 1e-9;
    load.wait_share = run_ns + wait_ns > 0 ? static_cast<double>(wait_ns) / (run_ns + wait_ns) : 0;
    return load;
}

}  // namespace gpubench
