// Which run() calls are held (run_hold.hpp), against a timer that only records what it is
// asked: the probes, the timeout, a hold the watchdog ended, and what the entry records.
#include "run_hold.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace gpubench;

namespace {

// A device-like timer: hold_next() succeeds (or says why not), and hold_lasted() says what
// the test set.
class FakeHoldTimer final : public PhaseTimer {
public:
    const char *clock_name() const override { return "fake"; }
    std::string hold_next(double timeout_s) override {
        timeouts.push_back(timeout_s);
        return refuse;
    }
    bool hold_lasted() const override { return lasted; }
    void start() override {}
    double stop() override { return 0; }

    std::vector<double> timeouts;  // one per held call
    std::string refuse;            // non-empty: hold_next() fails with it
    bool lasted = true;
};

// One call: before_run, then after_run with `host_s`; returns after_run's answer.
bool call(RunHolder &holder, double host_s) {
    holder.before_run();
    return holder.after_run(host_s);
}

}  // namespace

TEST_CASE("run() is held once a probe was quick, with a timeout from it, and the switch drops earlier samples") {
    FakeHoldTimer timer;
    RunHolder holder(timer, true);
    CHECK(call(holder, 2.0));        // the first call compiles: slow, not held, kept
    CHECK_FALSE(call(holder, 1e-4)); // quick: holding starts, this unheld sample must go
    CHECK(timer.timeouts.empty());
    CHECK(call(holder, 1e-4));
    CHECK(call(holder, 1e-4));
    REQUIRE(timer.timeouts.size() == 2);
    CHECK(timer.timeouts[0] == Approx(0.05));  // 4 x 100 us, at least 50 ms
    CHECK(holder.verdict() == "held");
}

TEST_CASE("two slow probes: run() is never held, and the entry says why") {
    FakeHoldTimer timer;
    RunHolder holder(timer, true);
    CHECK(call(holder, 2.0));
    CHECK(call(holder, 0.02));
    CHECK(call(holder, 1e-4));  // quick now, but the decision is made: samples stay alike
    CHECK(timer.timeouts.empty());
    CHECK_THAT(holder.verdict(), Catch::StartsWith("not held: run() took 20.000 ms on the host"));
}

TEST_CASE("a hold the watchdog ended stops holding and drops the held samples") {
    FakeHoldTimer timer;
    RunHolder holder(timer, true);
    CHECK_FALSE(call(holder, 1e-3));
    CHECK(call(holder, 1e-3));
    timer.lasted = false;
    CHECK_FALSE(call(holder, 0.06));
    CHECK(released_by_watchdog(holder.verdict()));
    timer.lasted = true;
    const size_t held = timer.timeouts.size();
    CHECK(call(holder, 1e-3));
    CHECK(timer.timeouts.size() == held);  // never held again
}

TEST_CASE("a timer that cannot hold, or holding switched off") {
    FakeHoldTimer timer;
    timer.refuse = "no hold here";
    RunHolder refused(timer, true);
    CHECK_FALSE(call(refused, 1e-4));
    CHECK(call(refused, 1e-4));
    CHECK(refused.verdict() == "not held: no hold here");
    RunHolder off(timer, false);
    CHECK(call(off, 1e-4));
    CHECK(off.verdict().empty());
}
