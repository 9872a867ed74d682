#include "counter_change.hpp"

#include "text_format.hpp"

#include <thread>
#include <utility>

namespace gpubench {

std::string not_aligned_note(const char *end) {
    return format_text("not aligned at its %s: NVML's energy counter did not change within %.2g s", end,
                       counter_change_limit_s);
}

CounterChange::CounterChange(Read read) : read_(std::move(read)) {
    const std::optional<uint64_t> value = read_();
    first_read_ = last_read_ = at_ = Clock::now();
    readable_ = value.has_value();
    first_ = value_ = value.value_or(0);
}

bool CounterChange::changed() {
    if (changed_ || !readable_) return changed_;
    const std::optional<uint64_t> value = read_();
    const Clock::time_point now = Clock::now();
    if (value && *value != first_) {
        changed_ = true;
        value_ = *value;
        at_ = last_read_ + (now - last_read_) / 2;
    } else {
        at_ = now;
    }
    last_read_ = now;
    return changed_;
}

bool CounterChange::await(double limit_s) {
    // A pause between reads, short beside a step: a counter read in microseconds (a test's) is
    // not spun on.
    while (readable_ && !changed() && waited_s() < limit_s) std::this_thread::sleep_for(std::chrono::microseconds(200));
    return changed_;
}

}  // namespace gpubench
