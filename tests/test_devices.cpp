// --devices, as far as a machine without a GPU can show it: CPU-only entries give the same
// results as a plain sweep; the sweep's lanes (one worker per device, a plugin at a time)
// measure every entry once, each plugin's sizes on one device, after the entries that run
// alone; bad device lists are refused. The lanes' timing on real GPUs is in the README.
#include "gpu.hpp"
#include "plugin_catalog.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "sweep.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <thread>
#include <tuple>

using namespace gpubench;
using namespace runner_process;
using nlohmann::json;

namespace {

// (plugin, size, status) of each entry, sorted: what two sweeps must agree on.
std::multiset<std::tuple<std::string, uint64_t, std::string>> entries_of(const json &document) {
    std::multiset<std::tuple<std::string, uint64_t, std::string>> out;
    for (const json &e : document["entries"])
        out.insert({e["plugin"].get<std::string>(), e["size"].get<uint64_t>(), e["status"].get<std::string>()});
    return out;
}

// fixture_multi_device (to be claimed a CUDA plugin) and fixture_good (a CPU plugin).
struct LaneFixtures {
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_FIXTURE_DIR}),
                                             {"fixture_multi_device", "fixture_good"});
    const PluginInfo *multi = nullptr, *good = nullptr;
    LaneFixtures() {
        for (const PluginInfo &p : catalog.plugins) {
            if (p.name == "fixture_multi_device") multi = &p;
            if (p.name == "fixture_good") good = &p;
        }
        REQUIRE(multi);
        REQUIRE(good);
    }
};

// `count` GPUs as the runner's probe would give them, claimed where there is none; each fake
// UUID ends in 0x10 plus its index (what fixture_multi_device's visible_* metrics read).
std::vector<GpuInfo> claimed_gpus(int count) {
    std::vector<GpuInfo> gpus(count);
    for (int device = 0; device < count; ++device) {
        gpus[device].available = true;
        gpus[device].device = device;
        gpus[device].name = "claimed GPU " + std::to_string(device);
        gpus[device].uuid = "GPU-00000000-0000-0000-0000-0000000000" + std::to_string(10 + device);
    }
    return gpus;
}

// A sweep on claimed_gpus(): short entries, workers that know the GPUs' UUIDs.
struct ClaimedSweep {
    std::vector<GpuInfo> gpus;
    MeasureOptions options = test_support::sampled(2, 3);
    WorkerLaunch launch;
    SweepSetup mode;
    explicit ClaimedSweep(int count = 2) : gpus(claimed_gpus(count)) {
        for (int device = 0; device < count; ++device) options.cuda_devices.push_back(device);
        // Entries this short never make a free lane join a plugin another is on
        // (lane_queue.hpp): its start would cost more than it saves.
        options.max_time_s = 0.1;
        launch.runner = GPUBENCH_RUNNER;
        launch.timeout_s = 60;
        for (const GpuInfo &gpu : gpus) launch.gpus.push_back(identity_of(gpu));
        mode.launch = launch;
    }
};

}  // namespace

TEST_CASE("runner --devices with CPU-only entries: the entries of a plain sweep, no device on any",
          "[cli][devices]") {
    const std::string plugins = fixtures() + " --plugin fixture_good,fixture_multi_device --sizes 1,10,100";
    const auto plain_path = temp_results("devices_plain"), devices_path = temp_results("devices_two");
    // Two devices where there is none (accepted: GPU entries would be skipped), else every one.
    const int count = cuda_device_count();
    const std::string list = count == 0 ? "0,1" : "all";
    const Outcome plain = run_runner(plugins + quick + "-o " + plain_path.string());
    const Outcome devices = run_runner(plugins + quick + "--devices " + list + " -o " + devices_path.string());
    INFO(plain.output << devices.output);
    REQUIRE(plain.status == 0);
    REQUIRE(devices.status == 0);
    const json a = read_json(plain_path), b = read_json(devices_path);
    CHECK(entries_of(a).size() == 6);
    CHECK(entries_of(a) == entries_of(b));
    json listed = json::array();
    for (int device = 0; device < std::max(count, 2 * (count == 0)); ++device) listed.push_back(device);
    CHECK(b["options"]["cuda_devices"] == listed);
    CHECK(b["gpus"].size() == listed.size());  // each probed (without a GPU: with the reason)
    CHECK_FALSE(a.contains("gpus"));
    for (const json &e : b["entries"]) CHECK_FALSE(e.contains("devices"));  // CPU entries
    std::filesystem::remove(plain_path);
    std::filesystem::remove(devices_path);
}

