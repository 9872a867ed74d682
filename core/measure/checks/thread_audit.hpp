// The thread audit: did a CPU plugin's run() return before its work was done? A run() that
// hands its work to a thread and returns is timed at the cost of a hand-over (0.2 us for any
// size). thread_audit_check's rule (thread_audit.cpp) says how, with these constants: the CPU
// times read before the call (A), after it (B) and a window later (C), a window extended while
// a thread that took no part in the call works or waits for a CPU (on a busy host a thread
// handed work may wait milliseconds).
#pragma once

#include "check.hpp"
#include "host_resources.hpp"
#include "sampling.hpp"

#include <map>
#include <set>

namespace gpubench {

inline constexpr double thread_audit_window_s = 1e-3;
inline constexpr int thread_audit_max_steps = 10;
inline constexpr double thread_idle_in_run_s = 1e-6;
inline constexpr double thread_worked_after_floor_s = 20e-6;

// Which calls are audited: samples 0, 1, 4, 16, 64... (the first, and the traced cycles'
// schedule), once a run() has completed: a pool that an entry's first run() starts stays,
// legally.
inline constexpr bool audited_call(size_t sample, size_t runs_done) {
    return runs_done > 0 && (sample == 0 || traced_cycle(sample));
}

// The check: the audit's refusal (ThreadAudit::problem).
extern const Check thread_audit_check;

class ThreadAuditor {
public:
    explicit ThreadAuditor(bool enabled) : enabled_(enabled) {}
    bool enabled() const { return enabled_; }
    void before_run();  // A: right before the timed call
    void after_run();   // B right after it, then C after the window
    ThreadAudit verdict() const;

private:
    using Times = std::map<pid_t, int64_t>;
    // The whole process's CPU time and the calling thread's, beside a reading of the others:
    // a thread that exits within the window is gone from the reading, not from the process.
    struct Totals {
        int64_t process_ns = 0, own_ns = 0;
        static Totals now() { return {process_cpu_ns(), own_thread_cpu_ns()}; }
    };
    Times read();
    Times read_after_return();
    bool took_part(pid_t tid, const Times &b) const;
    int64_t unseen_after(const Times &b, const Times &c, Totals at_b, Totals at_c) const;
    bool idle_threads_busy(const Times &b, const Times &last, const Times &now) const;
    void judge(const Times &a, const Times &b, const Times &c, int64_t unseen_after_ns);
    bool enabled_;
    ThreadTimes times_;
    Times before_;
    std::set<pid_t> runnable_before_;  // running or waiting for a CPU at A
    std::set<pid_t> exiting_at_b_;     // threads run() started, already exiting at B
    ThreadAudit audit_;
    int64_t started_after_ns_ = 0;
    std::map<pid_t, int64_t> worked_after_ns_;  // rule 2's threads: CPU after the returns
};

}  // namespace gpubench
