// Memory that grows with the number of run() calls: a leak, as leak_check's rule (leak.cpp)
// says. Read at run counts that double, it costs a few reads per entry; allocations that
// settle (a pool, a lazily created handle) stop growing and are not leaks.
#pragma once

#include "check.hpp"
#include "phase_timer.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct MemoryReading {
    size_t runs = 0;                        // run() calls completed when read
    std::optional<uint64_t> device_used;    // the device's used bytes (nullopt: host clock)
    bool device_shared = false;             // another process had a context there: not ours alone
    uint64_t host_allocated = 0;            // malloc'd and not freed (mallinfo2: arenas + mmapped)
    uint64_t host_resident = 0;             // resident set
};

// Reads memory now; `timer` gives the device figure.
MemoryReading read_memory(const PhaseTimer &timer, size_t runs);

// The check, judged while sampling (LeakWatch::after_run, read_now).
extern const Check leak_check;

class LeakWatch {
public:
    static constexpr uint64_t leak_min_total = 16ull << 20;   // 16 MiB
    static constexpr uint64_t leak_min_per_run = 64ull << 10;  // 64 KiB

    explicit LeakWatch(const PhaseTimer &timer) : timer_(timer) {}
    // Call after each run(); reads memory when `runs` reaches the next checkpoint. Returns the
    // leak found so far ("" = none), so that sampling can stop before memory runs out.
    std::string after_run(size_t runs);
    // A reading now, whatever the count (after an out-of-memory failure, say).
    void read_now(size_t runs);
    std::string leak() const;  // "leaks 256 MiB of device memory per run()", or ""
    // Host memory that grew from `before` to `after` for the runner's own reasons (a traced
    // cycle: CUPTI's buffers and tables), taken out of this and every later reading.
    void set_aside(const MemoryReading &before, const MemoryReading &after);

private:
    const PhaseTimer &timer_;
    std::vector<MemoryReading> readings_;
    uint64_t aside_allocated_ = 0, aside_resident_ = 0;
    size_t next_checkpoint_ = 0;  // 0: the first call reads
};

// The leak shown by three readings of one kind of memory (a, b, c in run order): "" or the
// growth per run in words. `what` names the memory ("device memory"). Exposed for tests.
std::string leak_between(size_t runs_a, uint64_t a, size_t runs_b, uint64_t b, size_t runs_c,
                         uint64_t c, const char *what);

}  // namespace gpubench