TEST_CASE("runner --devices: a bad list is one line and exit status 2, before anything runs", "[cli][devices]") {
    for (const auto &[arguments, says] : std::vector<std::pair<std::string, std::string>>{
             {"--devices 0,0", "device 0 is listed twice"},
             {"--devices 0,x", "'x' is not a CUDA device index"},
             {"--devices -1", "'-1' is not a CUDA device index"},
             {"--devices ,", "needs a device list or all"},
             {"--devices 0 --device 1", "--device and --devices both choose GPUs"},
             {"--devices all --in-process", "cannot go with --in-process"}}) {
        const Outcome o = run_runner(fixtures() + " --plugin fixture_good --sizes 1 " + arguments);
        INFO(arguments << ": " << o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::Contains(says) && Catch::StartsWith("runner: error: --device"));
        CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
    }
}

// The lanes without a GPU: plugins that claim to be CUDA plugins (in the catalog this test
// builds) but are measured on the host, so that each lane's worker runs them; the fixture's
// visible_first metric says which GPU its worker was shown (each fake UUID ends in 0x10 plus
// its index), and cuda_device what create() was given: 0, the worker's only GPU.
TEST_CASE("runner --devices lanes: every entry once, a short plugin's sizes on one device, alone-entries first",
          "[devices]") {
    const LaneFixtures fixtures;
    const PluginInfo *multi = fixtures.multi, *good = fixtures.good;
    PluginInfo claimed = *multi;  // a CUDA plugin on one device, as far as the sweep knows
    claimed.device_kind = GPUBENCH_DEVICE_CUDA;
    claimed.max_devices = 1;
    // Four "plugins" (one file): sizes tell them apart in the results.
    const std::vector<uint64_t> first_sizes{1, 3, 5, 7};
    // Each pair of sizes is one plugin to the lanes only when the plugin changes between
    // pairs: four distinct PluginInfo objects.
    std::vector<PluginInfo> four(4, claimed);
    SweepEntries entries{{good, 100, ""}};
    for (uint64_t size : first_sizes)
        for (uint64_t pair_size : {size, size + 1}) entries.push_back({&four[(size - 1) / 2], pair_size, ""});

    const ClaimedSweep sweep;  // the entries are measured on the host
    const auto &[gpus, options, launch, mode] = sweep;
    const auto path = temp_results("devices_lanes");
    ResultsFile results(path, results_header({"runner"}, gpus[0], nlohmann::json(options), std::nullopt));
    WorkerPool pool(launch);
    SweepObserver quiet;
    const SweepTally tally = run_sweep(entries, options, gpus, results, pool, mode, quiet);
    results.finish();  // the document whole, as the runner leaves it
    CHECK(tally.ok == entries.size());
    CHECK_FALSE(tally.interrupted);

    const json document = read_json(path);
    REQUIRE(document["entries"].size() == entries.size());
    CHECK(document["entries"][0]["size"] == 100);  // fixture_good ran alone, before the lanes
    std::map<uint64_t, int> device_of_size;
    std::set<int> devices_used;
    for (const json &e : document["entries"]) {
        if (e["size"] == 100) continue;
        double device = -1, given = -1, shown = -1;
        for (const json &m : e["metrics"]) {
            if (m["name"] == "visible_first") device = m["value"].get<double>() - 16;
            if (m["name"] == "visible_count") shown = m["value"].get<double>();
            if (m["name"] == "cuda_device") given = m["value"].get<double>();
        }
        INFO("size " << e["size"] << ": " << e.dump());
        CHECK((device == 0 || device == 1));
        CHECK(shown == 1);
        CHECK(given == 0);
        CHECK(device_of_size.emplace(e["size"].get<uint64_t>(), int(device)).second);  // once
        devices_used.insert(int(device));
    }
    CHECK(device_of_size.size() == 8);
    for (uint64_t size : first_sizes) CHECK(device_of_size[size] == device_of_size[size + 1]);
    CHECK(devices_used == std::set<int>{0, 1});  // both lanes took plugins
    std::filesystem::remove(path);
}

