// Each --devices lane's share of the host (host_share.hpp): the split rule on machines this
// test describes (SMT siblings N apart, two NUMA nodes, taskset), CPU lists, the sysfs
// topology reader and the worker's command line.
#include "host_share.hpp"
#include "worker_main.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

using namespace gpubench;

namespace {

std::vector<int> range(int first, int last) {  // first..last, inclusive
    std::vector<int> ids(static_cast<size_t>(last - first + 1));
    std::iota(ids.begin(), ids.end(), first);
    return ids;
}

// 16 cores of 2 SMT siblings, cpu i and i + 16, as Linux numbers them on many servers.
std::vector<std::vector<int>> siblings_16_apart() {
    std::vector<std::vector<int>> cores;
    for (int i = 0; i < 16; ++i) cores.push_back({i, i + 16});
    return cores;
}

// The two NUMA nodes of that machine: cores 0-7 and 8-15, with their siblings.
GpuLocality on_node(int node, int gpu) {
    std::vector<int> cpus = range(8 * node, 8 * node + 7);
    for (int cpu : range(8 * node + 16, 8 * node + 23)) cpus.push_back(cpu);
    return {cpus, node, "GPU " + std::to_string(gpu) + " (NVML)"};
}

// No CPU in two shares, and every core's CPUs in one share (or none).
void check_disjoint_whole_cores(const std::vector<HostShare> &shares,
                                const std::vector<std::vector<int>> &cores) {
    std::set<int> seen;
    for (const HostShare &share : shares)
        for (int cpu : share.cpus) CHECK(seen.insert(cpu).second);
    for (const std::vector<int> &core : cores) {
        std::set<size_t> holders;
        for (size_t lane = 0; lane < shares.size(); ++lane)
            for (int cpu : core)
                if (std::count(shares[lane].cpus.begin(), shares[lane].cpus.end(), cpu)) holders.insert(lane);
        INFO("core " << cpu_list_text(core));
        CHECK(holders.size() <= 1);
    }
}

}  // namespace

TEST_CASE("two lanes over 32 CPUs whose siblings are 16 apart: 8 whole cores each", "[host_share]") {
    const auto cores = siblings_16_apart();
    const std::vector<HostShare> shares = split_host_cpus(range(0, 31), cores, {}, 2);
    REQUIRE(shares.size() == 2);
    CHECK(cpu_list_text(shares[0].cpus) == "0-7,16-23");  // not 0-15: all first threads
    CHECK(cpu_list_text(shares[1].cpus) == "8-15,24-31");
    for (const HostShare &share : shares) {
        CHECK(share.threads == 16);
        CHECK(share.lanes == 2);
        CHECK_FALSE(share.numa_node);
        CHECK(share.basis == "an equal part (8 cores) of the 32 CPUs this process may use");
    }
    check_disjoint_whole_cores(shares, cores);
    CHECK(split_host_cpus(range(0, 31), cores, {}, 2) == shares);  // deterministic
}

TEST_CASE("two NUMA nodes with a GPU each: each lane takes its GPU's node", "[host_share]") {
    const auto cores = siblings_16_apart();
    // GPU 0 on node 1, GPU 1 on node 0: the lanes follow their GPUs, not the node order.
    const std::vector<HostShare> shares =
        split_host_cpus(range(0, 31), cores, {on_node(1, 0), on_node(0, 1)}, 2);
    REQUIRE(shares.size() == 2);
    CHECK(cpu_list_text(shares[0].cpus) == "8-15,24-31");
    CHECK(cpu_list_text(shares[1].cpus) == "0-7,16-23");
    CHECK(shares[0].numa_node == 1);
    CHECK(shares[1].numa_node == 0);
    CHECK(shares[0].threads == 16);
    CHECK(shares[0].basis == "NUMA node 1 of GPU 0 (NVML)");
    check_disjoint_whole_cores(shares, cores);
    // The same masks without node ids: grouped by the local CPUs themselves.
    GpuLocality a = on_node(1, 0), b = on_node(0, 1);
    a.numa_node = b.numa_node = std::nullopt;
    const std::vector<HostShare> unnamed = split_host_cpus(range(0, 31), cores, {a, b}, 2);
    CHECK(unnamed[0].cpus == shares[0].cpus);
    CHECK(unnamed[0].basis == "the CPUs local to GPU 0 (NVML)");
}

