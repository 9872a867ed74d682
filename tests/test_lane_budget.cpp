// More GPUs never measure less: a budgeted sweep simulated on a clock of its own, once as a
// one-GPU sweep (every entry in sweep order) and once with its GPU entries in 2, 4 and 8
// lanes (LaneQueue's order), through the same SweepBudget and the same rules the sweep skips
// by (a long start refused behind schedule, a long set-up skipped behind schedule). Two hosts:
// - made up from what hosts showed: compiled plugins; a CuPy backend whose set-up and checks
//   take 7 s an entry, though predicted at 0.1 s; one whose run() takes 2 s (launch-bound: its
//   warm-up and one sample overrun any share); PyTorch's 6 s starts; and a plugin whose later
//   set-ups take 1.5 s;
// - replayed: each entry's start, set-up and checks and run() as the multi-GPU study's default
//   sweeps recorded them on 4 and on 2 H200s (docs/studies/data/multi-gpu/), alone from the
//   one-GPU sweep's file and in lanes from the several-GPU sweep's (each where the other
//   lacks it).
#include "entry_cost.hpp"
#include "lane_queue.hpp"
#include "results_model.hpp"
#include "statistics.hpp"
#include "sweep_budget.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <set>

using namespace gpubench;

namespace {

struct EntryCost {
    double outside_s;        // set-up and checks, the worker's start aside
    double run_s = 0.001;    // one run(): sampling takes at least a warm-up and one sample
};
using EntryKey = std::pair<const PluginInfo *, uint64_t>;

struct SimulatedHost {
    std::deque<PluginInfo> plugins;
    std::map<const PluginInfo *, double> start_s;  // a worker's start
    std::map<EntryKey, EntryCost> alone, in_lanes;  // what each entry costs run alone, or in a lane
    SweepEntries cpu_entries, gpu_entries;          // each in sweep order

