// More GPUs never measure less: a budgeted sweep simulated on a clock of its own, once as a
// one-GPU sweep (every entry in sweep order) and once with its GPU entries in 2, 4 and 8
// lanes (LaneQueue's order), through the same SweepBudget and the same rules the sweep skips
// by (a long start refused behind schedule, a long set-up skipped behind schedule, predicted
// as the worker predicts it: from its plugin's previous size past the worker's first, scaled
// by the sizes), entries put back and taken up late, and one worker per lane (a lane that
// takes another plugin starts another). Without the last two the replay passed where the 2 x
// H200 hosts lost entries. Hosts:
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
#include <tuple>
#include <utility>

using namespace gpubench;

namespace {

struct EntryCost {
    double outside_s;        // set-up and checks, the worker's start aside
    double run_s = 0.001;    // one run(): sampling takes at least a warm-up and one sample
    Work work{};             // declared: predictions scale by it (by the sizes where none)
};
using EntryKey = std::pair<const PluginInfo *, uint64_t>;

struct SimulatedHost {
    std::deque<PluginInfo> plugins;
    std::map<const PluginInfo *, double> start_s;  // a worker's start
    std::map<EntryKey, EntryCost> alone, in_lanes;  // what each entry costs run alone, or in a lane
    double run_limit_s = 0;  // the default sweep's cap on a predicted run() (0: none)
    SweepEntries cpu_entries, gpu_entries;          // each in sweep order
    SweepEntries in_order;                          // all, in sweep order (as one GPU runs them)

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
        in_order.push_back({&plugin, size, ""});
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
        if (e.status != EntryStatus::ok || e.timing.samples.run.empty()) continue;
        const double start = e.sweep.worker_started ? costs[i].start_s.value_or(0) : 0;
        if (e.sweep.worker_started) sweep.start_s.emplace(e.plugin, start);
        sweep.entries[{e.plugin, e.size}] = {std::max(0.0, e.outside_sampling_s() - start), summarize(e.timing.samples.run).median, e.work};
    }
    return sweep;
}

// The study's plugins at every size that either sweep measured (the rest were skipped by both),
// in the one-GPU sweep's order;
// not the all-reduce, the one plugin across several GPUs, which runs after the lanes.
SimulatedHost recorded_host(const std::string &one_gpu_file, const std::string &lanes_file) {
    const RecordedSweep one = recorded_sweep(one_gpu_file);
    const RecordedSweep four = recorded_sweep(lanes_file);
    SimulatedHost host;
    host.run_limit_s = 2.0;  // the default sweep's (sweep_command.cpp)
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
    // One GPU takes them in sweep order; lanes, the CPU entries first.
    SweepEntries all = lanes == 1 ? host.in_order : host.cpu_entries;
    if (lanes > 1) all.insert(all.end(), host.gpu_entries.begin(), host.gpu_entries.end());
    std::vector<bool> in_lanes(host.cpu_entries.size(), false);
    in_lanes.resize(all.size(), lanes > 1);
    SweepBudget budget(budget_s, all, start, in_lanes, lanes, [&] {
        return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(now_s));
    });
    MeasureOptions options;
    options.max_time_s = 1;
    SimulatedSweep sweep;
    std::map<size_t, const PluginInfo *> workers;  // each lane's one worker: its plugin
    // A plugin's last entry measured, from which the worker predicts its next one's run(), and
    // its set-up and checks unless it was the worker's first (EntrySequence::run_budget).
    std::map<const PluginInfo *, RunBudget> last;
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
        cost = {cost.outside_s * scale, cost.run_s * scale, cost.work};
        Running running{entry, {}};
        EntryResult &result = running.result;
        // Skipped, as the worker predicts from the plugin's previous size (entry_measurer.cpp):
        // past the cap on run() (a lane's is higher: entry_sequence.cpp), never
        // to be put back; behind schedule, where set-up, or a warm-up and one sample, are long.
        const auto found = last.find(entry.plugin);
        const double run_s = found == last.end() ? 0 : predicted_run_s(found->second, cost.work, entry.size);
        const double outside_s = found == last.end() ? 0 : predicted_outside_s(found->second, cost.work, entry.size);
        const bool in_lane = lanes > 1 && entry.plugin->is_cuda();
        if (host.run_limit_s > 0 && run_s > host.run_limit_s * (in_lane ? SweepBudget::lane_run_limit_factor : 1.0)) {
            result.status = EntryStatus::skipped;
            return running;
        }
        const bool late_set_up = outside_limit_s > 0 && (outside_s > outside_limit_s || 2 * run_s > outside_limit_s);
        if (!budget.start_refusal(*entry.plugin, entry.late).empty() || late_set_up) {
            result.status = EntryStatus::skipped;
            if (lanes == 1 || entry.late) return running;
            budget.finished(entry, result);
            if (entry.plugin->is_cuda()) queue->put_back(entry);
            else late_alone.push_back(entry), late_alone.back().late = true;
            return std::nullopt;
        }
        result.status = EntryStatus::ok;
        result.sweep.worker_started = std::exchange(workers[lane], entry.plugin) != entry.plugin;
        last[entry.plugin] = {.from_size = entry.size, .from_median_s = cost.run_s, .from_work = cost.work,
                              .from_outside_s = result.sweep.worker_started ? 0 : cost.outside_s};
        result.timing.first_run = cost.run_s;
        result.timing.samples.run = {cost.run_s};
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

