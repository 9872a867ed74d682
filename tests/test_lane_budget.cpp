// More GPUs never measure less: a budgeted sweep simulated on a clock of its own, once as a
// one-GPU sweep (every entry in sweep order) and once with its GPU entries in 2, 4 and 8
// lanes (LaneQueue's order), through the same SweepBudget and the same rules the sweep skips
// by (a long start refused behind schedule, a long set-up skipped behind schedule). The
// entries' true costs are what hosts showed: compiled plugins; a CuPy backend whose set-up and
// checks take 7 s an entry, though predicted at 0.1 s; one whose run() takes 2 s (launch-bound:
// its warm-up and one sample overrun any share); PyTorch's 6 s starts; and a plugin whose
// later set-ups take 1.5 s.
#include "entry_cost.hpp"
#include "lane_queue.hpp"
#include "sweep_budget.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

using namespace gpubench;

namespace {

struct TrueCost {
    double start_s, outside_s;  // a worker's start; each entry's set-up and checks
    double run_s = 0.001;       // one run(): sampling takes at least a warm-up and one sample
};

struct SimulatedHost {
    std::deque<PluginInfo> plugins;
    std::map<const PluginInfo *, TrueCost> costs;
    SweepEntries cpu_entries, gpu_entries;  // each in sweep order

    void add(const std::string &name, gpubench_device_kind kind, std::vector<std::string> python_imports,
             uint64_t sizes, TrueCost cost) {
        PluginInfo &plugin = plugins.emplace_back();
        plugin.name = name;
        plugin.device_kind = kind;
        plugin.max_size = sizes;
        if (!python_imports.empty()) plugin.build_record = BuildRecord{.language = "Python", .imports = python_imports};
        costs[&plugin] = cost;
        for (uint64_t size = 1; size <= sizes; ++size)
            (kind == GPUBENCH_DEVICE_CUDA ? gpu_entries : cpu_entries).push_back({&plugin, size, ""});
    }
};

SimulatedHost a_host() {
    SimulatedHost host;
    host.add("cpu_loop", GPUBENCH_DEVICE_CPU, {}, 8, {0.05, 0.1});
    for (int i = 0; i < 8; ++i) host.add("compiled_" + std::to_string(i), GPUBENCH_DEVICE_CUDA, {}, 6, {0.6, 0.15});
    host.add("setup_cupy", GPUBENCH_DEVICE_CUDA, {"cupy"}, 3, {2.0, 7.0});
    host.add("launch_bound_cupy", GPUBENCH_DEVICE_CUDA, {"cupy"}, 3, {2.0, 0.02, 2.0});
    host.add("torch_a", GPUBENCH_DEVICE_CUDA, {"torch"}, 6, {6.0, 0.2});
    host.add("torch_b", GPUBENCH_DEVICE_CUDA, {"torch"}, 6, {6.0, 0.2});
    host.add("long_setup", GPUBENCH_DEVICE_CUDA, {}, 4, {0.6, 1.5});
    return host;
}

struct SimulatedSweep {
    std::set<std::pair<std::string, uint64_t>> measured;
    double wall_s = 0;
};

// The sweep of `host` within `budget_s`: its CPU entries alone, then its GPU entries in
// `lanes` lanes (1: in sweep order, as on one GPU). Each measured entry samples for its share
// of the budget, or for a warm-up and one sample where they take longer.
SimulatedSweep simulate(const SimulatedHost &host, size_t lanes, double budget_s) {
    using Clock = SweepBudget::Clock;
    const Clock::time_point start{};
    double now_s = 0;
    SweepEntries all = host.cpu_entries;
    all.insert(all.end(), host.gpu_entries.begin(), host.gpu_entries.end());
    std::vector<bool> in_lanes(host.cpu_entries.size(), false);
    in_lanes.resize(all.size(), lanes > 1);
    SweepBudget budget(budget_s, all, start, in_lanes, lanes, [&] {
        return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(now_s));
    });
    MeasureOptions options;
    options.max_time_s = 1;
    SimulatedSweep sweep;
    std::set<std::pair<size_t, const PluginInfo *>> workers;  // (lane, plugin) started
    std::set<const PluginInfo *> outside_known;               // set-up measured past a start
    std::set<const PluginInfo *> run_known;                   // run() measured

