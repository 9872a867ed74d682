// Shard costs from the plugins' declared work, asked of helper processes (work_query.hpp):
// the nominal cost of an entry, the answers of real and hostile plugin files, and the plan
// they make: deterministic, complete, better balanced than 1 per entry, and never failed by
// a plugin whose work cannot be read.
#include "plugin_catalog.hpp"
#include "runner_process.hpp"
#include "shard_costs.hpp"
#include "shard_plan.hpp"
#include "test_support.hpp"
#include "work_query.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include <algorithm>
#include <map>
#include <set>

using namespace gpubench;
namespace fs = std::filesystem;

namespace {

using Entries = SweepEntries;

// copy_omp and matmul_naive, scanned as the runner scans them.
struct RealPlugins {
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_PLUGIN_DIR}),
                                             {"copy_omp", "matmul_naive"});
    const PluginInfo &named(const std::string &name) {
        return *select_plugins(catalog, {name}).front();
    }
};

Entries sweep_entries_of(const PluginInfo &plugin, const std::vector<uint64_t> &sizes,
                         const std::string &params = "") {
    Entries entries;
    for (uint64_t size : sizes) entries.push_back({&plugin, size, params});
    return entries;
}

std::vector<EntryIdentity> identities_of(const Entries &entries, const MeasureOptions &options) {
    std::vector<EntryIdentity> keys;
    for (const SweepEntry &e : entries) keys.push_back({e.plugin->name, e.size, e.params, options.seed});
    return keys;
}

double largest_load(const std::vector<PlannedEntry> &plan, const std::vector<double> &costs, uint32_t count) {
    std::vector<double> load(count, 0.0);
    for (size_t i = 0; i < plan.size(); ++i) load[plan[i].shard] += costs[i];
    return *std::max_element(load.begin(), load.end());
}

EntryCosts declared(const Entries &entries, const MeasureOptions &options, double timeout_s = 10) {
    return costs_from_declared_work(entries, options, GPUBENCH_RUNNER, timeout_s);
}

}  // namespace

TEST_CASE("nominal entry cost: a fixed part, set-up and checks, then warm-up and samples by the options' "
          "rule, in whole cycles", "[shard]") {
    const MeasureOptions options{};  // 1 warm-up run; 10 to 1000 samples, 0.5 s to 10 s
    const double cycle = 40e-6;      // what a compiled plugin's sample adds to its run
    // A GPU entry then times run()'s host time on groups of 4 calls back to back: up to 32
    // groups (128 runs) within 5% of the sampling, at least 20 ms and 8 groups where they take
    // at most 0.1 s; where no group fits, one run.
    Work work;  // no work: 1000 samples of the cycle's own time (min_time is never reached)
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 1001 * cycle));
    work.flops = 1e13;  // one second per run on a GPU: warm-up, then samples up to 10 s
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 10 * (1 + cycle) + 1));
    // A CPU runs it in 100 s: past max_time after the warm-up, and one sample all the same.
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CPU, options) == Approx(0.05 + 2 * (100 + cycle)));
    work = {};
    work.bytes = 1e9;  // 1 ms per run: 500 samples make min_time's 0.5 s; 8 groups back to back
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 501 * (1e-3 + cycle) + 8 * 4e-3));
    work.bytes = 1e6;  // 1 us per run: 1000 samples, the most, before 0.5 s
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 1001 * (1e-6 + cycle) + 128e-6));
    work = {};
    work.items = 1e10;  // items count only when neither flops nor bytes are declared
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 10 * (1 + cycle) + 1));
    // An instance of 1 GB on the host: 1 s to make and check; on a GPU each cycle moves it there
    // and back (20 ms at 50 GB/s), so max_time ends sampling after 475 of min_time's 500.
    work = {};
    work.bytes = 1e9;
    work.host_bytes = 1e9;
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 1 + 476 * (1e-3 + 0.02 + cycle) + 128e-3));
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CPU, options) == Approx(0.05 + 1 + 11 * (0.1 + cycle)));
    CHECK(nominal_skipped_entry_s() == Approx(0.05));
    // 10^5 device operations (gpubench_work.launches): a run() of at least 2 us each on a GPU,
    // 0.2 s, above its 1 ms of bytes; a CPU plugin issues none that cost; NaN counts nothing.
    work = {};
    work.bytes = 1e9;
    work.launches = 1e5;
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 11 * (0.2 + cycle) + 0.2));
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CPU, options) == Approx(0.05 + 11 * (0.1 + cycle)));
    work.launches = std::nan("");
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 501 * (1e-3 + cycle) + 8 * 4e-3));
}

