// A GPU's energy counter read at its changes. NVML's counter advances in steps (about every
// 100 ms on an H200, where one read takes about 4 ms): joules read at two arbitrary moments
// cover a span that differs from the time between them by up to a step at each end, while
// joules read at two of its changes cover exactly the time between the changes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace gpubench {

// How long a wait for the counter's next change lasts at the most: 2.5 of an H200's steps.
inline constexpr double counter_change_limit_s = 0.25;

// "not aligned at its <end>: NVML's energy counter did not change within 0.25 s"
std::string not_aligned_note(const char *end);

class CounterChange {
public:
    using Clock = std::chrono::steady_clock;
    using Read = std::function<std::optional<uint64_t>()>;
    // Reads the counter once: the value a change is a change from.
    explicit CounterChange(Read read);
    // Reads it again; true once the value differs from the first read's (and from then on).
    bool changed();
    // Reads until it changes or limit_s has passed since the first read (then false: the
    // window it marks is not aligned); returns changed().
    bool await(double limit_s = counter_change_limit_s);
    bool readable() const { return readable_; }  // the first read gave a value
    uint64_t value() const { return value_; }    // the latest read's
    // Where the change is placed: midway between the last read that showed the old value and
    // the first that showed the new one; before any change, the latest read's time.
    Clock::time_point at() const { return at_; }
    double waited_s() const { return std::chrono::duration<double>(last_read_ - first_read_).count(); }

private:
    Read read_;
    uint64_t first_ = 0, value_ = 0;
    bool readable_ = false, changed_ = false;
    Clock::time_point first_read_, last_read_, at_;
};

}  // namespace gpubench
