// Sharded sweeps, the parts without a runner: --shard's value and "auto" from each launcher's
// variables, the partition (complete, disjoint, balanced, the same in any input order), and
// costs from earlier results.
#include "shard.hpp"
#include "shard_costs.hpp"
#include "shard_plan.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace gpubench;
using test_support::environment;

namespace {

std::pair<uint32_t, uint32_t> shard_from(std::map<std::string, std::string> variables) {
    const ShardSpec spec = parse_shard_option("auto", environment(std::move(variables)));
    return {spec.index, spec.count};
}

void check_refused(const std::string &text, std::map<std::string, std::string> variables,
                   const std::string &says) {
    INFO(text << " with " << variables.size() << " variables");
    CHECK_THROWS_WITH(parse_shard_option(text, environment(std::move(variables))), Catch::Contains(says));
}

std::vector<CostedEntry> synthetic_entries(size_t n, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> cost(0.01, 100);
    std::vector<CostedEntry> entries;
    for (size_t i = 0; i < n; ++i)
        entries.push_back({{"plugin_" + std::to_string(i % 7), i, i % 3 ? "" : "dtype=float64", 42}, cost(random)});
    return entries;
}

std::vector<double> cost_per_shard(const std::vector<CostedEntry> &entries, const std::vector<uint32_t> &shard_of,
                                   uint32_t count) {
    std::vector<double> load(count, 0.0);
    for (size_t i = 0; i < entries.size(); ++i) load[shard_of[i]] += entries[i].cost;
    return load;
}

}  // namespace

TEST_CASE("a shard is I/N, 0-based, and junk, I >= N and N = 0 are refused in one line", "[shard]") {
    const ShardSpec spec = parse_shard_option("3/4", environment({}));
    CHECK(spec.index == 3);
    CHECK(spec.count == 4);
    CHECK(spec.source == "--shard 3/4");
    CHECK(parse_shard_option("0/1", environment({})).count == 1);
    check_refused("4/4", {}, "shard 4 of 4 does not exist (0-based: 0 to 3)");
    check_refused("0/0", {}, "the shard count must be at least 1");
    check_refused("0/100000", {}, "at most 65536 shards");
    for (const char *junk : {"", "abc", "1", "1/", "/4", "-1/4", "1/-4", "1/4x", " 1/4", "1/4/5",
                             "1.0/4", "0x1/4", "99999999999999999999/4"})
        check_refused(junk, {}, "expected I/N, the 0-based shard I of N");
}