TEST_CASE("nominal entry cost unheld: each GPU sample adds the warm calls that fit in its transfers",
          "[shard]") {
    MeasureOptions options{};
    options.hold_stream = false;
    const double cycle = 40e-6;
    Work work;  // 1 ms runs, 20 ms of transfers a cycle: three warm calls (the most) a cycle
    work.bytes = 1e9;
    work.host_bytes = 1e9;
    const double warm_cycle = 1e-3 + 0.02 + 3e-3 + cycle;  // max_time ends sampling after 415
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) == Approx(0.05 + 1 + 416 * warm_cycle + 128e-3));
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CPU, options) == Approx(0.05 + 1 + 11 * (0.1 + cycle)));
    work.bytes = 1e10;  // 10 ms runs: two fit in the 20 ms; the groups back to back take 5%
    CHECK(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options) ==
          Approx(0.05 + 1 + 1.05 * 51 * (0.01 + 0.02 + 0.02 + cycle)));
    work.bytes = 1e11;  // 100 ms runs: none fits; as held
    const double unheld = nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options);
    options.hold_stream = true;
    CHECK(unheld == Approx(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options)));
    options.hold_stream = false;  // nor under --profile
    options.profile_runs = 10;
    work.bytes = 1e9;
    const double profiled = nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options);
    options.hold_stream = true;
    CHECK(profiled == Approx(nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options)));
}

TEST_CASE("nominal entry cost of a Python backend: its library's pace, 200 us a cycle, and on a GPU samples "
          "to the limits", "[shard]") {
    const MeasureOptions options{};
    PluginInfo numba_cuda, numba_cpu, script;
    numba_cuda.device_kind = GPUBENCH_DEVICE_CUDA;
    numba_cuda.build_record = BuildRecord{};
    numba_cuda.build_record->language = "Python";
    numba_cuda.build_record->imports = {"math", "numba"};
    numba_cpu = numba_cuda;
    numba_cpu.device_kind = GPUBENCH_DEVICE_CPU;
    script = numba_cuda;
    script.build_record->imports = {"numpy"};
    Work work;
    work.bytes = 1e9;  // 1 ms at the nominal rate; Numba's kernels 10 times slower
    // On a GPU until max_time: 980 cycles of 10.2 ms after the warm-up reach 10 s; then 5% of
    // that back to back.
    CHECK(nominal_entry_s(work, numba_cuda, options) == Approx(0.05 + 1.05 * 981 * (10e-3 + 200e-6)));
    // On a CPU 100 times slower again, and by min_samples and min_time as any CPU plugin.
    CHECK(nominal_entry_s(work, numba_cpu, options) == Approx(0.05 + 10 * (1 + 200e-6)));
    // A script of no JIT library runs at the nominal rate, still through the interpreter:
    // max_samples comes first.
    CHECK(nominal_entry_s(work, script, options) == Approx(0.05 + 1.05 * 1001 * (1e-3 + 200e-6)));
    // Through the interpreter each declared device operation costs its library's: Numba's
    // kernel launches 50 us, so 10^4 of them make a 0.5 s run(), above its 10 ms of bytes.
    work.launches = 1e4;
    // Back to back: one run, as a pair would take more than 5% of the sampling.
    const double sampling = 20 * (0.5 + 200e-6);
    CHECK(nominal_entry_s(work, numba_cuda, options) == Approx(0.05 + sampling + 0.5));
    work.launches = 0;
    // A compiled plugin is the device kind's.
    PluginInfo compiled;
    compiled.device_kind = GPUBENCH_DEVICE_CUDA;
    CHECK(nominal_entry_s(work, compiled, options) == nominal_entry_s(work, GPUBENCH_DEVICE_CUDA, options));
}

