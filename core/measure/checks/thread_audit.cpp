#include "thread_audit.hpp"

#include "elapsed.hpp"
#include "sampling.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <thread>

namespace gpubench {

namespace {

using clock = std::chrono::steady_clock;

std::string threads_text(size_t n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

}  // namespace

ThreadAuditor::Times ThreadAuditor::read() {
    Times times;
    for (const ThreadTime &t : times_.read()) times.emplace(t.tid, t.cpu_ns);
    return times;
}

// The threads seen before the call first, each read directly: work handed to one of them
// must not be under way by the time it is read, or the thread would seem to have taken part.
ThreadAuditor::Times ThreadAuditor::read_after_return() {
    Times b;
    int64_t cpu_ns = 0;
    for (const auto &[tid, before] : before_)
        if (times_.read_thread(tid, cpu_ns)) b.emplace(tid, cpu_ns);
    for (const ThreadTime &t : times_.read()) b.emplace(t.tid, t.cpu_ns);  // keeps the first
    return b;
}

void ThreadAuditor::before_run() {
    if (!enabled_) return;
    const auto began = clock::now();
    before_ = read();
    runnable_before_.clear();
    for (const auto &[tid, cpu_ns] : before_)
        if (thread_runnable(tid)) runnable_before_.insert(tid);
    audit_.audit_wall_s += seconds_since(began);
}

void ThreadAuditor::after_run() {
    if (!enabled_) return;
    const auto began = clock::now();
    const Times b = read_after_return();
    const Totals at_b = Totals::now();
    // A thread run() started and joined may still be listed at B while the kernel ends it (on
    // a loaded host, for milliseconds): exiting, its work done within the call, it is no escape.
    exiting_at_b_.clear();
    for (const auto &[tid, cpu_ns] : b)
        if (before_.count(tid) == 0 && thread_exiting(tid)) exiting_at_b_.insert(tid);
    Times c = b;
    for (int step = 0; step < thread_audit_max_steps; ++step) {
        std::this_thread::sleep_for(std::chrono::duration<double>(thread_audit_window_s));
        Times now = read();
        const bool busy = idle_threads_busy(b, c, now);
        c = std::move(now);
        if (!busy) break;
    }
    judge(before_, b, c, unseen_after(b, c, at_b, Totals::now()));
    audit_.audit_wall_s += seconds_since(began);
}

// The CPU taken after the return by the threads run() started (whether they still run at C
// or exited) and by any other that exited meanwhile: the process's, less the caller's own
// (this audit reading and sleeping) and less what the threads read at C took.
int64_t ThreadAuditor::unseen_after(const Times &b, const Times &c, Totals at_b, Totals at_c) const {
    int64_t unseen = (at_c.process_ns - at_b.process_ns) - (at_c.own_ns - at_b.own_ns);
    for (const auto &[tid, at_c_ns] : c) {
        const auto at_b_ns = b.find(tid);
        const bool started_by_run = at_b_ns != b.end() && before_.count(tid) == 0;
        if (!started_by_run) unseen -= at_c_ns - (at_b_ns == b.end() ? 0 : at_b_ns->second);
    }
    return std::max<int64_t>(0, unseen);
}

// A thread there before the call that worked during it or was runnable (spinning) at its
// start, or one the call started (rule 1's, whatever it does next).
bool ThreadAuditor::took_part(pid_t tid, const Times &b) const {
    const auto at_b = b.find(tid);
    if (at_b == b.end()) return false;
    const auto at_a = before_.find(tid);
    return at_a == before_.end() || runnable_before_.count(tid) > 0 ||
           at_b->second - at_a->second >= thread_idle_in_run_s * 1e9;
}

// Whether a thread that took no part in the call worked in the last window, or waits to.
bool ThreadAuditor::idle_threads_busy(const Times &b, const Times &last, const Times &now) const {
    for (const auto &[tid, at_now] : now) {
        if (took_part(tid, b)) continue;
        const auto at_last = last.find(tid);
        if (at_now > (at_last == last.end() ? 0 : at_last->second) || thread_runnable(tid)) return true;
    }
    return false;
}

void ThreadAuditor::judge(const Times &a, const Times &b, const Times &c, int64_t unseen_after_ns) {
    ++audit_.calls;
    audit_.threads = std::max({audit_.threads, a.size(), b.size(), c.size()});
    size_t started = 0;
    for (const auto &[tid, at_b] : b) {
        const auto at_a = a.find(tid), at_c = c.find(tid);
        const int64_t after = at_c == c.end() ? 0 : std::max<int64_t>(0, at_c->second - at_b);
        if (at_a == a.end()) {  // rule 1: started by run(), still there after it
            started += exiting_at_b_.count(tid) == 0;
        } else if (!took_part(tid, b) && after > 0) {
            worked_after_ns_[tid] += after;  // rule 2's candidate
        }
    }
    for (const auto &[tid, at_c] : c)  // born after the return: no part in run() either
        if (b.count(tid) == 0 && a.count(tid) == 0 && at_c > 0) worked_after_ns_[tid] += at_c;
    audit_.started_by_run = std::max(audit_.started_by_run, started);
    if (started > 0) started_after_ns_ += unseen_after_ns;
}

ThreadAudit ThreadAuditor::verdict() const {
    ThreadAudit audit = audit_;
    if (audit.calls == 0) return audit;
    audit.resolution = times_.resolution();
    int64_t worked_ns = 0;
    for (const auto &[tid, ns] : worked_after_ns_) worked_ns += ns;
    audit.worked_after_return = worked_ns >= thread_worked_after_floor_s * 1e9 ? worked_after_ns_.size() : 0;
    audit.cpu_after_return_s = (started_after_ns_ + (audit.worked_after_return ? worked_ns : 0)) * 1e-9;
    const std::string over = " over " + std::to_string(audit.calls) + " audited calls)";
    if (audit.started_by_run > 0)
        audit.problem = "work outside run(): " + threads_text(audit.started_by_run) + " started by run() " +
                        (audit.started_by_run == 1 ? "was" : "were") + " still running after it returned (" +
                        format_seconds(started_after_ns_ * 1e-9) + " of CPU after the returns" + over;
    else if (audit.worked_after_return > 0)
        audit.problem = "work outside run(): " + threads_text(audit.worked_after_return) + " worked " +
                        format_seconds(worked_ns * 1e-9) +
                        " after run() returned without taking part in it (" +
                        std::to_string(audit.calls) + " audited calls)";
    return audit;
}

extern const Check thread_audit_check{
    "thread_audit", CheckVerdict::invalid, "a CPU plugin's work outside run(): a thread it left working",
    "entries timed on the host clock (C++ and Python CPU backends) are audited on the first "
    "sample and the 1st, 4th, 16th, 64th… (after a `run()` has completed, so a pool that the "
    "first call starts is not counted): the CPU time of each of the process's threads (its thread"
    " CPU clock, ns; else `/proc/self/task/T/schedstat`; else `stat`'s ticks, and "
    "`thread_audit.resolution` says the audit is coarse) is read just before `run()`, just after "
    "it returns, and 1 ms later. The calling thread and the harness's own threads (all named "
    "`gpubench-*`) are left out. A thread that was not there before the call and is still there "
    "after it (started by `run()`, not joined) makes the entry invalid, unless the kernel is "
    "already ending it (PF_EXITING or a zombie: joined within the call, its `/proc` entry not "
    "yet gone, which a loaded host shows for milliseconds); so do threads that took "
    "no CPU during the call (under 1 µs) and took CPU after it, once they add up to 20 µs over "
    "the audited calls (work handed to a persistent thread that `run()` did not wait for). "
    "OpenMP's, OpenBLAS's or Numba's pool threads take part in every parallel region inside the "
    "call (its end is a barrier) and are not counted for their spinning after it. Not seen: a "
    "pool that does part of the work inside `run()` and the rest after it; a thread started and "
    "ended within microseconds after the return. The audit costs about 1 ms of wall time per "
    "audited call (`thread_audit.audit_wall_s`); `--no-thread-audit` turns it off, e.g. for a "
    "library whose pool is refused wrongly. GPU entries are not audited this way: a "
    "`cudaLaunchHostFunc` callback legally runs on a driver thread after `run()` returns, inside "
    "the GPU's timing",
    "`work outside run(): 1 thread started by run() was still running after it returned (1.20 ms "
    "of CPU after the returns over 3 audited calls)`; `… 1 thread worked 2.93 ms after run() "
    "returned without taking part in it (3 audited calls)`",
    [](const Measurement &e) { return e.thread_audit.problem; }};

}  // namespace gpubench