TEST_CASE("shard auto: a Slurm job array's task, by MIN, STEP and COUNT or MAX", "[shard]") {
    CHECK(shard_from({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "4"},
                      {"SLURM_ARRAY_TASK_COUNT", "4"}}) == std::pair<uint32_t, uint32_t>{1, 4});
    CHECK(shard_from({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                      {"SLURM_ARRAY_TASK_MAX", "3"}}) == std::pair<uint32_t, uint32_t>{3, 4});
    // --array=4-10:2 is tasks 4, 6, 8, 10.
    CHECK(shard_from({{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_MIN", "4"},
                      {"SLURM_ARRAY_TASK_MAX", "10"}, {"SLURM_ARRAY_TASK_STEP", "2"},
                      {"SLURM_ARRAY_TASK_COUNT", "4"}}) == std::pair<uint32_t, uint32_t>{2, 4});
    // The array's variables come before a rank's (a batch script has SLURM_PROCID=0 too).
    CHECK(shard_from({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                      {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}) ==
          std::pair<uint32_t, uint32_t>{2, 3});
    const ShardSpec spec = parse_shard_option(
        "auto", environment({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}));
    CHECK_THAT(spec.source, Catch::Contains("SLURM_ARRAY_TASK_ID=1") && Catch::Contains("SLURM_ARRAY_TASK_COUNT=2"));

    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}},
                  "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not");
    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "0"}},
                  "neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX");
    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "4"},
                           {"SLURM_ARRAY_TASK_STEP", "2"}, {"SLURM_ARRAY_TASK_MAX", "10"}},
                  "task 5 is not in the array's range from 4 by 2");
    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_MAX", "10"}},
                  "task 3 is not in the array's range");
    // --array=1,3,7: three tasks over a range of seven, positions unknown.
    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                           {"SLURM_ARRAY_TASK_MAX", "7"}, {"SLURM_ARRAY_TASK_COUNT", "3"}},
                  "the job array is not a range");
    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_COUNT", "4"}},
                  "shard 9 of 4 does not exist");
    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_COUNT", "4"}},
                  "SLURM_ARRAY_TASK_ID='x' is not a whole number");
    check_refused("auto", {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                           {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_STEP", "0"}},
                  "SLURM_ARRAY_TASK_STEP is 0");
}

TEST_CASE("shard auto: a task's rank from Slurm, Open MPI or PMI, which must agree", "[shard]") {
    CHECK(shard_from({{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}}) == std::pair<uint32_t, uint32_t>{2, 4});
    CHECK(shard_from({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "3"}}) ==
          std::pair<uint32_t, uint32_t>{1, 3});
    CHECK(shard_from({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}) == std::pair<uint32_t, uint32_t>{0, 2});
    CHECK(shard_from({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}) ==
          std::pair<uint32_t, uint32_t>{1, 2});
    CHECK(parse_shard_option("auto", environment({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}})).source ==
          "PMI_RANK=0, PMI_SIZE=2");

    check_refused("auto", {}, "no launcher variables found (looked for SLURM_ARRAY_TASK_ID, "
                              "SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, "
                              "PMI_RANK/PMI_SIZE); give --shard I/N");
    check_refused("auto", {{"SLURM_PROCID", "1"}}, "SLURM_PROCID is set but SLURM_NTASKS is not");
    check_refused("auto", {{"OMPI_COMM_WORLD_SIZE", "4"}}, "OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not");
    check_refused("auto", {{"PMI_RANK", "4"}, {"PMI_SIZE", "4"}}, "shard 4 of 4 does not exist");
    check_refused("auto", {{"PMI_RANK", "0"}, {"PMI_SIZE", "0"}}, "the shard count must be at least 1");
    check_refused("auto", {{"OMPI_COMM_WORLD_RANK", "one"}, {"OMPI_COMM_WORLD_SIZE", "4"}},
                  "OMPI_COMM_WORLD_RANK='one' is not a whole number");
    // mpirun inside a Slurm job: every process inherits the job's SLURM_PROCID.
    check_refused("auto", {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"OMPI_COMM_WORLD_RANK", "2"},
                           {"OMPI_COMM_WORLD_SIZE", "4"}},
                  "SLURM_PROCID=0, SLURM_NTASKS=4 but OMPI_COMM_WORLD_RANK=2, OMPI_COMM_WORLD_SIZE=4: "
                  "the launcher's variables disagree");
}

TEST_CASE("the partition gives every entry exactly one shard, for many sweeps and shard counts",
          "[shard]") {
    for (size_t n : {0, 1, 2, 5, 17, 100, 333})
        for (uint32_t count : {1u, 2u, 3u, 4u, 7u, 16u, 400u}) {
            const std::vector<CostedEntry> entries = synthetic_entries(n, static_cast<uint32_t>(n * 1000 + count));
            std::vector<EntryIdentity> keys;
            std::vector<double> costs;
            for (const CostedEntry &e : entries) keys.push_back(e.key), costs.push_back(e.cost);
            const std::vector<PlannedEntry> plan = plan_shards(keys, costs, count);
            REQUIRE(plan.size() == n);
            // What each shard runs, as shard_sweep picks it: together all, none twice.
            std::multiset<EntryIdentity> measured;
            for (uint32_t shard = 0; shard < count; ++shard)
                for (size_t i = 0; i < n; ++i)
                    if (plan[i].shard == shard) measured.insert(plan[i].key);
            INFO(n << " entries, " << count << " shards");
            CHECK(measured == std::multiset<EntryIdentity>(keys.begin(), keys.end()));
            for (const PlannedEntry &p : plan) CHECK(p.shard < count);
        }
}

