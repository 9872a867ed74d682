// The parts of host_share.hpp that read this machine or change this process: the affinity
// mask, sysfs's core topology, NVML's CPUs near each GPU, binding a worker.
#include "host_share.hpp"

#include "nvml_probe.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <stdexcept>
#include <thread>

namespace gpubench {
namespace {

// A CPU mask of `sets` cpu_set_t's: machines may have more than CPU_SETSIZE CPUs.
using CpuMask = std::vector<cpu_set_t>;
size_t mask_bytes(const CpuMask &mask) { return mask.size() * sizeof(cpu_set_t); }

const char *const thread_count_variables[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                               "NUMBA_NUM_THREADS", "NUMEXPR_NUM_THREADS"};

}  // namespace

std::vector<int> allowed_cpus() {
    for (size_t sets = 1; sets <= 64; sets *= 2) {
        CpuMask mask(sets);
        if (sched_getaffinity(0, mask_bytes(mask), mask.data()) == 0) {
            std::vector<int> cpus;
            for (size_t cpu = 0; cpu < sets * CPU_SETSIZE; ++cpu)
                if (CPU_ISSET_S(cpu, mask_bytes(mask), mask.data())) cpus.push_back(static_cast<int>(cpu));
            return cpus;
        }
        if (errno != EINVAL) break;  // EINVAL: the kernel's mask is larger than ours
    }
    std::vector<int> every(std::max(1u, std::thread::hardware_concurrency()));
    std::iota(every.begin(), every.end(), 0);
    return every;
}

std::vector<std::vector<int>> physical_cores(const std::vector<int> &cpus, const std::filesystem::path &cpu_dir) {
    std::vector<int> sorted = cpus;
    std::sort(sorted.begin(), sorted.end());
    std::map<std::vector<int>, std::vector<int>> cores;  // by the core's siblings: its CPUs of `cpus`
    for (int cpu : sorted) {
        std::vector<int> siblings;
        std::ifstream in(cpu_dir / ("cpu" + std::to_string(cpu)) / "topology" / "thread_siblings_list");
        const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        try {
            if (in) siblings = parse_cpu_list(text);
        } catch (const std::invalid_argument &) {
        }
        if (!std::binary_search(siblings.begin(), siblings.end(), cpu)) siblings = {cpu};
        cores[siblings].push_back(cpu);
    }
    std::vector<std::vector<int>> out;
    for (auto &[siblings, own] : cores) out.push_back(std::move(own));
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

// The CPUs NVML says are local to `gpu` (found by its PCI bus id); nullopt without NVML, a bus
// id, or an answer.
std::optional<GpuLocality> gpu_locality(const GpuInfo &gpu) {
    if (!gpu.available || gpu.pci_bus_id.empty()) return std::nullopt;
    std::string why_not;
    const std::unique_ptr<NvmlProbe> probe = NvmlProbe::open(gpu.pci_bus_id, why_not);
    if (!probe) return std::nullopt;
    GpuLocality near{probe->local_cpus(), probe->numa_node(), "GPU " + std::to_string(gpu.device) + " (NVML)"};
    if (near.cpus.empty()) return std::nullopt;
    return near;
}

}  // namespace

std::vector<HostShare> plan_host_shares(const std::vector<GpuInfo> &gpus) {
    const std::vector<int> allowed = allowed_cpus();
    std::vector<GpuLocality> locality;
    for (const GpuInfo &gpu : gpus) {
        std::optional<GpuLocality> near = gpu_locality(gpu);
        if (!near) {  // all lanes or none: a rule half by node, half by count would overlap
            locality.clear();
            break;
        }
        locality.push_back(std::move(*near));
    }
    return split_host_cpus(allowed, physical_cores(allowed), locality, gpus.size());
}

HostShare whole_host_share() {
    const std::vector<int> cpus = allowed_cpus();
    return {cpus, static_cast<int>(cpus.size()), std::nullopt, 1, "ran alone: every CPU this process may use"};
}

std::string apply_host_share(const std::vector<int> &cpus, int threads) {
    if (cpus.empty() || threads < 1) return "an empty share of the host";
    CpuMask mask(*std::max_element(cpus.begin(), cpus.end()) / CPU_SETSIZE + 1);
    for (int cpu : cpus) CPU_SET_S(static_cast<size_t>(cpu), mask_bytes(mask), mask.data());
    if (sched_setaffinity(0, mask_bytes(mask), mask.data()) != 0)
        return "cannot bind to CPUs " + cpu_list_text(cpus) + ": " + std::strerror(errno);
    const std::string count = std::to_string(threads);
    for (const char *name : thread_count_variables) setenv(name, count.c_str(), 1);
    return "";
}

}  // namespace gpubench
