// Which run() calls of an entry are timed with the stream held (stream_hold.hpp). The first
// calls are probes, not held (the first may compile): holding starts once a call took under
// hold_below_host_s on the host (the watchdog's timeout then 4 x that call, within 50 ms-1 s),
// and is given up after a second slow one: a run() that slow waits for its own work or fills
// the launch queue, either of which would stall behind a hold. When the watchdog ends a hold,
// holding stops for the entry (and the plugin's later entries in that worker). Either change
// drops the samples taken so far: an entry's samples are all held or all not.
#pragma once

#include "phase_timer.hpp"

#include <string>

namespace gpubench {

inline constexpr double hold_below_host_s = 5e-3;

// Whether a verdict says the hold had to be broken by its watchdog.
bool released_by_watchdog(const std::string &verdict);

class RunHolder {
public:
    // enabled: a device clock, and --no-stream-hold not given.
    RunHolder(PhaseTimer &timer, bool enabled);
    // Right before a timed run(): holds the timer's stream where it should.
    void before_run();
    // Right after it, with the call's host seconds. False when the samples taken so far are
    // not like the ones to follow (holding began, or the watchdog ended it): drop them.
    bool after_run(double host_s);
    // What the entry records: "held" when each sample's run() was; why not otherwise; "" for
    // a host clock or with holding switched off.
    std::string verdict() const;
    // Whether the stream is held for the coming run() (after before_run).
    bool held_now() const { return held_now_; }

private:
    enum class State { probing, holding, off };

    PhaseTimer &timer_;
    State state_;
    int slow_probes_ = 0;
    bool held_now_ = false;
    double timeout_s_ = 1.0;
    std::string off_;  // why calls are not held (state off)
};

}  // namespace gpubench