TEST_CASE("the partition is balanced: within the largest cost of the average, and LPT's on a known list",
          "[shard]") {
    for (uint32_t count : {2u, 3u, 5u, 8u}) {
        const std::vector<CostedEntry> entries = synthetic_entries(200, count);
        const std::vector<double> load = cost_per_shard(entries, partition_by_cost(entries, count), count);
        double total = 0, largest = 0;
        for (const CostedEntry &e : entries) total += e.cost, largest = std::max(largest, e.cost);
        INFO(count << " shards");
        CHECK(*std::max_element(load.begin(), load.end()) <= total / count + largest + 1e-9);
    }
    // One long entry and ten short ones over two shards: round robin would load 15 and 5.
    std::vector<CostedEntry> skewed{{{"long", 1, "", 0}, 10}};
    for (uint64_t size = 1; size <= 10; ++size) skewed.push_back({{"short", size, "", 0}, 1});
    CHECK(cost_per_shard(skewed, partition_by_cost(skewed, 2), 2) == std::vector<double>{10, 10});
    // 7, 5, 4, 3, 3, 2 over two: 7 | 5, 5+4 | 7+3 | 9+3 | 10+2: both 12, the optimum.
    const std::vector<CostedEntry> known{{{"a", 1, "", 0}, 7}, {{"b", 1, "", 0}, 5}, {{"c", 1, "", 0}, 4},
                                         {{"d", 1, "", 0}, 3}, {{"e", 1, "", 0}, 3}, {{"f", 1, "", 0}, 2}};
    CHECK(partition_by_cost(known, 2) == std::vector<uint32_t>{0, 1, 1, 0, 1, 0});
    // One plugin's equal costs: whole into shard 0, then its first entry by key (size
    // numerically) moves to shard 1, and no further move lowers the larger load.
    const std::vector<CostedEntry> equal{{{"p", 100, "", 0}, 1}, {{"p", 20, "", 0}, 1}, {{"p", 3, "", 0}, 1}};
    CHECK(partition_by_cost(equal, 2) == std::vector<uint32_t>{0, 0, 1});
    // Costs that are no number count as nothing, and do not upset the order.
    const std::vector<CostedEntry> odd{{{"a", 1, "", 0}, std::nan("")}, {{"b", 1, "", 0}, -5}, {{"c", 1, "", 0}, 2}};
    CHECK(partition_by_cost(odd, 2) == std::vector<uint32_t>{1, 1, 0});
}

TEST_CASE("the partition counts each plugin's start once per shard that holds it", "[shard]") {
    const auto load_with_starts = [](const std::vector<CostedEntry> &entries, const std::vector<uint32_t> &shard_of,
                                     const StartCosts &starts, uint32_t count) {
        std::vector<double> load(count, 0.0);
        std::set<std::pair<uint32_t, std::string>> held;
        for (size_t i = 0; i < entries.size(); ++i) {
            load[shard_of[i]] += entries[i].cost;
            if (held.insert({shard_of[i], entries[i].key.plugin}).second) load[shard_of[i]] += starts.at(entries[i].key.plugin);
        }
        return load;
    };
    // Four plugins of four 1 s entries, each with a start of 3 s: whole plugins, two a shard
    // (14 + 14), where entry by entry every shard would pay every start (8 + 12 each).
    std::vector<CostedEntry> four;
    StartCosts starts;
    for (const char *plugin : {"a", "b", "c", "d"}) {
        starts[plugin] = 3;
        for (uint64_t size = 1; size <= 4; ++size) four.push_back({{plugin, size, "", 0}, 1});
    }
    const std::vector<uint32_t> whole = partition_by_cost(four, 2, starts);
    CHECK(load_with_starts(four, whole, starts, 2) == std::vector<double>{14, 14});
    for (size_t i = 0; i < four.size(); i += 4)
        for (size_t j = i; j < i + 4; ++j) CHECK(whole[j] == whole[i]);  // a plugin is not split
    // One long plugin (start 2, four entries of 10) and a short one (start 2, one entry of 4):
    // whole, 42 | 6; the long one is split, paying its start in both shards: at best
    // 2+10+10 | 2+10+10 + 2+4, 22 | 28 (a third long entry on either side makes 32).
    std::vector<CostedEntry> skewed;
    for (uint64_t size = 1; size <= 4; ++size) skewed.push_back({{"long", size, "", 0}, 10});
    skewed.push_back({{"short", 1, "", 0}, 4});
    const StartCosts skewed_starts{{"long", 2}, {"short", 2}};
    const std::vector<double> load = load_with_starts(skewed, partition_by_cost(skewed, 2, skewed_starts), skewed_starts, 2);
    CHECK(std::abs(load[0] - load[1]) <= 10 + 2);
    CHECK(std::max(load[0], load[1]) == 28);  // the best there is: {long x2} | {long x2, short}
    // The bound, on random sweeps of many plugins with starts.
    for (uint32_t count : {2u, 3u, 8u}) {
        const std::vector<CostedEntry> entries = synthetic_entries(300, 40 + count);
        StartCosts random_starts;
        for (const CostedEntry &e : entries) random_starts[e.key.plugin] = 0.5 + double(e.key.plugin.size() % 3);
        const std::vector<uint32_t> shard_of = partition_by_cost(entries, count, random_starts);
        const std::vector<double> loads = load_with_starts(entries, shard_of, random_starts, count);
        double largest_entry = 0, largest_start = 0;
        for (const CostedEntry &e : entries) largest_entry = std::max(largest_entry, e.cost);
        for (const auto &[plugin, start] : random_starts) largest_start = std::max(largest_start, start);
        INFO(count << " shards");
        CHECK(*std::max_element(loads.begin(), loads.end()) - *std::min_element(loads.begin(), loads.end()) <=
              largest_entry + largest_start + 1e-9);
    }
}

