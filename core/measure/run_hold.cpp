#include "run_hold.hpp"

#include "text_format.hpp"

#include <algorithm>

namespace gpubench {
namespace {

constexpr char watchdog_verdict[] = "not held: the hold was released by its watchdog";

}  // namespace

bool released_by_watchdog(const std::string &verdict) {
    return verdict.rfind(watchdog_verdict, 0) == 0;
}

RunHolder::RunHolder(PhaseTimer &timer, bool enabled)
    : timer_(timer), state_(enabled ? State::probing : State::off) {}

void RunHolder::before_run() {
    held_now_ = false;
    if (state_ != State::holding) return;
    if (const std::string why_not = timer_.hold_next(timeout_s_); !why_not.empty()) {
        state_ = State::off;
        off_ = "not held: " + why_not;
        return;
    }
    held_now_ = true;
}

bool RunHolder::after_run(double host_s) {
    if (state_ == State::probing) {
        if (host_s < hold_below_host_s) {
            state_ = State::holding;
            timeout_s_ = std::clamp(4 * host_s, 0.05, 1.0);
            return false;  // this call was not held; the next ones will be
        }
        if (++slow_probes_ == 2) {
            state_ = State::off;
            off_ = "not held: run() took " + format_seconds(host_s) + " on the host (held only " +
                   "under " + format_seconds(hold_below_host_s) +
                   ": longer, it waits for its own work or enqueues more than the launch queue "
                   "takes)";
        }
        return true;
    }
    if (!held_now_ || timer_.hold_lasted()) return true;
    held_now_ = false;
    state_ = State::off;
    off_ = std::string(watchdog_verdict) + " after " + format_seconds(timeout_s_) + " (run() took " +
           format_seconds(host_s) +
           " on the host: it waits for its own device work, or enqueues more than the launch "
           "queue takes), so the spans include host time";
    return false;
}

std::string RunHolder::verdict() const {
    if (state_ == State::holding) return "held";
    if (state_ == State::probing) return "not held: every run() was a probe (its first calls)";
    return off_;
}

}  // namespace gpubench
