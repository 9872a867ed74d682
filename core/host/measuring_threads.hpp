// Running a measurement on every logical CPU at once, and reading rates from it that other
// processes preempting the measuring threads do not lower; and what the measuring kernels share
// (host_peaks_measure.cpp, cache_bandwidth.cpp): the x86 intrinsics, the sink of their results.
#pragma once

#include "host_resources.hpp"
#include "thread_name.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GPUBENCH_X86 1
#endif

namespace gpubench {

// The measuring kernels' results land here, so that none is dead code.
inline std::atomic<double> kernel_sink{0};

// What one repetition on all threads did: each thread's work units and on-CPU seconds, and
// the wall time from the common start to the last thread's end.
struct Repetition {
    std::vector<double> units, cpu_s;
    double wall_s = 0;
    double wall_rate() const {
        return wall_s > 0 ? std::accumulate(units.begin(), units.end(), 0.0) / wall_s : 0;
    }
    // Each thread's rate over its own on-CPU time: a thread preempted by another process
    // does not look slower than the hardware let it be.
    double thread_rate(size_t i) const { return cpu_s[i] > 0 ? units[i] / cpu_s[i] : 0; }
    // The best of the wall rate and the threads' rates summed, for work each core does alone
    // (its FMA units, its own cache): the sum holds whatever else preempted them.
    double best_own_core_rate() const {
        double summed = 0;
        for (size_t i = 0; i < units.size(); ++i) summed += thread_rate(i);
        return std::max(wall_rate(), summed);
    }
    // Every thread was on a CPU nearly all along: nothing else took turns with them.
    bool all_ran() const {
        return std::all_of(cpu_s.begin(), cpu_s.end(), [&](double c) { return c >= 0.9 * wall_s; });
    }
};

// Memory for the measuring threads' streams, aligned (std::aligned_alloc); null when there is none.
struct FreeDeleter {
    void operator()(double *p) const { std::free(p); }
};
using AlignedDoubles = std::unique_ptr<double, FreeDeleter>;
inline AlignedDoubles aligned_doubles(size_t alignment, size_t bytes) {
    return AlignedDoubles(static_cast<double *>(std::aligned_alloc(alignment, bytes)));
}

// Runs work(i) on n threads that start together; work(i) returns thread i's work units.
template <class Work>
inline Repetition run_together(unsigned n, Work work) {
    using clock = std::chrono::steady_clock;
    std::atomic<unsigned> ready{0};
    std::atomic<bool> abandon{false};
    Repetition rep{std::vector<double>(n), std::vector<double>(n)};
    std::vector<clock::time_point> start(n), end(n);
    std::vector<std::thread> threads;
    try {
        for (unsigned i = 0; i < n; ++i)
            threads.emplace_back([&, i] {
                name_this_thread("peaks");
                ready.fetch_add(1);
                while (ready.load() < n && !abandon.load()) std::this_thread::yield();
                start[i] = clock::now();
                const int64_t t0 = own_thread_cpu_ns();
                rep.units[i] = work(i);
                rep.cpu_s[i] = (own_thread_cpu_ns() - t0) * 1e-9;
                end[i] = clock::now();
            });
    } catch (...) {  // no more threads to be had: the ones started must not wait forever
        abandon = true;
    }
    for (auto &t : threads) t.join();
    if (abandon) throw std::runtime_error("cannot start a thread per core");
    rep.wall_s = std::chrono::duration<double>(*std::max_element(end.begin(), end.end()) -
                                               *std::min_element(start.begin(), start.end()))
                     .count();
    return rep;
}

}  // namespace gpubench
