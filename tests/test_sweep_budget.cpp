// --budget: each entry's sampling time is its part of what is left of the budget, after the
// predicted starts and set-ups of the entries still to run; what the sweep measures replaces
// the nominal predictions.
#include "build_record.hpp"
#include "entry_measurer.hpp"
#include "plugin_info.hpp"
#include "runner_process.hpp"
#include "sweep_budget.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <deque>
#include <optional>
#include <thread>

using namespace gpubench;
using namespace runner_process;

namespace {

PluginInfo cpu_plugin(const std::string &name) {
    PluginInfo plugin;
    plugin.name = name;
    plugin.max_size = 1000;
    return plugin;
}

}  // namespace

TEST_CASE("the budget shares what is left among the entries still to run, after their starts", "[budget]") {
    const PluginInfo a = cpu_plugin("a"), b = cpu_plugin("b");
    SweepEntries entries;
    for (uint64_t size = 1; size <= 4; ++size) entries.push_back({&a, size, ""}), entries.push_back({&b, size, ""});
    MeasureOptions options;
    options.max_time_s = 5;
    options.min_time_s = 3;
    const auto now = SweepBudget::Clock::now();
    double outside = -1;
    // Alone: 10 s, less 8 set-ups of 0.1 s and 2 starts of 0.05 s, over 8 entries.
    SweepBudget alone(10, entries, now);
    MeasureOptions cut = alone.limit(options, outside);
    CHECK(cut.max_time_s == Approx((10 - 0.8 - 0.1) / 8).epsilon(0.01));
    CHECK(cut.min_time_s == Approx(cut.max_time_s / 2));
    CHECK(outside == 0);  // on schedule: no entry skipped for its set-up
    // Never above --max-time, never below the floor, even past the budget.
    SweepBudget generous(1000, entries, now);
    CHECK(generous.limit(options, outside).max_time_s == 5);
    SweepBudget spent(1, entries, now - std::chrono::seconds(5));
    CHECK(spent.limit(options, outside).max_time_s == SweepBudget::min_share_s);
    CHECK(outside == SweepBudget::behind_outside_limit_s);  // behind: long set-ups are skipped
}

TEST_CASE("the budget learns a plugin's set-up and its kind's start from what the sweep measured", "[budget]") {
    const PluginInfo a = cpu_plugin("a"), b = cpu_plugin("b");
    SweepEntries entries{{&a, 1, ""}, {&a, 2, ""}, {&b, 1, ""}, {&b, 2, ""}};
    MeasureOptions options;
    options.max_time_s = 100;
    const auto now = SweepBudget::Clock::now();
    SweepBudget budget(20, entries, now);
    double outside = 0;
    // a's first entry: 3 s outside sampling, in a worker started for it: a start of 2.9 s
    // (less the nominal 0.1 s set-up).
    EntryResult first;
    first.status = EntryStatus::ok;
    first.sweep.worker_started = true;
    first.sweep.entry_wall_s = 4;
    first.resources.sampling_wall_s = 1;
    budget.finished(entries[0], first);
    // a's second: 0.5 s outside sampling, its set-up from now on.
    EntryResult second = first;
    second.sweep.worker_started = false;
    second.sweep.entry_wall_s = 1.5;
    budget.finished(entries[1], second);
    // Left: b's two entries at a's measured set-up (0.5 s each) and b's start as its kind's
    // measured one (2.9 s, instead of the nominal 0.05 s); 4 s of the 20 are not spent here.
    const double share = budget.limit(options, outside).max_time_s;
    const double elapsed = std::chrono::duration<double>(SweepBudget::Clock::now() - now).count();
    CHECK(share == Approx((20 - elapsed - 2 * 0.1 - 2.9) / 2).epsilon(0.01));
}

TEST_CASE("the budget counts what a plugin's entries sample at least: a warm-up and one sample", "[budget]") {
    const PluginInfo a = cpu_plugin("a");
    SweepEntries entries{{&a, 1, ""}, {&a, 2, ""}, {&a, 3, ""}};
    MeasureOptions options;
    options.max_time_s = 100;
    const auto now = SweepBudget::Clock::now();
    SweepBudget budget(20, entries, now);
    // Its first entry: a run() of 2 s, whose warm-up and one sample took 4 s of sampling.
    EntryResult first;
    first.status = EntryStatus::ok;
    first.sweep.entry_wall_s = 4.1;
    first.resources.sampling_wall_s = 4;
    first.timing.first_run = 2;
    first.timing.samples.run = {2};
    budget.finished(entries[0], first);
    // The two left each take those 4 s whatever their share, and 0.1 s besides.
    double outside = 0;
    const double share = budget.limit(options, outside).max_time_s;
    const double elapsed = std::chrono::duration<double>(SweepBudget::Clock::now() - now).count();
    CHECK(share == Approx((20 - elapsed - 2 * (0.1 + 4)) / 2).epsilon(0.01));
}