    PluginInfo &add_plugin(const std::string &name, gpubench_device_kind kind, std::vector<std::string> imports) {
        PluginInfo &plugin = plugins.emplace_back();
        plugin.name = name;
        plugin.device_kind = kind;
        plugin.max_size = UINT64_MAX;
        if (!imports.empty()) plugin.build_record = BuildRecord{.language = "Python", .imports = imports};
        return plugin;
    }
    void add_entry(const PluginInfo &plugin, uint64_t size, EntryCost alone_cost, EntryCost lane_cost) {
        alone[{&plugin, size}] = alone_cost;
        in_lanes[{&plugin, size}] = lane_cost;
        (plugin.is_cuda() ? gpu_entries : cpu_entries).push_back({&plugin, size, ""});
    }
    void add(const std::string &name, gpubench_device_kind kind, std::vector<std::string> imports, uint64_t sizes,
             double start, EntryCost cost) {
        const PluginInfo &plugin = add_plugin(name, kind, std::move(imports));
        start_s[&plugin] = start;
        for (uint64_t size = 1; size <= sizes; ++size) add_entry(plugin, size, cost, cost);
    }
};

SimulatedHost a_host() {
    SimulatedHost host;
    host.add("cpu_loop", GPUBENCH_DEVICE_CPU, {}, 8, 0.05, {0.1});
    for (int i = 0; i < 8; ++i) host.add("compiled_" + std::to_string(i), GPUBENCH_DEVICE_CUDA, {}, 6, 0.6, {0.15});
    host.add("setup_cupy", GPUBENCH_DEVICE_CUDA, {"cupy"}, 3, 2.0, {7.0});
    host.add("launch_bound_cupy", GPUBENCH_DEVICE_CUDA, {"cupy"}, 3, 2.0, {0.02, 2.0});
    host.add("torch_a", GPUBENCH_DEVICE_CUDA, {"torch"}, 6, 6.0, {0.2});
    host.add("torch_b", GPUBENCH_DEVICE_CUDA, {"torch"}, 6, 6.0, {0.2});
    host.add("long_setup", GPUBENCH_DEVICE_CUDA, {}, 4, 0.6, {1.5});
    return host;
}

// What each measured entry of a recorded sweep cost, and each plugin's start.
struct RecordedSweep {
    ResultsDocument document;
    std::map<std::pair<std::string, uint64_t>, EntryCost> entries;
    std::map<std::string, double> start_s;
};

RecordedSweep recorded_sweep(const std::string &file) {
    RecordedSweep sweep{read_results_file(std::filesystem::path(GPUBENCH_SOURCE_DIR) / "docs/studies/data/multi-gpu" / file), {}, {}};
    const std::vector<RecordedCost> costs = recorded_costs(sweep.document);
    for (size_t i = 0; i < costs.size(); ++i) {
        const EntryResult &e = sweep.document.entries[i];
        if (e.status != EntryStatus::ok || e.run_s.empty()) continue;
        const double start = e.sweep.worker_started ? costs[i].start_s.value_or(0) : 0;
        if (e.sweep.worker_started) sweep.start_s.emplace(e.plugin, start);
        sweep.entries[{e.plugin, e.size}] = {std::max(0.0, e.outside_sampling_s() - start), summarize(e.run_s).median};
    }
    return sweep;
}

// The study's plugins at every size that either sweep measured (the rest were skipped by both,
// by the default sweep's limit on run(), whatever the GPUs), in the one-GPU sweep's order;
// not the all-reduce, the one plugin across several GPUs, which runs after the lanes.
SimulatedHost recorded_host(const std::string &one_gpu_file, const std::string &lanes_file) {
    const RecordedSweep one = recorded_sweep(one_gpu_file);
    const RecordedSweep four = recorded_sweep(lanes_file);
    SimulatedHost host;
    std::map<std::string, const PluginInfo *> plugins;
    for (const PluginRecord &record : one.document.plugins) {
        if (record.workload == "allreduce") continue;
        std::vector<std::string> imports;
        if (record.build_record && record.build_record->language == "Python") imports = record.build_record->imports;
        plugins[record.name] = &host.add_plugin(record.name, record.device_kind == "cuda" ? GPUBENCH_DEVICE_CUDA : GPUBENCH_DEVICE_CPU, imports);
    }
    const auto either = [](const auto &first, const auto &second, const auto &key) {
        const auto found = first.find(key);
        return found != first.end() ? found->second : second.at(key);
    };
    for (const auto &[name, plugin] : plugins)
        host.start_s[plugin] = one.start_s.count(name) || four.start_s.count(name) ? either(one.start_s, four.start_s, name) : 0.0;
    for (const EntryResult &e : one.document.entries) {
        const auto plugin = plugins.find(e.plugin);
        const std::pair<std::string, uint64_t> key{e.plugin, e.size};
        if (plugin == plugins.end() || !(one.entries.count(key) || four.entries.count(key))) continue;
        host.add_entry(*plugin->second, e.size, either(one.entries, four.entries, key), either(four.entries, one.entries, key));
    }
    return host;
}

struct SimulatedSweep {
    std::set<std::pair<std::string, uint64_t>> measured;
    double wall_s = 0;
};

// A noisy host's factor on an entry's costs, 0.8 to 1.25, drawn from `noise` (0: none, 1).
double noise_scale(uint64_t noise, const SweepEntry &entry) {
    if (!noise) return 1;
    uint64_t x = noise * 0x9e3779b97f4a7c15ULL ^ std::hash<std::string>{}(entry.plugin->name) ^ (entry.size * 0xbf58476d1ce4e5b9ULL);
    x = (x ^ (x >> 31)) * 0x94d049bb133111ebULL;
    return 0.8 + 0.45 * double(x >> 11) / double(1ULL << 53);
}

// The sweep of `host` within `budget_s`: its CPU entries alone, then its GPU entries in
// `lanes` lanes (1: in sweep order, as on one GPU). Each measured entry samples for its share
// of the budget, or for a warm-up and one sample where they take longer; the budget hears of
// it when it ends.
SimulatedSweep simulate(const SimulatedHost &host, size_t lanes, double budget_s, uint64_t noise = 0) {
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
    struct Running {
        SweepEntry entry;
        EntryResult result;
    };
    std::optional<LaneQueue> queue;
    SweepEntries late_alone;  // CPU entries the schedule skipped, taken up after the lanes

    // One entry begun in `lane` at now_s, as the budget cuts it and the worker skips it; with
    // lanes, one the schedule skips is put back (nullopt) as the sweep does.
    const auto begin = [&](const SweepEntry &entry, size_t lane) -> std::optional<Running> {
        double outside_limit_s = 0;
        const MeasureOptions cut = budget.limit(options, outside_limit_s, entry.late);
        EntryCost cost = (lanes > 1 && entry.plugin->is_cuda() ? host.in_lanes : host.alone).at({entry.plugin, entry.size});
        const double scale = noise_scale(noise, entry);
        cost = {cost.outside_s * scale, cost.run_s * scale};
        Running running{entry, {}};
        EntryResult &result = running.result;
        // Behind schedule, an entry whose set-up, or whose warm-up and one sample, are known from
        // its plugin's earlier entries to take longer than the limit (entry_measurer.cpp).
        const bool late_set_up = outside_limit_s > 0 && ((outside_known.count(entry.plugin) && cost.outside_s > outside_limit_s) ||
                                                         (run_known.count(entry.plugin) && 2 * cost.run_s > outside_limit_s));
        if (!budget.start_refusal(*entry.plugin, entry.late).empty() || late_set_up) {
            result.status = EntryStatus::skipped;
            if (lanes == 1 || entry.late) return running;
            budget.finished(entry, result);
            if (entry.plugin->is_cuda()) queue->put_back(entry);
            else late_alone.push_back(entry), late_alone.back().late = true;
            return std::nullopt;
        }
        result.status = EntryStatus::ok;
        result.sweep.worker_started = workers.insert({lane, entry.plugin}).second;
        if (!result.sweep.worker_started) outside_known.insert(entry.plugin);
        run_known.insert(entry.plugin);
        result.first_run_s = cost.run_s;
        result.run_s = {cost.run_s};
        result.resources.sampling_wall_s = std::max(cut.max_time_s, 2 * cost.run_s);
        result.sweep.entry_wall_s = (result.sweep.worker_started ? host.start_s.at(entry.plugin) * scale : 0) + cost.outside_s +
                                    result.resources.sampling_wall_s;
        sweep.measured.insert({entry.plugin->name, entry.size});
        return running;
    };
    const auto alone = [&](const SweepEntries &entries) {
        for (const SweepEntry &entry : entries)
            if (const std::optional<Running> running = begin(entry, 0)) {
                now_s += running->result.sweep.entry_wall_s;
                budget.finished(running->entry, running->result);
            }
    };

    if (lanes > 1) queue.emplace(host.gpu_entries, options, lanes, false);
    alone(lanes == 1 ? all : host.cpu_entries);
    if (lanes > 1) {
        budget.lanes_begin();
        std::vector<double> free_at(lanes, now_s);
        std::vector<std::optional<Running>> running(lanes);
        std::vector<bool> done(lanes, false);
        while (std::find(done.begin(), done.end(), false) != done.end()) {
            size_t lane = lanes;  // the lane free first
            for (size_t l = 0; l < lanes; ++l)
                if (!done[l] && (lane == lanes || free_at[l] < free_at[lane])) lane = l;
            now_s = free_at[lane];
            if (running[lane]) budget.finished(running[lane]->entry, running[lane]->result), running[lane].reset();
            const std::optional<SweepEntry> entry = queue->next(lane);
            if (!entry) {
                done[lane] = true;
                continue;
            }
            running[lane] = begin(*entry, lane);
            if (running[lane]) free_at[lane] += running[lane]->result.sweep.entry_wall_s;
        }
        now_s = *std::max_element(free_at.begin(), free_at.end());
        alone(late_alone);
    }
    sweep.wall_s = now_s;
    return sweep;
}

}  // namespace