TEST_CASE("work queries: answers in order from real plugins, reasons from failing and hostile files",
          "[shard]") {
    const fs::path fixtures(GPUBENCH_FIXTURE_DIR), hostile(GPUBENCH_HOSTILE_DIR);
    const std::vector<WorkQuery> queries{
        {fixtures / "fixture_good.so", "", 1, {3, 5, 3}},
        {fs::path(GPUBENCH_PLUGIN_DIR) / "matmul_naive.so", "dtype=float16", 1, {64}},
        {fixtures / "fixture_not_a_library.so", "", 1, {1, 2}},
        {hostile / "hostile_constructor_hang.so", "", 1, {1}},
        {hostile / "hostile_constructor_abort.so", "", 1, {1}},
        {fixtures / "fixture_good.so", "", 1, {}}};
    const auto answers = query_declared_work(queries, GPUBENCH_RUNNER, 1.0);
    REQUIRE(answers.size() == queries.size());
    REQUIRE(answers[0].size() == 3);
    for (size_t i = 0; i < 3; ++i) {
        const Work *work = std::get_if<Work>(&answers[0][i]);
        REQUIRE(work);
        const double size = double(queries[0].sizes[i]);
        CHECK(work->flops == size);  // fixture_work: size flops, 8 bytes and 1 item per element
        CHECK(work->bytes == 8 * size);
        CHECK(work->items == size);
        CHECK(work->host_bytes == 8 * size);  // what the plan counts for set-up, checks and transfers
    }
    const auto reason = [&](size_t query, size_t size) {
        const std::string *text = std::get_if<std::string>(&answers.at(query).at(size));
        return text ? *text : std::string("(answered)");
    };
    CHECK(reason(1, 0) == "work: dtype='float16': expected float32 or float64");
    for (size_t size : {0, 1}) CHECK_THAT(reason(2, size), Catch::StartsWith("cannot load the plugin: "));
    CHECK(reason(3, 0) == "no answer after 1 s (--scan-timeout)");
    CHECK_THAT(reason(4, 0), Catch::StartsWith("the helper crashed: SIGABRT") ||
                                 Catch::StartsWith("the helper exited with status"));  // sanitized
    CHECK(answers[5].empty());
}

TEST_CASE("costs from declared work: the same plan every time, complete, and better balanced than "
          "1 per entry", "[shard]") {
    RealPlugins real;
    const PluginInfo &copy = real.named("copy_omp"), &matmul = real.named("matmul_naive");
    Entries entries = sweep_entries_of(copy, {1'000, 100'000, 10'000'000, 100'000'000});
    for (auto entry : sweep_entries_of(matmul, {64, 128, 256, 512, 1024, 2048, 4096})) entries.push_back(entry);
    const MeasureOptions options{};
    const EntryCosts costs = declared(entries, options);
    INFO(costs.source);
    CHECK(costs.source == "declared work at nominal rates, workloads spread over the shards");
    CHECK(costs.notes.empty());
    Work matmul_2048;  // as matmul's work() declares it: 2 N^3 flops, three float32 matrices
    matmul_2048.flops = 2.0 * 2048 * 2048 * 2048;
    matmul_2048.bytes = matmul_2048.host_bytes = 3.0 * 2048 * 2048 * 4;
    CHECK(costs.costs[9] == Approx(nominal_entry_s(matmul_2048, matmul, options)));
    CHECK(costs.groups == CostGroups{{"copy_omp", "copy"}, {"matmul_naive", "matmul"}});
    CHECK(costs.costs[10] == Approx(0.05));  // 4096 is above matmul_naive's range: skipped at once
    CHECK(costs.costs[9] > 10 * costs.costs[0]);

    const uint32_t shards = 3;
    const std::vector<EntryIdentity> keys = identities_of(entries, options);
    const std::vector<PlannedEntry> plan = plan_shards(keys, costs.costs, shards);
    // Complete: every entry in exactly one shard.
    std::multiset<EntryIdentity> planned;
    for (const PlannedEntry &p : plan) {
        CHECK(p.shard < shards);
        planned.insert(p.key);
    }
    CHECK(planned == std::multiset<EntryIdentity>(keys.begin(), keys.end()));
    // Better balanced, by these costs, than dealing the entries in turn.
    const std::vector<PlannedEntry> dealt = plan_shards(keys, std::vector<double>(keys.size(), 1.0), shards);
    CHECK(largest_load(plan, costs.costs, shards) < largest_load(dealt, costs.costs, shards));
    // The same plan when asked again, with the entries in another order.
    Entries reversed(entries.rbegin(), entries.rend());
    const std::vector<PlannedEntry> again =
        plan_shards(identities_of(reversed, options), declared(reversed, options).costs, shards);
    std::map<EntryIdentity, uint32_t> first, second;
    for (const PlannedEntry &p : plan) first[p.key] = p.shard;
    for (const PlannedEntry &p : again) second[p.key] = p.shard;
    CHECK(first == second);
}