    // One entry, in `lane` at now_s: how long it takes (0 when skipped).
    const auto measure = [&](const SweepEntry &entry, size_t lane) {
        double outside_limit_s = 0;
        const MeasureOptions cut = budget.limit(options, outside_limit_s);
        const TrueCost cost = host.costs.at(entry.plugin);
        EntryResult result;
        // Behind schedule, an entry whose set-up, or whose warm-up and one sample, are known from
        // its plugin's earlier entries to take longer than the limit (entry_measurer.cpp).
        const bool late_set_up = outside_limit_s > 0 && ((outside_known.count(entry.plugin) && cost.outside_s > outside_limit_s) ||
                                                         (run_known.count(entry.plugin) && 2 * cost.run_s > outside_limit_s));
        if (!budget.start_refusal(*entry.plugin).empty() || late_set_up) {
            result.status = EntryStatus::skipped;
            budget.finished(entry, result);
            return 0.0;
        }
        result.status = EntryStatus::ok;
        result.sweep.worker_started = workers.insert({lane, entry.plugin}).second;
        if (!result.sweep.worker_started) outside_known.insert(entry.plugin);
        run_known.insert(entry.plugin);
        result.first_run_s = cost.run_s;
        result.run_s = {cost.run_s};
        result.resources.sampling_wall_s = std::max(cut.max_time_s, 2 * cost.run_s);
        result.sweep.entry_wall_s =
            (result.sweep.worker_started ? cost.start_s : 0) + cost.outside_s + result.resources.sampling_wall_s;
        budget.finished(entry, result);
        sweep.measured.insert({entry.plugin->name, entry.size});
        return result.sweep.entry_wall_s;
    };

    const SweepEntries &alone = lanes == 1 ? all : host.cpu_entries;
    for (const SweepEntry &entry : alone) now_s += measure(entry, 0);
    if (lanes > 1) {
        LaneQueue queue(host.gpu_entries, options, lanes);
        std::vector<double> free_at(lanes, now_s);
        std::vector<bool> done(lanes, false);
        while (std::find(done.begin(), done.end(), false) != done.end()) {
            size_t lane = lanes;  // the lane free first
            for (size_t l = 0; l < lanes; ++l)
                if (!done[l] && (lane == lanes || free_at[l] < free_at[lane])) lane = l;
            now_s = free_at[lane];
            const std::optional<SweepEntry> entry = queue.next(lane);
            if (!entry) {
                done[lane] = true;
                continue;
            }
            free_at[lane] += measure(*entry, lane);
        }
        now_s = *std::max_element(free_at.begin(), free_at.end());
    }
    sweep.wall_s = now_s;
    return sweep;
}

}  // namespace

TEST_CASE("a budgeted sweep in lanes measures every entry the one-GPU sweep measures, within the budget",
          "[budget][devices]") {
    const SimulatedHost host = a_host();
    for (const double budget_s : {60.0, 90.0, 150.0}) {
        const SimulatedSweep one = simulate(host, 1, budget_s);
        INFO("budget " << budget_s << " s: one GPU measured " << one.measured.size() << " in " << one.wall_s << " s");
        CHECK(one.wall_s <= budget_s * 1.05);
        for (const size_t lanes : {2, 4, 8}) {
            const SimulatedSweep many = simulate(host, lanes, budget_s);
            INFO(lanes << " lanes measured " << many.measured.size() << " in " << many.wall_s << " s");
            CHECK(many.wall_s <= budget_s * 1.05);
            for (const auto &[plugin, size] : one.measured) {
                INFO(plugin << " " << size << " measured on one GPU");
                CHECK(many.measured.count({plugin, size}));
            }
            CHECK(many.measured.size() >= one.measured.size());
        }
    }
    // The tight budgets are a test: the one-GPU sweep falls behind and skips there.
    CHECK(simulate(host, 1, 60).measured.size() < host.cpu_entries.size() + host.gpu_entries.size());
}