// Every entry the one-GPU sweep of `host` measures within `budget_s` is measured in 2, 4 and 8
// lanes, each within the budget + 5%; with `noise`, each sweep's costs drawn apart.
void check_lanes_cover_one_gpu(const SimulatedHost &host, double budget_s, uint64_t noise = 0) {
    const SimulatedSweep one = simulate(host, 1, budget_s, noise);
    INFO("budget " << budget_s << " s: one GPU measured " << one.measured.size() << " in " << one.wall_s << " s");
    CHECK(one.wall_s <= budget_s * 1.05);
    for (const size_t lanes : {2, 4, 8}) {
        const SimulatedSweep many = simulate(host, lanes, budget_s, noise ? noise * 1000 + lanes : 0);
        INFO(lanes << " lanes measured " << many.measured.size() << " in " << many.wall_s << " s");
        CHECK(many.wall_s <= budget_s * 1.05);
        for (const auto &[plugin, size] : one.measured) {
            INFO(plugin << " " << size << " measured on one GPU");
            CHECK(many.measured.count({plugin, size}));
        }
        CHECK(many.measured.size() >= one.measured.size());
    }
}

TEST_CASE("a budgeted sweep in lanes measures every entry the one-GPU sweep measures, within the budget",
          "[budget][devices]") {
    const SimulatedHost host = a_host();
    for (const double budget_s : {60.0, 90.0, 150.0}) check_lanes_cover_one_gpu(host, budget_s);
    // The tight budgets are a test: the one-GPU sweep falls behind and skips there.
    CHECK(simulate(host, 1, 60).measured.size() < host.cpu_entries.size() + host.gpu_entries.size());
}