TEST_CASE("three lanes on two nodes: two split their node, the third has its own", "[host_share]") {
    const auto cores = siblings_16_apart();
    const std::vector<HostShare> shares =
        split_host_cpus(range(0, 31), cores, {on_node(0, 0), on_node(0, 1), on_node(1, 2)}, 3);
    REQUIRE(shares.size() == 3);
    CHECK(cpu_list_text(shares[0].cpus) == "0-3,16-19");
    CHECK(cpu_list_text(shares[1].cpus) == "4-7,20-23");
    CHECK(cpu_list_text(shares[2].cpus) == "8-15,24-31");
    CHECK(shares[0].threads == 8);
    CHECK(shares[2].threads == 16);
    CHECK(shares[1].basis == "NUMA node 0 of GPU 1 (NVML): 4 of its 8 cores, shared by 2 lanes");
    for (const HostShare &share : shares) CHECK(share.lanes == 3);
    check_disjoint_whole_cores(shares, cores);
    // Without locality: three parts of 5, 5 and 6 cores.
    const std::vector<HostShare> even = split_host_cpus(range(0, 31), cores, {}, 3);
    CHECK(cpu_list_text(even[0].cpus) == "0-4,16-20");
    CHECK(cpu_list_text(even[2].cpus) == "10-15,26-31");
    check_disjoint_whole_cores(even, cores);
}

TEST_CASE("four lanes on two CPUs share cores, one thread each", "[host_share]") {
    const std::vector<HostShare> shares = split_host_cpus({0, 1}, {{0}, {1}}, {}, 4);
    REQUIRE(shares.size() == 4);
    for (size_t lane = 0; lane < 4; ++lane) {
        CHECK(shares[lane].cpus == std::vector<int>{int(lane % 2)});
        CHECK(shares[lane].threads == 1);
        CHECK(shares[lane].lanes == 4);
        CHECK_THAT(shares[lane].basis, Catch::Contains("fewer cores (2) than lanes (4)"));
    }
    // Two CPUs, two lanes (the CI machine): one each.
    const std::vector<HostShare> two = split_host_cpus({0, 1}, {{0}, {1}}, {}, 2);
    CHECK(two[0].cpus == std::vector<int>{0});
    CHECK(two[1].cpus == std::vector<int>{1});
    CHECK(two[1].threads == 1);
}

// An eight-GPU host (HGX): the 16-core machine above, four GPUs on each of its nodes.
TEST_CASE("eight lanes on two nodes of four GPUs: two whole cores each, on its GPU's node", "[host_share]") {
    const auto cores = siblings_16_apart();
    std::vector<GpuLocality> locality;
    for (int gpu = 0; gpu < 8; ++gpu) locality.push_back(on_node(gpu / 4, gpu));
    const std::vector<HostShare> shares = split_host_cpus(range(0, 31), cores, locality, 8);
    REQUIRE(shares.size() == 8);
    for (int lane = 0; lane < 8; ++lane) {
        INFO("lane " << lane);
        CHECK(shares[lane].cpus == std::vector<int>{2 * lane, 2 * lane + 1, 2 * lane + 16, 2 * lane + 17});
        CHECK(shares[lane].threads == 4);
        CHECK(shares[lane].lanes == 8);
        CHECK(shares[lane].numa_node == lane / 4);
    }
    CHECK(shares[5].basis == "NUMA node 1 of GPU 5 (NVML): 2 of its 8 cores, shared by 4 lanes");
    check_disjoint_whole_cores(shares, cores);
    // Without locality: the same two cores each, in order.
    const std::vector<HostShare> even = split_host_cpus(range(0, 31), cores, {}, 8);
    for (int lane = 0; lane < 8; ++lane) CHECK(even[lane].cpus == shares[lane].cpus);
    CHECK(even[7].basis == "an equal part (2 cores) of the 32 CPUs this process may use");
    // Ten of twelve GPUs on node 0, whose 8 cores cannot give each its own: equal parts of all.
    locality.clear();
    for (int gpu = 0; gpu < 12; ++gpu) locality.push_back(on_node(gpu < 10 ? 0 : 1, gpu));
    const std::vector<HostShare> crowded = split_host_cpus(range(0, 31), cores, locality, 12);
    CHECK_THAT(crowded[0].basis, Catch::Contains("the CPUs local to GPU 0 (NVML) hold 8 cores for 10 lanes"));
    check_disjoint_whole_cores(crowded, cores);
}

