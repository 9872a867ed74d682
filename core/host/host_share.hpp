// A --devices lane's share of the host: the CPUs its worker is bound to and the threads its
// CPU work may use, so that lanes running side by side never ask for more threads than the
// host has cores (two lanes each taking every core made a sweep slower than one GPU: OpenMP
// threads spin-waiting for each other's lane). Shares are whole physical cores (SMT siblings
// are never split between lanes) and, where NVML says which CPUs are local to each GPU, the
// CPUs of its NUMA node.
//
// split_host_cpus() is the pure rule; host_share_system.cpp reads the machine (the affinity
// mask, sysfs topology, NVML) and binds a worker to its share.
#pragma once

#include "gpu.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct HostShare {
    std::vector<int> cpus;          // logical CPU ids, ascending
    int threads = 1;                // threads its CPU work may use: its logical CPUs (1 when shared)
    std::optional<int> numa_node;   // the NUMA node of its GPU, where NVML said
    size_t lanes = 1;               // lanes the host was split into (1: the entry ran alone)
    std::string basis;              // how it was chosen, in one line
    bool operator==(const HostShare &) const = default;
};

// {"cpus": "0-7,16-23", "threads": 16, "lanes": 2, "numa_node": 0, "basis": "..."}; numa_node
// only when known. from_json throws on a malformed object.
void to_json(nlohmann::json &json, const HostShare &share);
void from_json(const nlohmann::json &json, HostShare &share);

// "0-7,16-23": ascending, runs of consecutive ids as ranges; "" for none.
std::string cpu_list_text(std::vector<int> cpus);
// The inverse (sysfs's form: "0-3,8,10-11", spaces and a trailing newline allowed), sorted and
// without repeats. Throws std::invalid_argument naming the text when it is not a CPU list.
std::vector<int> parse_cpu_list(const std::string &text);

// What is known of the CPUs near one lane's GPU.
struct GpuLocality {
    std::vector<int> cpus;         // NVML's ideal CPU affinity of the device; empty: unknown
    std::optional<int> numa_node;  // the device's NUMA node, where NVML tells it
    std::string source;            // whose CPUs these are, for the basis: "GPU 1 (NVML)"
};

// The rule, pure and deterministic. `allowed`: the CPUs this process may use. `cores`: logical
// CPUs grouped by physical core (SMT siblings together; CPUs of `allowed` in no group count as
// cores of their own). `locality`: one per lane, or empty when not known for every lane.
// Returns one share per lane:
//  - where every lane's GPU has local CPUs, lanes whose GPUs share a NUMA node (or the same
//    local CPUs) split that node's allowed cores between them, each core to one lane;
//  - otherwise, or when some node has fewer allowed cores than lanes on it, the allowed cores
//    are cut into `lanes` equal parts (their sizes differ by at most one core), in order;
//  - with fewer cores than lanes, lanes share cores (lane i takes core i mod cores) and each
//    gets 1 thread.
// threads is the share's logical CPUs in the first two cases.
std::vector<HostShare> split_host_cpus(const std::vector<int> &allowed,
                                       const std::vector<std::vector<int>> &cores,
                                       const std::vector<GpuLocality> &locality, size_t lanes);

// ---- The machine (host_share_system.cpp)

// The CPUs this process may use (sched_getaffinity: taskset and cgroup cpusets respected).
std::vector<int> allowed_cpus();
// `cpus` grouped by physical core, from <cpu_dir>/cpuN/topology/thread_siblings_list (cpu_dir:
// /sys/devices/system/cpu); a CPU whose siblings cannot be read is a core of its own. Groups
// in order of their first CPU, each ascending, holding only CPUs of `cpus`.
std::vector<std::vector<int>> physical_cores(const std::vector<int> &cpus,
                                             const std::filesystem::path &cpu_dir = "/sys/devices/system/cpu");
// One share per GPU of a --devices sweep, from this machine.
std::vector<HostShare> plan_host_shares(const std::vector<GpuInfo> &gpus);
// The share of an entry that runs alone: every CPU this process may use.
HostShare whole_host_share();

// Binds this process to `cpus` (threads started later inherit it) and sets OMP_NUM_THREADS,
// OPENBLAS_NUM_THREADS, MKL_NUM_THREADS, NUMBA_NUM_THREADS and NUMEXPR_NUM_THREADS to
// `threads`, overwriting: a worker does so before it loads its plugin, whose libraries read
// them once. Returns "" or why the CPUs could not be taken.
std::string apply_host_share(const std::vector<int> &cpus, int threads);

}  // namespace gpubench