// How the lanes may fall short of the one-GPU sweep: entries it measured that they did not,
// and the wall time past the budget (a fraction of it).
struct Shortfall {
    size_t lost = 0;
    double over = 0.05;
};

// Every entry the one-GPU sweep of `host` measures within `budget_s` is measured in each of
// `lanes` lanes, within the budget + 5% (or as `allowed`); with `noise`, each sweep's costs
// drawn apart (and the one-GPU sweep within 6%: one of the draws below ends 0.1% past 5%, at
// the least shares, as one GPU's rule does).
void check_lanes_cover_one_gpu(const SimulatedHost &host, double budget_s, uint64_t noise = 0,
                               std::vector<size_t> lanes = {2, 4, 8}, Shortfall allowed = {}) {
    const SimulatedSweep one = simulate(host, 1, budget_s, noise);
    INFO("budget " << budget_s << " s, noise " << noise << ": one GPU measured " << one.measured.size() << " in "
                   << one.wall_s << " s");
    CHECK(one.wall_s <= budget_s * (noise ? 1.06 : 1.05));
    for (const size_t count : lanes) {
        const SimulatedSweep many = simulate(host, count, budget_s, noise ? noise * 1000 + count : 0);
        INFO(count << " lanes measured " << many.measured.size() << " in " << many.wall_s << " s");
        CHECK(many.wall_s <= budget_s * (1 + allowed.over));
        std::vector<std::string> lost;
        for (const auto &[plugin, size] : one.measured)
            if (!many.measured.count({plugin, size})) lost.push_back(plugin + " " + std::to_string(size));
        INFO("measured on one GPU only: " << lost.size());
        for (const std::string &entry : lost) UNSCOPED_INFO(entry);
        CHECK(lost.size() <= allowed.lost);
    }
}

TEST_CASE("a budgeted sweep in lanes measures every entry the one-GPU sweep measures, within the budget",
          "[budget][devices]") {
    const SimulatedHost host = a_host();
    for (const double budget_s : {75.0, 90.0, 150.0}) check_lanes_cover_one_gpu(host, budget_s);
    // The tight budgets are a test: the one-GPU sweep falls behind and skips there.
    CHECK(simulate(host, 1, 75).measured.size() < host.cpu_entries.size() + host.gpu_entries.size());
}

TEST_CASE("a lane's cap on a predicted run() is higher than one GPU's, and still a cap", "[budget][devices]") {
    // One plugin whose run() takes 0.75 s per unit of size: predicted from the size before,
    // size 3 is 2.25 s, over one GPU's 2 s and within a lane's; size 6, 4.5 s from size 4's
    // 3 s, is over both.
    SimulatedHost host;
    host.run_limit_s = 2.0;
    const PluginInfo &plugin = host.add_plugin("slow_run", GPUBENCH_DEVICE_CUDA, {});
    host.start_s[&plugin] = 0.5;
    for (const uint64_t size : {1, 2, 3, 4, 6}) {
        const EntryCost cost{0.1, 0.75 * double(size)};
        host.add_entry(plugin, size, cost, cost);
    }
    const std::set<std::pair<std::string, uint64_t>> one_gpu{{"slow_run", 1}, {"slow_run", 2}};
    CHECK(simulate(host, 1, 300).measured == one_gpu);
    const std::set<std::pair<std::string, uint64_t>> in_lanes{{"slow_run", 1}, {"slow_run", 2}, {"slow_run", 3}, {"slow_run", 4}};
    CHECK(simulate(host, 2, 300).measured == in_lanes);
}