TEST_CASE("3, 5, 8 and 16 lanes: parts a core apart at most, every core used once", "[host_share]") {
    const auto cores = siblings_16_apart();
    for (size_t lanes : {3, 5, 8, 16}) {
        INFO(lanes << " lanes");
        const std::vector<HostShare> shares = split_host_cpus(range(0, 31), cores, {}, lanes);
        REQUIRE(shares.size() == lanes);
        size_t fewest = 16, most = 0, cpus = 0;
        for (const HostShare &share : shares) {
            fewest = std::min(fewest, share.cpus.size() / 2);
            most = std::max(most, share.cpus.size() / 2);
            cpus += share.cpus.size();
            CHECK(share.threads == int(share.cpus.size()));
            CHECK(share.lanes == lanes);
        }
        CHECK(most - fewest <= 1);
        CHECK(cpus == 32);
        check_disjoint_whole_cores(shares, cores);
    }
    // 16 lanes: a core each, with its sibling.
    CHECK(cpu_list_text(split_host_cpus(range(0, 31), cores, {}, 16)[15].cpus) == "15,31");
}

TEST_CASE("eight lanes on five cores, or sixteen on eight, share cores, one thread each", "[host_share]") {
    const std::vector<HostShare> shares = split_host_cpus(range(0, 4), {}, {}, 8);
    REQUIRE(shares.size() == 8);
    for (int lane = 0; lane < 8; ++lane) {
        CHECK(shares[lane].cpus == std::vector<int>{lane % 5});
        CHECK(shares[lane].threads == 1);
        CHECK(shares[lane].lanes == 8);
        CHECK_THAT(shares[lane].basis, Catch::Contains("fewer cores (5) than lanes (8)"));
    }
    // With their GPUs' nodes known, too few cores on a node still shares them.
    std::vector<GpuLocality> locality;
    for (int gpu = 0; gpu < 16; ++gpu) locality.push_back({range(0, 7), 0, "GPU " + std::to_string(gpu) + " (NVML)"});
    const std::vector<HostShare> sixteen = split_host_cpus(range(0, 7), {}, locality, 16);
    CHECK(sixteen[15].cpus == std::vector<int>{7});
    CHECK(sixteen[15].threads == 1);
    CHECK_THAT(sixteen[15].basis, Catch::Contains("fewer cores (8) than lanes (16)"));
}

TEST_CASE("an allowed set smaller than the machine (taskset): only its CPUs, still whole cores",
          "[host_share]") {
    const auto cores = siblings_16_apart();
    const std::vector<int> allowed{2, 3, 4, 5, 18, 19};  // cores 2 and 3 whole, 4 and 5 half
    const std::vector<HostShare> shares = split_host_cpus(allowed, cores, {}, 2);
    CHECK(cpu_list_text(shares[0].cpus) == "2-3,18-19");
    CHECK(cpu_list_text(shares[1].cpus) == "4-5");
    CHECK(shares[0].basis == "an equal part (2 cores) of the 6 CPUs this process may use");
    check_disjoint_whole_cores(shares, cores);
    // Taken to node 1 while both GPUs sit on node 0: node 0 has no allowed core, so the
    // allowed ones are split evenly, and the basis says why.
    const std::vector<HostShare> away =
        split_host_cpus(range(8, 15), cores, {on_node(0, 0), on_node(0, 1)}, 2);
    CHECK(cpu_list_text(away[0].cpus) == "8-11");
    CHECK(cpu_list_text(away[1].cpus) == "12-15");
    CHECK_FALSE(away[0].numa_node);
    CHECK_THAT(away[0].basis, Catch::Contains("the CPUs local to GPU 0 (NVML) hold 0 cores for 2 lanes"));
}