TEST_CASE("costs from declared work: a plugin whose work cannot be read still gets planned, at "
          "the median", "[shard]") {
    RealPlugins real;
    const PluginInfo &copy = real.named("copy_omp"), &matmul = real.named("matmul_naive");
    PluginInfo hanging;  // loading never ends
    hanging.name = "hostile_constructor_hang";
    hanging.file = fs::path(GPUBENCH_HOSTILE_DIR) / "hostile_constructor_hang.so";
    hanging.max_size = 100;
    Entries entries = sweep_entries_of(copy, {1'000, 10'000'000, 100'000'000});
    // matmul's work() refuses dtype=float16; each entry is asked with its own params.
    for (auto entry : sweep_entries_of(matmul, {64, 128}, "dtype=float16")) entries.push_back(entry);
    entries.push_back({&hanging, 1, ""});
    MeasureOptions options;
    const EntryCosts costs = declared(entries, options, 1.0);
    CHECK(costs.source == "declared work at nominal rates, workloads spread over the shards, unknown for 3 of 6 "
                          "entries (costed as the median)");
    const double median = costs.costs[1];  // of copy's three
    for (size_t i : {3, 4, 5}) CHECK(costs.costs[i] == median);
    REQUIRE(costs.notes.size() == 2);
    CHECK(costs.notes[0] == "cannot read the declared work of matmul_naive [dtype=float16] at 2 of 2 sizes (work: "
                            "dtype='float16': expected float32 or float64): costed as the median");
    CHECK(costs.notes[1] == "cannot read the declared work of hostile_constructor_hang at 1 of 1 sizes "
                            "(no answer after 1 s (--scan-timeout)): costed as the median");
    const std::vector<PlannedEntry> plan = plan_shards(identities_of(entries, options), costs.costs, 2);
    CHECK(plan.size() == entries.size());
}

TEST_CASE("the runner plans a shard by declared work, and notes a plugin whose work() fails",
          "[shard]") {
    using namespace runner_process;
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "shard.json";
    // batch above vars: within each one's declared range, refused by work() (and create()).
    const Outcome o = run_runner("--plugin copy_omp,solvebak_naive --sizes 16,64 --param vars=10 --param batch=20 "
                                 "--warmup 0" + std::string(quick) + "--shard 0/2 -o " + file.string());
    INFO(o.output);
    CHECK(o.status == 1);  // solvebak's entries (this shard's: a plugin whole) fail in setup too
    CHECK_THAT(o.output, Catch::StartsWith("note: cannot read the declared work of solvebak_naive [vars=10,batch=20] "
                                           "at 2 of 2 sizes (work: batch=20: expected 1..vars (10)"));
    const nlohmann::json shard = read_json(file)["shard"];
    CHECK(shard["costs"] == "declared work at nominal rates, workloads spread over the shards, unknown for 2 of 4 "
                            "entries (costed as the median)");
    REQUIRE(shard["planned"].size() == 4);
    std::set<std::pair<std::string, uint64_t>> planned;
    for (const nlohmann::json &p : shard["planned"])
        planned.emplace(p["plugin"].get<std::string>(), p["size"].get<uint64_t>());
    CHECK(planned == std::set<std::pair<std::string, uint64_t>>{
                         {"copy_omp", 16}, {"copy_omp", 64}, {"solvebak_naive", 16}, {"solvebak_naive", 64}});
}