TEST_CASE("replayed with the costs a 4 x H200 host recorded, the lanes measure every entry the one-GPU sweep "
          "measures, within the budget",
          "[budget][devices]") {
    const SimulatedHost host =
        recorded_host("default-sweep-1-gpu-2026-11-27.json.gz", "default-sweep-4-gpus-2026-11-27.json.gz");
    REQUIRE(host.gpu_entries.size() > 150);
    REQUIRE(host.cpu_entries.size() > 40);
    // The default sweep's 150 s and longer (below 120 s the one-GPU sweep's least costs overrun).
    for (const double budget_s : {150.0, 200.0, 300.0}) check_lanes_cover_one_gpu(host, budget_s);
    // At 150 s the one-GPU sweep skips for time, as on the host: the replay is a test.
    CHECK(simulate(host, 1, 150).measured.size() < host.cpu_entries.size() + host.gpu_entries.size());
    // On a noisy host, where two one-GPU sweeps differ by up to 10 entries: the lanes still
    // measure what the one-GPU sweep did, and end in time (2 lanes that spent their time on
    // sampling ended at 160 s).
    for (uint64_t noise = 1; noise <= 20; ++noise) check_lanes_cover_one_gpu(host, 150, noise);
}

TEST_CASE("replayed with the costs a 2 x H200 host recorded, where lanes that spent the time they freed "
          "as it came lost 4 entries, the lanes measure every entry the one-GPU sweep measures",
          "[budget][devices]") {
    // A 32-core host: its CPU entries alone took 79 s of the 150, and the schedule was behind
    // from the start.
    const SimulatedHost host =
        recorded_host("default-sweep-1-gpu-first-try-2026-11-29.json.gz", "default-sweep-2-gpus-first-try-2026-11-29.json.gz");
    check_lanes_cover_one_gpu(host, 150);
    for (uint64_t noise = 1; noise <= 20; ++noise) check_lanes_cover_one_gpu(host, 150, noise);
}