TEST_CASE("behind schedule, a plugin whose start is predicted long is skipped before it starts", "[budget]") {
    // A C++ CPU plugin (nominal start 0.05 s) and a PyTorch backend (6.05 s nominal).
    PluginInfo cpp = cpu_plugin("cpp"), torch = cpu_plugin("torch");
    torch.device_kind = GPUBENCH_DEVICE_CUDA;
    torch.build_record = BuildRecord{.language = "Python", .imports = {"numpy", "torch"}};
    SweepEntries entries{{&cpp, 1, ""}, {&cpp, 2, ""}, {&torch, 1, ""}, {&torch, 2, ""}};
    const auto now = SweepBudget::Clock::now();
    SweepBudget on_time(100, entries, now);
    CHECK(on_time.start_refusal(torch).empty());  // on schedule: started whatever it costs
    SweepBudget late(1, entries, now - std::chrono::seconds(5));
    CHECK_THAT(late.start_refusal(torch),
               Catch::StartsWith("over the sweep's budget, which is behind its schedule: starting the plugin "
                                 "is predicted to take 6.05 s (worker 0.05 s + CUDA context 0.5 s + Python 1 s "
                                 "+ torch 4.5 s)"));
    // The C++ plugin's first entry had a long set-up (5 s outside sampling, learned as its
    // kind's start); behind or not, a cheap nominal start is never refused.
    EntryResult first;
    first.status = EntryStatus::ok;
    first.sweep.worker_started = true;
    first.sweep.entry_wall_s = 5.1;
    late.finished(entries[0], first);
    CHECK(late.start_refusal(cpp).empty());
    // Once started, its other entries go on.
    late.finished(entries[2], first);
    CHECK(late.start_refusal(torch).empty());
}

namespace {

// Two CUDA plugins of 4 entries each in 4 lanes, on the test's clock; the lanes did 16 s of
// a's work in the first 4 s.
struct FourLanes {
    PluginInfo a = cpu_plugin("a"), torch = cpu_plugin("torch");
    SweepEntries entries;
    const SweepBudget::Clock::time_point start{};
    double now_s = 4;
    std::optional<SweepBudget> budget;
    EntryResult done;
    explicit FourLanes(double budget_s) {
        a.device_kind = torch.device_kind = GPUBENCH_DEVICE_CUDA;
        torch.build_record = BuildRecord{.language = "Python", .imports = {"numpy", "torch"}};
        for (uint64_t size = 1; size <= 4; ++size) entries.push_back({&a, size, ""}), entries.push_back({&torch, size, ""});
        budget.emplace(budget_s, entries, start, std::vector<bool>(entries.size(), true), 4, [this] {
            return start + std::chrono::duration_cast<SweepBudget::Clock::duration>(std::chrono::duration<double>(now_s));
        });
        const double began_s = now_s;
        now_s = 0;
        budget->lanes_begin();
        now_s = began_s;
        done.status = EntryStatus::ok;
        done.sweep.entry_wall_s = 16;
        done.resources.sampling_wall_s = 15.9;
        budget->finished(entries[0], done);
    }
};

}  // namespace