TEST_CASE("replayed with the costs 2 x H200 hosts recorded, the lanes measure every entry the one-GPU sweep "
          "measures, within the budget",
          "[budget][devices]") {
    // Four pairs of default sweeps, each on one 32-core host: a first where the lanes spent
    // the time they freed as it came (and lost 4 of the one-GPU entries), a second where they
    // put skipped entries back (and lost 8), one at 120 s (and lost 19), and a third with the
    // schedule on the wall clock, which lost 1 (its previous size ran 1.35x slower in a lane,
    // and its predicted run() passed the default sweep's 2 s cap). Their CPU entries alone
    // took half the budget, and the schedule was behind from the start.
    for (const auto &[one_gpu, lanes, budget_s] :
         {std::tuple{"default-sweep-1-gpu-first-try-2026-11-29.json.gz", "default-sweep-2-gpus-first-try-2026-11-29.json.gz", 150.0},
          std::tuple{"default-sweep-1-gpu-second-try-2026-11-29.json.gz", "default-sweep-2-gpus-second-try-2026-11-29.json.gz", 150.0},
          std::tuple{"default-sweep-1-gpu-budget-120-2026-11-29.json.gz", "default-sweep-2-gpus-budget-120-2026-11-29.json.gz", 120.0},
          std::tuple{"default-sweep-1-gpu-third-try-2026-11-29.json.gz", "default-sweep-2-gpus-third-try-2026-11-29.json.gz", 150.0}}) {
        INFO(lanes);
        const SimulatedHost host = recorded_host(one_gpu, lanes);
        REQUIRE(host.gpu_entries.size() > 150);
        check_lanes_cover_one_gpu(host, budget_s);
        // On a noisy host, where two one-GPU sweeps differ by up to 10 entries, more lanes still
        // cover it; 2 lanes, which free the least, may lose two of its entries (4 draws of 40
        // lost 1 or 2: the lanes begin behind, after the CPU entries, where one GPU was not).
        for (uint64_t noise = 1; noise <= 10; ++noise) {
            check_lanes_cover_one_gpu(host, budget_s, noise, {4, 8});
            check_lanes_cover_one_gpu(host, budget_s, noise, {2}, {2, 0.05});
        }
    }
}

TEST_CASE("replayed with the costs of the 2 x H200 pair that lost no one-GPU entry, more lanes cover it too",
          "[budget][devices]") {
    // The pair measured with this rule (a lane's cap on run() higher, a late worker's start
    // counted whole): on the host the lanes measured 261 entries, every one of the 226 that one
    // GPU measured, in 151.4 s. The replay is dearer than the host was at 2 lanes: its CPU
    // entries, replayed at their shares, end at 85 s against the host's 70 s, so the lanes begin
    // behind and up to 4 of the one-GPU entries are lost there. More lanes cover it.
    const SimulatedHost host = recorded_host("default-sweep-1-gpu-lane-run-cap-2026-11-29.json.gz",
                                             "default-sweep-2-gpus-lane-run-cap-2026-11-29.json.gz");
    REQUIRE(host.gpu_entries.size() > 150);
    check_lanes_cover_one_gpu(host, 150, 0, {4, 8});
    check_lanes_cover_one_gpu(host, 150, 0, {2}, {4, 0.05});
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
    // Costs drawn apart. On 2 lanes these entries' costs, recorded with 16 cores a lane, are
    // dearer than 2 lanes' would be: up to 3 of the one-GPU entries are lost there (4 draws
    // of 10 lose 1 to 3).
    for (uint64_t noise = 1; noise <= 10; ++noise) {
        check_lanes_cover_one_gpu(host, 150, noise, {4, 8});
        check_lanes_cover_one_gpu(host, 150, noise, {2}, {3, 0.05});
    }
}