// A plugin across several GPUs holds every lane's GPU: it runs after the lanes, its worker
// shown every GPU by UUID; a budgeted sweep skips a size whose declared host bytes predict a
// set-up and checks beyond what such an entry may take, before any worker starts.
TEST_CASE("runner --devices lanes: entries on every GPU run after the lanes, too costly ones skipped by prediction",
          "[devices]") {
    const LaneFixtures fixtures;
    const PluginInfo *multi = fixtures.multi, *good = fixtures.good;
    PluginInfo lane = *multi, every = *multi;  // CUDA plugins on one GPU and on all, to the sweep
    lane.device_kind = every.device_kind = GPUBENCH_DEVICE_CUDA;
    lane.max_devices = 1;
    every.max_size = 1000000000;  // the worker never sees the largest size: it is skipped first
    const SweepEntries entries{{&every, 10, ""},       {&every, 20, ""}, {&every, 5000000, ""},
                               {&every, 30000000, ""}, {good, 100, ""},  {&lane, 1, ""},
                               {&lane, 2, ""}};
    ClaimedSweep sweep;
    sweep.mode.budget_s = 5;
    const auto &[gpus, options, launch, mode] = sweep;  // an entry on every GPU may take 0.2 s; 3e7 x 8 host bytes predict 0.5 s
    const auto path = temp_results("devices_every_gpu");
    ResultsFile results(path, results_header({"runner"}, gpus[0], nlohmann::json(options), std::nullopt));
    WorkerPool pool(launch);
    SweepObserver quiet;
    const SweepTally tally = run_sweep(entries, options, gpus, results, pool, mode, quiet);
    results.finish();  // the document whole, as the runner leaves it
    CHECK(tally.ok == 5);
    CHECK(tally.skipped == 2);

    const json document = read_json(path);
    REQUIRE(document["entries"].size() == entries.size());
    size_t last_lane = 0, first_every = entries.size();
    for (size_t i = 0; i < document["entries"].size(); ++i) {
        const json &e = document["entries"][i];
        const uint64_t size = e["size"].get<uint64_t>();
        INFO(e.dump());
        if (size <= 2) last_lane = std::max(last_lane, i);
        if (size < 10 || size == 100) continue;
        first_every = std::min(first_every, i);
        if (size == 30000000) {
            CHECK(e["status"] == "skipped");
            CHECK_THAT(e["message"].get<std::string>(),
                       Catch::StartsWith("over the sweep's budget: it holds all 2 GPUs, and is predicted to take"));
            continue;
        }
        if (size == 5000000) {  // within the plan's 0.2 s, but its set-up scaled from size 20's is not
            CHECK(e["status"] == "skipped");
            CHECK_THAT(e["message"].get<std::string>(),
                       Catch::StartsWith("over the sweep's budget for an entry on every GPU: its set-up and checks "
                                         "are predicted to take ") &&
                           Catch::EndsWith("(from size 20), above 0.2 s; --sizes 5000000 runs it"));
            continue;
        }
        CHECK(e["status"] == "ok");
        std::map<std::string, double> metric;
        for (const json &m : e["metrics"]) metric[m["name"]] = m["value"].get<double>();
        CHECK(metric["visible_count"] == 2);
        CHECK(metric["visible_first"] == 16);  // GPU 0's UUID, then GPU 1's
        CHECK(metric["visible_last"] == 17);
    }
    CHECK(document["entries"][0]["size"] == 100);  // the CPU entry first
    CHECK(first_every > last_lane);
    std::filesystem::remove(path);
}

// The entries on every GPU take only what the lanes left of the budget: with the budget spent
// when they come, each is skipped with its prediction and what was left (the lanes' entries
// are still measured: behind schedule, an entry samples the least).
TEST_CASE("runner --devices lanes: entries on every GPU are skipped when their prediction exceeds what is left",
          "[devices][budget]") {
    const LaneFixtures fixtures;
    PluginInfo lane = *fixtures.multi, every = *fixtures.multi;
    lane.device_kind = every.device_kind = GPUBENCH_DEVICE_CUDA;
    lane.max_devices = 1;
    const SweepEntries entries{{&every, 10, ""}, {&lane, 1, ""}, {&lane, 2, ""}};
    ClaimedSweep sweep;
    sweep.mode.budget_s = 5;
    sweep.mode.started = std::chrono::steady_clock::now() - std::chrono::seconds(5);  // spent already
    const auto path = temp_results("devices_every_gpu_late");
    ResultsFile results(path, results_header({"runner"}, sweep.gpus[0], nlohmann::json(sweep.options), std::nullopt));
    WorkerPool pool(sweep.launch);
    SweepObserver quiet;
    const SweepTally tally = run_sweep(entries, sweep.options, sweep.gpus, results, pool, sweep.mode, quiet);
    results.finish();
    CHECK(tally.ok == 2);
    CHECK(tally.skipped == 1);
    const json document = read_json(path);
    REQUIRE(document["entries"].size() == 3);
    const json &late = document["entries"][2];
    CHECK(late["size"] == 10);
    CHECK(late["status"] == "skipped");
    CHECK_THAT(late["message"].get<std::string>(),
               Catch::StartsWith("over the sweep's budget: it holds all 2 GPUs, and is predicted to take ") &&
                   Catch::EndsWith("more than the 0 s left of the budget after the lanes; --sizes 10 runs it"));
    std::filesystem::remove(path);
}