TEST_CASE("in lanes, the shares are a one-GPU sweep's, behind is the wall clock's, and what it skips is taken "
          "up late where the slack holds it",
          "[budget][devices]") {
    MeasureOptions options;
    options.max_time_s = 100;
    double outside = -1;
    // 20 s: on one GPU's schedule 4 s are left, less a's 3 entries' 0.1 s set-ups, torch's
    // nominal 6.05 s start and its 4 entries' 0.1 s: the least share. The wall clock has 16 s
    // for the rest, which takes a quarter of them at lane_slowdown: not behind, nothing skipped.
    FourLanes lanes(20);
    CHECK(lanes.budget->limit(options, outside).max_time_s == SweepBudget::min_share_s);
    CHECK(outside == 0);
    CHECK(lanes.budget->start_refusal(lanes.torch).empty());
    // Taken up late: the slack a set-up may take, 16 s less the rest as it will run with
    // min_share_s each; torch's start fits in it.
    const double as_run = SweepBudget::lane_slowdown / 4;
    const MeasureOptions late = lanes.budget->limit(options, outside, true);
    CHECK(late.max_time_s == SweepBudget::min_share_s);
    CHECK(outside == Approx(16 - as_run * (3 * 0.1 + 6.05 + 4 * 0.1 + 7 * SweepBudget::min_share_s)));
    CHECK(lanes.budget->start_refusal(lanes.torch, true).empty());
    // Once the wall clock is spent, behind: a long set-up or start is skipped, late or not.
    lanes.now_s = 19.5;
    lanes.budget->limit(options, outside);
    CHECK(outside == SweepBudget::behind_outside_limit_s);
    CHECK_THAT(lanes.budget->start_refusal(lanes.torch), Catch::StartsWith(behind_schedule_text));
    CHECK_THAT(lanes.budget->start_refusal(lanes.torch, true), Catch::StartsWith(behind_schedule_text));
    lanes.budget->limit(options, outside, true);
    CHECK(outside == SweepBudget::behind_outside_limit_s);

    // 100 s, on schedule: 84 s left on it. A late entry's 10 s leave the schedule where it was
    // (it was counted off when put back); one on the schedule moves it.
    for (const bool late : {true, false}) {
        FourLanes roomy(100);
        SweepEntry entry = roomy.entries[2];
        entry.late = late;
        if (late) roomy.budget->finished(roomy.entries[2], EntryResult{});  // put back: skipped
        EntryResult long_setup = roomy.done;
        long_setup.sweep.entry_wall_s = 10.05;
        long_setup.resources.sampling_wall_s = 0.05;
        roomy.budget->finished(entry, long_setup);
        // a's last two entries now predicted at its 10 s set-up, torch's as before.
        const double left_s = 84 - (late ? 0 : 10.05);
        CHECK(roomy.budget->limit(options, outside).max_time_s == Approx((left_s - 2 * 10 - 6.05 - 4 * 0.1) / 6));
        CHECK(outside == 0);
    }
}

TEST_CASE("a late entry's worker start is counted as its plugin's first was, one-off set-up included",
          "[budget][devices]") {
    // Three Numba-CUDA plugins of one kind in 2 lanes; their first entries took 2, 2 and 50 s
    // outside sampling (a worker's start, and for `slow` a JIT's long compilations). A late
    // entry starts a worker again, which pays that again: the kind's median start (2 s) holds
    // `quick`'s, not `slow`'s.
    std::deque<PluginInfo> plugins;
    SweepEntries entries;
    for (const char *name : {"quick", "other", "slow"}) {
        PluginInfo &plugin = plugins.emplace_back(cpu_plugin(name));
        plugin.device_kind = GPUBENCH_DEVICE_CUDA;
        plugin.build_record = BuildRecord{.language = "Python", .imports = {"numpy", "numba"}};
        for (uint64_t size = 1; size <= 2; ++size) entries.push_back({&plugin, size, ""});
    }
    const SweepBudget::Clock::time_point start{};
    SweepBudget budget(40, entries, start, std::vector<bool>(entries.size(), true), 2, [&] { return start; });
    budget.lanes_begin();
    for (size_t i = 0; i < plugins.size(); ++i) {
        EntryResult first;
        first.status = EntryStatus::ok;
        first.sweep.worker_started = true;
        first.sweep.entry_wall_s = (i == 2 ? 50 : 2) + 0.05;
        first.resources.sampling_wall_s = 0.05;
        budget.finished(entries[2 * i], first);
    }
    MeasureOptions options;
    double slack = 0;
    budget.limit(options, slack, true);
    INFO("the slack: " << slack << " s");
    REQUIRE(slack > 3.05);  // Numba's nominal start
    REQUIRE(slack < 49);
    CHECK(budget.start_refusal(plugins[0], true).empty());
    CHECK_THAT(budget.start_refusal(plugins[2], true), Catch::StartsWith(behind_schedule_text));
}