TEST_CASE("the partition spreads each group's plugins over the shards, and counts loads as shard_loads does",
          "[shard]") {
    // Two workloads of two backends, over two shards. By cost alone, 10 | 9, 9+5 | 10+4: each
    // shard holds one workload whole (14 | 14), and whatever the estimates miss of that
    // workload falls on one shard. Spread: 10 | 9, 10+5 (the fewest of y) | 9+4: 15 | 13.
    const std::vector<CostedEntry> entries{{{"xa", 1, "", 0}, 10}, {{"xd", 1, "", 0}, 4},
                                           {{"yb", 1, "", 0}, 9}, {{"yc", 1, "", 0}, 5}};
    const CostGroups groups{{"xa", "x"}, {"xd", "x"}, {"yb", "y"}, {"yc", "y"}};
    CHECK(partition_by_cost(entries, 2) == std::vector<uint32_t>{0, 0, 1, 1});
    const std::vector<uint32_t> spread = partition_by_cost(entries, 2, {}, groups);
    CHECK(spread == std::vector<uint32_t>{0, 1, 1, 0});
    CHECK(shard_loads(entries, spread, 2) == std::vector<double>{15, 13});
    // A trade within a group where the first pass left the shards apart: x1 9 | y1 9, z1 8
    // on the first (17), y2 7 there too (the fewest of y: 24), z2 6 and x2 4 on the second
    // (19); then z's 8 and 6 trade places, 22 | 21, and each shard still holds one of each.
    const std::vector<CostedEntry> traded{{{"x1", 1, "", 0}, 9}, {{"x2", 1, "", 0}, 4}, {{"y1", 1, "", 0}, 9},
                                          {{"y2", 1, "", 0}, 7}, {{"z1", 1, "", 0}, 8}, {{"z2", 1, "", 0}, 6}};
    const CostGroups xyz{{"x1", "x"}, {"x2", "x"}, {"y1", "y"}, {"y2", "y"}, {"z1", "z"}, {"z2", "z"}};
    const std::vector<uint32_t> after_trade = partition_by_cost(traded, 2, {}, xyz);
    CHECK(after_trade == std::vector<uint32_t>{0, 1, 1, 0, 1, 0});
    CHECK(shard_loads(traded, after_trade, 2) == std::vector<double>{22, 21});
    // With starts: each plugin's once per shard that holds it.
    const StartCosts starts{{"xa", 1}, {"yb", 2}};
    CHECK(shard_loads(entries, {0, 0, 0, 1}, 2, starts) == std::vector<double>{10 + 4 + 9 + 1 + 2, 5});
    // Grouped or not, the bound holds, whatever the order.
    const std::vector<CostedEntry> many = synthetic_entries(300, 11);
    CostGroups halves;
    for (const CostedEntry &e : many) halves[e.key.plugin] = e.key.plugin.back() % 2 ? "odd" : "even";
    const std::vector<uint32_t> shard_of = partition_by_cost(many, 3, {}, halves);
    const std::vector<double> load = shard_loads(many, shard_of, 3);
    double largest = 0;
    for (const CostedEntry &e : many) largest = std::max(largest, e.cost);
    CHECK(*std::max_element(load.begin(), load.end()) - *std::min_element(load.begin(), load.end()) <= largest + 1e-9);
    std::vector<CostedEntry> reversed(many.rbegin(), many.rend());
    std::vector<uint32_t> reversed_shards = partition_by_cost(reversed, 3, {}, halves);
    std::reverse(reversed_shards.begin(), reversed_shards.end());
    CHECK(reversed_shards == shard_of);
}