// A worker started ahead of need (the sweep's first): before anything is asked of it, it has
// loaded its plugin and run its prepare() (a Python backend's imports) with the entries'
// threads; the plugin's first entry then takes it over.
TEST_CASE("a worker started ahead of need runs its plugin's prepare() before its first entry", "[devices]") {
    const LaneFixtures fixtures;
    const test_support::TempFolder folder;
    const std::filesystem::path marker = folder.path() / "prepared";
    setenv("GPUBENCH_FIXTURE_PREPARED", marker.c_str(), 1);  // the worker inherits it
    WorkerLaunch launch;
    launch.runner = GPUBENCH_RUNNER;
    launch.timeout_s = 60;
    WorkerPool pool(launch);
    MeasureOptions options = test_support::sampled(2, 3);
    options.cpu_threads = 3;
    options.max_time_s = 0.1;
    pool.prestart(*fixtures.multi, options);
    for (int waited_ms = 0; !std::filesystem::exists(marker) && waited_ms < 30000; waited_ms += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    unsetenv("GPUBENCH_FIXTURE_PREPARED");
    REQUIRE(std::filesystem::exists(marker));  // no entry was asked for yet
    CHECK(slurp(marker) == "3\n");
    const std::optional<EntryResult> entry = pool.measure(*fixtures.multi, 4, options);
    REQUIRE(entry);
    INFO(entry->message);
    CHECK(entry->status == EntryStatus::ok);
    CHECK(entry->sweep.worker_started);  // the prestarted worker's first entry
    double prepared = -1;
    for (const Metric &metric : entry->metrics)
        if (metric.name == "prepared_threads") prepared = metric.value;
    CHECK(prepared == 3);
}

// An eight-GPU host: eight lanes, each begun entry told to the observer with its lane's GPU
// (the progress line's), the one its worker was shown, and finished once.
TEST_CASE("runner --devices on eight GPUs: eight lanes, each entry begun on its lane's GPU and finished once",
          "[devices]") {
    const LaneFixtures fixtures;
    PluginInfo claimed = *fixtures.multi;
    claimed.device_kind = GPUBENCH_DEVICE_CUDA;
    claimed.max_devices = 1;
    // Eight "plugins" of three sizes each (3p+1 to 3p+3): each lane starts on one of its own,
    // none done before every lane has taken its first.
    std::vector<PluginInfo> eight(8, claimed);
    SweepEntries entries;
    for (uint64_t p = 0; p < 8; ++p)
        for (uint64_t size = 3 * p + 1; size <= 3 * p + 3; ++size) entries.push_back({&eight[p], size, ""});
    struct LaneWatch final : SweepObserver {
        std::map<uint64_t, int> lane_of;  // by size
        std::set<uint64_t> running;
        size_t most_at_once = 0, unbegun_finished = 0;
        void begin(const SweepEntry &entry, int lane_gpu) override {
            lane_of[entry.size] = lane_gpu;
            running.insert(entry.size);
            most_at_once = std::max(most_at_once, running.size());
        }
        void finished(const EntryResult &entry, const std::string &) override {
            unbegun_finished += running.erase(entry.size) == 0;
        }
    } watch;
    const ClaimedSweep sweep(8);
    const auto &[gpus, options, launch, mode] = sweep;
    const auto path = temp_results("devices_eight");
    ResultsFile results(path, results_header({"runner"}, gpus[0], nlohmann::json(options), std::nullopt));
    WorkerPool pool(launch);
    const SweepTally tally = run_sweep(entries, options, gpus, results, pool, mode, watch);
    results.finish();
    CHECK(tally.ok == entries.size());
    CHECK(watch.unbegun_finished == 0);
    CHECK(watch.running.empty());
    CHECK(watch.most_at_once >= 2);
    CHECK(watch.most_at_once <= 8);
    std::set<int> lanes;
    for (const auto &[size, gpu] : watch.lane_of) lanes.insert(gpu);
    CHECK(lanes == std::set<int>{0, 1, 2, 3, 4, 5, 6, 7});
    const json document = read_json(path);
    REQUIRE(document["entries"].size() == entries.size());
    for (const json &e : document["entries"]) {
        INFO(e.dump());
        CHECK(e["host_share"]["lanes"] == 8);
        for (const json &m : e["metrics"])
            if (m["name"] == "visible_first")
                CHECK(int(m["value"].get<double>()) - 16 == watch.lane_of[e["size"].get<uint64_t>()]);
    }
    std::filesystem::remove(path);
}
