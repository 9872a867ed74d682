// --devices lanes side by side never ask for more of the host than it has: each lane's worker
// is bound to its share of the CPUs and gives its plugin no more threads than the share has
// (two lanes each taking every core made a sweep slower than one GPU). Shown without a GPU,
// as in test_devices.cpp: plugins that claim to be CUDA plugins, measured on the host, in two
// lanes; a sampler counts the runnable threads of the worker processes meanwhile.
#include "host_share.hpp"
#include "plugin_catalog.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "sweep.hpp"
#include "test_support.hpp"
#include "worker_main.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <thread>

using namespace gpubench;
using namespace runner_process;
using nlohmann::json;
using test_support::metric;

namespace {

// "" where the process or thread ended meanwhile: reading a /proc file of a task that is gone
// fails with ESRCH, which std::filebuf throws as std::ios_base::failure.
std::string read_text(const std::filesystem::path &path) {
    try {
        std::ifstream in(path);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    } catch (const std::ios_base::failure &) {
        return {};
    }
}

// The state letter of a /proc .../stat line ("R": running or waiting for a CPU), and its ppid.
char state_of(const std::string &stat) {
    const size_t end = stat.rfind(')');
    return end == std::string::npos || end + 2 >= stat.size() ? '?' : stat[end + 2];
}
long parent_of(const std::string &stat) {
    const size_t end = stat.rfind(')');
    return end == std::string::npos ? -1 : std::strtol(stat.c_str() + end + 3, nullptr, 10);
}

struct Worker {
    int pid;
    bool in_lane;  // started with a share (--cpus): a lane's worker
};

// The worker processes this test process started (runner --gpubench-worker ...).
std::vector<Worker> worker_children() {
    std::vector<Worker> workers;
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator("/proc", error)) {
        const std::string name = entry.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        if (parent_of(read_text(entry.path() / "stat")) != getpid()) continue;
        std::string command = read_text(entry.path() / "cmdline");
        std::replace(command.begin(), command.end(), '\0', ' ');
        if (command.find(std::string(" ") + worker_flag + " ") == std::string::npos) continue;
        workers.push_back({std::stoi(name), command.find(" --cpus ") != std::string::npos});
    }
    return workers;
}

int runnable_threads(int pid) {
    int runnable = 0;
    std::error_code error;
    for (const auto &task : std::filesystem::directory_iterator(
             "/proc/" + std::to_string(pid) + "/task", error))
        runnable += state_of(read_text(task.path() / "stat")) == 'R';
    return runnable;
}

// Samples the workers' threads every ~2 ms until stopped: the most runnable at once, and the
// most lane workers with a runnable thread at once.
class RunnableSampler {
public:
    RunnableSampler() : thread_([this] { loop(); }) {}
    ~RunnableSampler() { stop(); }
    void stop() {
        if (!done_.exchange(true)) thread_.join();
    }
    int most_runnable = 0, most_lanes_busy = 0;

private:
    void loop() {
        std::vector<Worker> workers;
        for (int round = 0; !done_; ++round) {
            if (round % 5 == 0) workers = worker_children();  // a /proc scan: not every round
            int runnable = 0, lanes_busy = 0;
            for (const Worker &worker : workers) {
                const int own = runnable_threads(worker.pid);
                runnable += own;
                lanes_busy += worker.in_lane && own > 0;
            }
            most_runnable = std::max(most_runnable, runnable);
            most_lanes_busy = std::max(most_lanes_busy, lanes_busy);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace

TEST_CASE("two lanes never have more runnable threads than cores", "[devices][host_share]") {
    const std::vector<int> allowed = allowed_cpus();
    const int cpus = static_cast<int>(allowed.size());
    if (physical_cores(allowed).size() < 2) test_support::skip_test("two lanes side by side need two cores");
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_FIXTURE_DIR}), {"fixture_spin"});
    REQUIRE(catalog.plugins.size() == 1);
    const PluginInfo &spin = catalog.plugins.front();
    // Four "CUDA plugins" (one file) of two sizes each, for the lanes; spin itself, a CPU
    // plugin, runs alone first (size 100).
    PluginInfo claimed = spin;
    claimed.device_kind = GPUBENCH_DEVICE_CUDA;
    claimed.max_devices = 1;
    std::vector<PluginInfo> four(4, claimed);
    SweepEntries entries{{&spin, 100, ""}};
    for (uint64_t size = 1; size <= 8; ++size) entries.push_back({&four[(size - 1) / 2], size, ""});

    std::vector<GpuInfo> gpus(2);
    for (int device = 0; device < 2; ++device) {
        gpus[device].available = true;  // claimed: the entries are measured on the host
        gpus[device].device = device;
    }
    MeasureOptions options = test_support::sampled(2, 3);
    options.cpu_threads = cpus;  // the runner's default: every core
    options.cuda_devices = {0, 1};
    SweepSetup mode;
    mode.launch.runner = GPUBENCH_RUNNER;
    mode.launch.timeout_s = 60;
    std::vector<HostShare> planned;  // this machine's plan, kept to compare with the entries
    mode.plan_host_shares = [&](const std::vector<GpuInfo> &g) { return planned = plan_host_shares(g); };
    const auto path = temp_results("lane_shares");
    ResultsFile results(path, results_header({"runner"}, gpus[0], nlohmann::json(options), std::nullopt));
    WorkerPool pool(mode.launch);
    SweepObserver quiet;
    RunnableSampler sampler;
    const SweepTally tally = run_sweep(entries, options, gpus, results, pool, mode, quiet);
    results.finish();  // the document whole, as the runner leaves it
    sampler.stop();
    CHECK(tally.ok == entries.size());
    INFO("CPUs " << cpu_list_text(allowed) << "; most runnable at once " << sampler.most_runnable);
    CHECK(sampler.most_runnable <= cpus);
    CHECK(sampler.most_lanes_busy >= 2);  // both lanes were seen spinning at once
    REQUIRE(planned.size() == 2);