TEST_CASE("CPU lists print as ranges and parse back, and a bad one is refused in one line", "[host_share]") {
    CHECK(cpu_list_text({16, 0, 1, 2, 3, 17, 5}) == "0-3,5,16-17");
    CHECK(cpu_list_text({}).empty());
    CHECK(cpu_list_text({7}) == "7");
    CHECK(parse_cpu_list("0-3,8,10-11\n") == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
    CHECK(parse_cpu_list(" 5 ") == std::vector<int>{5});
    CHECK(parse_cpu_list("").empty());
    CHECK(parse_cpu_list(cpu_list_text(range(0, 7))) == range(0, 7));
    for (const char *bad : {"a", "3-1", "1,,2", "1-", "-1", "1,", "0-7;9", "99999999"}) {
        INFO(bad);
        CHECK_THROWS_WITH(parse_cpu_list(bad),
                          std::string("'") + bad + "' is not a CPU list (like 0-7,16-23)");
    }
}

TEST_CASE("physical cores come from the sysfs sibling lists, and an unreadable CPU is a core alone",
          "[host_share]") {
    const auto dir = std::filesystem::temp_directory_path() / "gpubench-host-share-sysfs";
    std::filesystem::remove_all(dir);
    const auto siblings = [&](int cpu, const std::string &list) {
        std::filesystem::create_directories(dir / ("cpu" + std::to_string(cpu)) / "topology");
        std::ofstream(dir / ("cpu" + std::to_string(cpu)) / "topology" / "thread_siblings_list") << list << '\n';
    };
    siblings(0, "0,2");
    siblings(1, "1,3");
    siblings(2, "0,2");
    siblings(3, "1,3");
    siblings(5, "garbage");
    const std::vector<std::vector<int>> cores = physical_cores({3, 0, 1, 2, 4, 5}, dir);
    CHECK(cores == std::vector<std::vector<int>>{{0, 2}, {1, 3}, {4}, {5}});
    CHECK(physical_cores({0, 1}, dir) == std::vector<std::vector<int>>{{0}, {1}});  // of `cpus` only
    std::filesystem::remove_all(dir);
    // This machine: every allowed CPU in exactly one core.
    const std::vector<int> allowed = allowed_cpus();
    REQUIRE_FALSE(allowed.empty());
    size_t counted = 0;
    for (const auto &core : physical_cores(allowed)) counted += core.size();
    CHECK(counted == allowed.size());
}

TEST_CASE("a share is written with numa_node only when known, and read back", "[host_share]") {
    HostShare share{{0, 1, 2, 3, 8}, 5, std::nullopt, 2, "an equal part"};
    nlohmann::json j = share;
    CHECK(j == nlohmann::json{{"cpus", "0-3,8"}, {"threads", 5}, {"lanes", 2}, {"basis", "an equal part"}});
    CHECK(j.get<HostShare>() == share);
    share.numa_node = 1;
    CHECK(nlohmann::json(share)["numa_node"] == 1);
    CHECK(nlohmann::json(share).get<HostShare>() == share);
    const HostShare whole = whole_host_share();
    CHECK(whole.cpus == allowed_cpus());
    CHECK(whole.threads == int(whole.cpus.size()));
    CHECK(whole.lanes == 1);
}

TEST_CASE("the worker command line carries a share and what to ready, and the old form stays valid",
          "[host_share]") {
    const std::vector<std::string> plain = worker_command_line("/bin/runner", "p.so");
    CHECK(plain == std::vector<std::string>{"/bin/runner", worker_flag, "p.so"});
    const HostShare share{{0, 1, 2, 3, 16, 17, 18, 19}, 8, 0, 2, "x"};
    const std::vector<std::string> bound = worker_command_line("/bin/runner", "p.so", share);
    CHECK(bound == std::vector<std::string>{"/bin/runner", worker_flag, "p.so",
                                            "--cpus", "0-3,16-19", "--threads", "8"});
    const std::vector<std::string> ready = worker_command_line("/bin/runner", "p.so", share, {8, true});
    CHECK(ready == std::vector<std::string>{"/bin/runner", worker_flag, "p.so", "--cpus",
                                            "0-3,16-19", "--threads", "8", "--prepare", "8", "--trace"});
    CHECK(worker_command_line("/bin/runner", "p.so", std::nullopt, {2, false}) ==
          std::vector<std::string>{"/bin/runner", worker_flag, "p.so", "--prepare", "2"});
    // Malformed shares and options are refused before the worker does anything.
    for (const std::vector<const char *> &argv :
         {std::vector<const char *>{"runner", worker_flag},
          {"runner", worker_flag, "p.so", "--cpus", "x", "--threads", "2"},
          {"runner", worker_flag, "p.so", "--cpus", "0-1", "--threads", "0"},
          {"runner", worker_flag, "p.so", "--cpus", "0-1"},
          {"runner", worker_flag, "p.so", "--threads", "2", "--cpus", "0-1"},
          {"runner", worker_flag, "p.so", "--prepare", "0"},
          {"runner", worker_flag, "p.so", "--prepare"},
          {"runner", worker_flag, "p.so", "--trace"},
          {"runner", worker_flag, "p.so", "--prepare", "2", "--cpus", "0-1", "--threads", "2"},
          {"runner", worker_flag, "p.so", "--prepare", "2", "--trace", "x"}})
        CHECK(worker_main(int(argv.size()), argv.data()) == 2);
}