TEST_CASE("the partition is the same whatever order the entries come in", "[shard]") {
    std::vector<CostedEntry> entries = synthetic_entries(150, 7);
    for (size_t i = 0; i < entries.size(); i += 3) entries[i].cost = 1;  // ties, broken by key
    const auto by_key = [](const std::vector<CostedEntry> &e, const std::vector<uint32_t> &shard_of) {
        std::map<EntryIdentity, uint32_t> m;
        for (size_t i = 0; i < e.size(); ++i) m[e[i].key] = shard_of[i];
        return m;
    };
    const auto first = by_key(entries, partition_by_cost(entries, 6));
    std::mt19937 random(3);
    for (int round = 0; round < 5; ++round) {
        std::shuffle(entries.begin(), entries.end(), random);
        CHECK(by_key(entries, partition_by_cost(entries, 6)) == first);
    }
}

TEST_CASE("costs from earlier results: wall time less the worker's start, else samples, skipped 0, the "
          "rest predicted", "[shard]") {
    ResultsDocument earlier;
    // wall 0: a file before harness.entry_wall_s (or a skipped entry).
    const auto recorded = [&](const std::string &plugin, uint64_t size, double wall, bool sampled, double load = 0,
                              bool started = false) {
        EntryResult e;
        e.plugin = plugin;
        e.size = size;
        e.settings.seed = 99;  // another seed: costs match by plugin, size and params
        e.sweep.entry_wall_s = wall;
        if (sampled) e.timing.samples.run = {0.4, 0.5, 0.5, 0.6}, e.timing.first_run = 1;  // 0.5 beyond the median: a first compilation
        e.timing.load = load;
        e.sweep.worker_started = started;
        earlier.entries.push_back(e);
    };
    recorded("a", 1, 8.0, true, 2, true);   // started for it: 2 + 0.5 of its 8 s are the start
    recorded("a", 2, 0, true);              // 0.5 x 4 + 1
    recorded("a", 3, 0, false);             // skipped: no time
    recorded("a", 4, 6.0, true, 2, true);   // a later worker's start: out of its cost, not a's start
    recorded("c", 2, 5.0, true, 2, false);  // a worker that measured before it: all its own
    const RecordedCosts costs_of = recorded_costs_of(earlier);
    CHECK(costs_of.start_s == StartCosts{{"a", 2.5}});
    CHECK(costs_of.entry_s.at({"a", 1, ""}) == 5.5);
    CHECK(costs_of.entry_s.at({"a", 2, ""}) == 3);
    CHECK(costs_of.entry_s.at({"a", 3, ""}) == 0);
    CHECK(costs_of.entry_s.at({"a", 4, ""}) == 3.5);
    CHECK(costs_of.entry_s.at({"c", 2, ""}) == 5.0);

    PluginInfo a, b;
    a.name = "a", b.name = "b";
    a.max_size = b.max_size = 100;
    const SweepEntries entries{{&a, 1, ""}, {&a, 2, ""}, {&a, 3, ""}, {&b, 1, ""}, {&a, 1, "k=v"}};
    SweepEntries asked;
    const auto predict = [&](const SweepEntries &missing) {
        asked = missing;
        EntryCosts predicted;
        for (const SweepEntry &entry : missing) predicted.costs.push_back(100.0 + double(entry.size));
        predicted.notes.push_back("a note of the prediction");
        return predicted;
    };
    const EntryCosts costs = costs_from_recorded(entries, costs_of, "from earlier results: old.json", predict);
    CHECK(costs.costs == std::vector<double>{5.5, 3, 0, 101, 101});
    REQUIRE(asked.size() == 2);  // only those the file lacks, each with its own params
    CHECK((asked[0].plugin == &b && asked[1].params == "k=v"));
    CHECK(costs.source == "from earlier results: old.json, 2 of 5 entries predicted from declared work (not "
                          "recorded there)");
    CHECK(costs.notes == std::vector<std::string>{"a note of the prediction"});
    // b's start is not recorded: nominal. Recorded costs are the entries' own: no groups.
    CHECK(costs.start_costs == StartCosts{{"a", 2.5}, {"b", nominal_start_cost(b).seconds}});
    CHECK(costs.groups.empty());
    // Nothing to predict: predict is not asked.
    asked.clear();
    const EntryCosts whole = costs_from_recorded({{&a, 1, ""}}, costs_of, "x", predict);
    CHECK(asked.empty());
    CHECK(whole.source == "x");
}