TEST_CASE("runner --budget cuts each entry's sampling to its part, and records it", "[budget][cli]") {
    const test_support::TempFolder folder;
    const auto file = folder.path() / "budget.json";
    // Without a budget these five entries would sample 1 s each (no noise criterion).
    const Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 1,2,3,4,5 --min-time 1 --max-time 1 "
                                              "--max-noise 0 --max-samples 100000000 --budget 2 -q -o " + file.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const nlohmann::json document = read_json(file);
    CHECK(document["options"]["budget_s"] == 2);
    double budgets = 0;
    for (const nlohmann::json &entry : document["entries"]) {
        const double share = entry["harness"]["sampling_budget_s"].get<double>();
        INFO(entry["size"]);
        CHECK(share < 2.0 / 5 + 0.01);
        CHECK(share >= SweepBudget::min_share_s);
        // Sampling stopped at its cut (give or take the harness's own time on a busy
        // machine), well before --max-time.
        CHECK(entry["resources"]["sampling_wall_s"].get<double>() < 0.75);
        budgets += share;
    }
    CHECK(budgets <= 2);
}

TEST_CASE("a set-up is predicted from the previous size by declared host bytes, else bytes, items, sizes",
          "[budget]") {
    RunBudget budget;
    budget.from_size = 1000;
    budget.from_outside_s = 0.2;
    budget.from_work.host_bytes = 8e3;
    budget.from_work.bytes = 1;
    Work next;
    next.host_bytes = 8e5;
    next.bytes = 1e9;
    CHECK(predicted_outside_s(budget, next, 100000) == Approx(20));  // host bytes first
    next.host_bytes = 0;
    CHECK(predicted_outside_s(budget, next, 100000) == Approx(0.2e9));  // then bytes
    CHECK(predicted_outside_s(budget, Work{}, 100000) == Approx(20));   // then sizes
    CHECK(predicted_outside_s(budget, next, 1000) == 0);                // not a larger size
    budget.from_outside_s = 0;
    CHECK(predicted_outside_s(budget, next, 100000) == 0);              // nothing measured
}

TEST_CASE("a sweep behind its budget skips an entry whose set-up is predicted to be long", "[budget][cli]") {
    const test_support::TempFolder folder;
    const auto file = folder.path() / "behind.json";
    // 1 ms of budget: behind from the first entry; 1e8 is predicted from 1e3, 10^5 times more.
    // The first size is its worker's first: its one-off costs predict nothing, so 1e3 is
    // measured twice over (1e3 and 1001) before a prediction is made from the second.
    const Outcome o = run_runner("--plugin vecadd_naive --sizes 1e3,1001,1e8 --budget 0.001 -q -o " + file.string());
    INFO(o.output);
    CHECK(o.status == 3);
    const nlohmann::json entries = read_json(file)["entries"];
    REQUIRE(entries.size() == 3);
    CHECK(entries[0]["status"] == "ok");  // nothing to predict it from
    CHECK(entries[1]["status"] == "ok");  // predicted from a worker's first entry: not at all
    CHECK(entries[2]["status"] == "skipped");
    CHECK_THAT(entries[2]["message"].get<std::string>(),
               Catch::StartsWith("over the sweep's budget, which is behind its schedule: its set-up and checks are "
                                 "predicted to take ") &&
                   Catch::EndsWith("(from size 1001), above 1 s; --sizes 100000000 runs it"));
}

TEST_CASE("a sweep behind its budget skips an entry whose warm-up and one sample are predicted to be long",
          "[budget][cli]") {
    const test_support::TempFolder folder;
    const auto file = folder.path() / "behind.json";
    // fixture_spin's run() spins 60 ms whatever the size, but its declared work grows with the
    // size: from size 4, size 40's run() is predicted at 0.6 s, its warm-up and one sample at
    // 1.2 s, and its time outside sampling (about 61 ms at size 4, a run() of it) at 0.61 s.
    // On schedule (no budget) it is measured: the rule is the schedule's.
    const std::string sweep = fixtures() + " --plugin fixture_spin --sizes 1,4,40 --threads 1 -q -o ";
    const Outcome behind = run_runner(sweep + file.string() + " --budget 0.001");
    INFO(behind.output);
    CHECK(behind.status == 3);
    const nlohmann::json entries = read_json(file)["entries"];
    REQUIRE(entries.size() == 3);
    CHECK(entries[1]["status"] == "ok");
    CHECK(entries[2]["status"] == "skipped");
    CHECK_THAT(entries[2]["message"].get<std::string>(),
               Catch::StartsWith("over the sweep's budget, which is behind its schedule: its warm-up and one sample "
                                 "are predicted to take ") &&
                   Catch::EndsWith("(from size 4), above 1 s; --sizes 40 runs it"));
    const Outcome on_time = run_runner(sweep + file.string() + " --max-time 0.2");
    INFO(on_time.output);
    CHECK(on_time.status == 0);
    CHECK(read_json(file)["entries"][2]["status"] == "ok");
}