    const json document = read_json(path);
    REQUIRE(document["entries"].size() == entries.size());
    std::map<std::string, json> lane_shares;  // by cpus
    for (const json &e : document["entries"]) {
        INFO(e.dump());
        REQUIRE(e.contains("host_share"));
        const json &share = e["host_share"];
        const int share_cpus = int(parse_cpu_list(share["cpus"]).size());
        CHECK(metric(e, "affinity_cpus") == share_cpus);
        CHECK(metric(e, "threads_used") == e["cpu_threads"].get<int>());
        if (e["size"] == 100) {  // ran alone: every CPU, the sweep's threads, its environment
            CHECK(share["lanes"] == 1);
            CHECK(share["cpus"] == cpu_list_text(allowed));
            CHECK(e["cpu_threads"] == cpus);
            if (!std::getenv("OMP_NUM_THREADS")) CHECK(metric(e, "omp_num_threads") == -1);
            continue;
        }
        CHECK(share["lanes"] == 2);
        CHECK(e["cpu_threads"] == std::min(cpus, share["threads"].get<int>()));
        CHECK(metric(e, "omp_num_threads") == share["threads"].get<int>());
        lane_shares[share["cpus"]] = share;
    }
    REQUIRE(lane_shares.size() == 2);  // both lanes took plugins
    std::set<int> seen;
    int threads = 0;
    for (const auto &[list, share] : lane_shares) {
        for (int cpu : parse_cpu_list(list)) CHECK(seen.insert(cpu).second);  // disjoint
        threads += share["threads"].get<int>();
        CHECK((cpu_list_text(planned[0].cpus) == list || cpu_list_text(planned[1].cpus) == list));
    }
    CHECK(threads <= cpus);
    std::filesystem::remove(path);
}

// Ranks that mpirun started together on one host without binding them share it as lanes do;
// a rank the launcher (or taskset) already bound keeps what it was given.
TEST_CASE("ranks launched together on one host each take their share of it", "[host_share][shard]") {
    const std::vector<int> allowed = allowed_cpus();
    const std::vector<HostShare> expected = split_host_cpus(allowed, physical_cores(allowed), {}, 2);
    const test_support::TempFolder folder;
    const auto rank = [&](int index, const std::string &prefix) {
        const std::string file = (folder.path() / ("rank-" + std::to_string(index) + ".json")).string();
        const runner_process::Outcome o = runner_process::run_command(
            prefix + "env -u SLURM_PROCID -u SLURM_NTASKS -u PMI_RANK -u PMI_SIZE -u SLURM_ARRAY_TASK_ID " +
            "OMPI_COMM_WORLD_RANK=" + std::to_string(index) + " OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=" +
            std::to_string(index) + " OMPI_COMM_WORLD_LOCAL_SIZE=2 " + GPUBENCH_RUNNER + " " +
            runner_process::fixtures() + " --plugin fixture_good --sizes 1,2,3,4 --shard auto" +
            runner_process::quick + "-o " + file);
        INFO(o.output);
        REQUIRE(o.status == 0);
        return std::pair(read_json(file), o.output);
    };
    for (int index : {0, 1}) {
        const auto [document, output] = rank(index, "");
        INFO(output);
        const nlohmann::json &share = document["shard"]["host_share"];
        CHECK(share["cpus"] == cpu_list_text(expected[index].cpus));
        CHECK(share["threads"] == expected[index].threads);
        CHECK_THAT(share["basis"].get<std::string>(), Catch::StartsWith("local rank " + std::to_string(index) + " of 2"));
        for (const nlohmann::json &entry : document["entries"]) CHECK(entry["cpu_threads"] == expected[index].threads);
        CHECK_THAT(output, Catch::Contains("this rank's share of the host: CPUs " + cpu_list_text(expected[index].cpus)));
    }
    // Bound by taskset to one CPU: that CPU, no share taken.
    const auto [bound, output] = rank(1, "taskset -c " + std::to_string(allowed.front()) + " ");
    INFO(output);
    CHECK_FALSE(bound["shard"].contains("host_share"));
    for (const nlohmann::json &entry : bound["entries"]) CHECK(entry["cpu_threads"] == 1);
}

TEST_CASE("a worker that cannot take its share of the host says so in each entry", "[host_share]") {
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_FIXTURE_DIR}), {"fixture_good"});
    REQUIRE(catalog.plugins.size() == 1);
    WorkerLaunch launch;
    launch.runner = GPUBENCH_RUNNER;
    launch.timeout_s = 60;
    HostShare impossible;
    impossible.cpus = {4000};  // no such CPU: sched_setaffinity refuses it
    launch.host_share = impossible;
    WorkerPool pool(launch);
    const std::optional<EntryResult> entry = pool.measure(catalog.plugins.front(), 1, test_support::sampled(2, 3));
    REQUIRE(entry);
    CHECK(entry->status == EntryStatus::error);
    CHECK_THAT(entry->message, Catch::StartsWith("the worker could not take its share of the host: cannot bind to CPUs 4000"));
}
