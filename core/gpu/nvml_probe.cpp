#include "nvml_probe.hpp"

#include <dlfcn.h>

#include <initializer_list>
#include <type_traits>

namespace gpubench {
namespace {

// NVML's few entry points used, declared here (its C ABI is stable, and its header is not in
// every CUDA toolkit). Return value 0 is NVML_SUCCESS.
using nvml_device = void *;
struct NvmlUtilization {
    unsigned gpu, memory;
};
struct NvmlMemory {
    unsigned long long total, free, used;
};
constexpr int nvml_clock_sm = 1, nvml_clock_mem = 2, nvml_temperature_gpu = 0;
// The links, with nvml.h's values: NVML_NVLINK_MAX_LINKS, NVML_FEATURE_ENABLED, the field
// NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON and NVML_VALUE_TYPE_UNSIGNED_INT and _LONG_LONG.
constexpr unsigned nvml_nvlink_max_links = 18, nvml_feature_enabled = 1;
constexpr unsigned nvml_fi_nvlink_speed_mbps_common = 90;
constexpr int nvml_value_unsigned_int = 1, nvml_value_unsigned_long_long = 3;
struct NvmlFieldValue {
    unsigned field_id, scope_id;
    long long timestamp, latency_us;
    int value_type;  // nvmlValueType_t
    int status;      // nvmlReturn_t
    union {
        unsigned ui;
        unsigned long long ull;
    } value;  // nvmlValue_t, of which these two are read
};

// Each entry point: its field, its function type and its names, newest first. processes is
// counted, never listed: called with no room for the list, whose struct differs by version.
// cpu_affinity: the device's ideal CPUs, a bit mask in `words` unsigned longs. numa_node: newer
// drivers only.
#define GPUBENCH_NVML_ENTRY_POINTS(X)                                                                       \
    X(init, int(), "nvmlInit_v2")                                                                           \
    X(handle_by_pci_bus_id, int(const char *, nvml_device *), "nvmlDeviceGetHandleByPciBusId_v2")           \
    X(clock, int(nvml_device, int, unsigned *), "nvmlDeviceGetClockInfo")                                   \
    X(temperature, int(nvml_device, int, unsigned *), "nvmlDeviceGetTemperature")                           \
    X(power, int(nvml_device, unsigned *), "nvmlDeviceGetPowerUsage")                                       \
    X(energy, int(nvml_device, unsigned long long *), "nvmlDeviceGetTotalEnergyConsumption")                \
    X(throttle_reasons, int(nvml_device, unsigned long long *), "nvmlDeviceGetCurrentClocksEventReasons",   \
      "nvmlDeviceGetCurrentClocksThrottleReasons")                                                          \
    X(utilization, int(nvml_device, NvmlUtilization *), "nvmlDeviceGetUtilizationRates")                    \
    X(memory, int(nvml_device, NvmlMemory *), "nvmlDeviceGetMemoryInfo")                                    \
    X(processes, int(nvml_device, unsigned *, void *), "nvmlDeviceGetComputeRunningProcesses_v3",           \
      "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses")                    \
    X(cpu_affinity, int(nvml_device, unsigned words, unsigned long *mask), "nvmlDeviceGetCpuAffinity")      \
    X(numa_node, int(nvml_device, unsigned *), "nvmlDeviceGetNumaNodeId")                                   \
    X(nvlink_state, int(nvml_device, unsigned link, unsigned *active), "nvmlDeviceGetNvLinkState")          \
    X(nvlink_version, int(nvml_device, unsigned link, unsigned *), "nvmlDeviceGetNvLinkVersion")            \
    X(field_values, int(nvml_device, int count, NvmlFieldValue *), "nvmlDeviceGetFieldValues")              \
    X(pcie_max_generation, int(nvml_device, unsigned *), "nvmlDeviceGetMaxPcieLinkGeneration")              \
    X(pcie_max_width, int(nvml_device, unsigned *), "nvmlDeviceGetMaxPcieLinkWidth")                        \
    X(pcie_generation, int(nvml_device, unsigned *), "nvmlDeviceGetCurrPcieLinkGeneration")                 \
    X(pcie_width, int(nvml_device, unsigned *), "nvmlDeviceGetCurrPcieLinkWidth")
#define GPUBENCH_NVML_FIELD(field, type, ...) std::add_pointer_t<type> field = nullptr;
#define GPUBENCH_NVML_BIND(field, type, ...) bind(api.field, {__VA_ARGS__});

struct Nvml {
    GPUBENCH_NVML_ENTRY_POINTS(GPUBENCH_NVML_FIELD)
};

// Loaded and initialised once per process; nullptr (and why) when that failed.
const Nvml *nvml(std::string *why_not = nullptr) {
    static std::string failure;
    static const Nvml *loaded = [] () -> const Nvml * {
        void *library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            failure = "libnvidia-ml.so.1 not found (" + std::string(dlerror()) + ")";
            return nullptr;
        }
        static Nvml api;
        // An optional reading the driver lacks stays null and reads as n/a.
        const auto bind = [&](auto &function, std::initializer_list<const char *> names) {
            using Function = std::remove_reference_t<decltype(function)>;
            for (const char *name : names)
                if (!function) function = reinterpret_cast<Function>(dlsym(library, name));
        };
        GPUBENCH_NVML_ENTRY_POINTS(GPUBENCH_NVML_BIND)
        if (!api.init || !api.handle_by_pci_bus_id) {
            failure = "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
            return nullptr;
        }
        if (int status = api.init(); status != 0) {
            failure = "nvmlInit_v2 failed (NVML status " + std::to_string(status) + ")";
            return nullptr;
        }
        return &api;
    }();
    if (why_not) *why_not = failure;
    return loaded;
}

// NVML's clock event reasons that mean the GPU is held back by power or heat.
constexpr uint64_t sw_power_cap = 0x4, hw_slowdown = 0x8, sw_thermal = 0x20, hw_thermal = 0x40,
                   hw_power_brake = 0x80;
constexpr uint64_t slowdowns = sw_power_cap | hw_slowdown | sw_thermal | hw_thermal | hw_power_brake;

}  // namespace

bool GpuState::throttled() const { return throttle_reasons && (*throttle_reasons & slowdowns); }

std::unique_ptr<NvmlProbe> NvmlProbe::open(const std::string &pci_bus_id, std::string &why_not) {
    const Nvml *api = nvml(&why_not);
    if (!api) return nullptr;
    nvml_device device = nullptr;
    if (int status = api->handle_by_pci_bus_id(pci_bus_id.c_str(), &device); status != 0) {
        why_not = "NVML does not know the device at " + pci_bus_id + " (status " +
                  std::to_string(status) + ")";
        return nullptr;
    }
    return std::unique_ptr<NvmlProbe>(new NvmlProbe(device));
}

GpuState NvmlProbe::read() const {
    const Nvml &api = *nvml();
    GpuState s;
    unsigned value = 0;
    if (api.clock && api.clock(device_, nvml_clock_sm, &value) == 0) s.sm_clock_mhz = value;
    if (api.clock && api.clock(device_, nvml_clock_mem, &value) == 0) s.memory_clock_mhz = value;
    if (api.temperature && api.temperature(device_, nvml_temperature_gpu, &value) == 0)
        s.temperature_c = value;
    s.power_w = power_w();
    s.energy_mj = energy_mj();
    unsigned long long big = 0;
    if (api.throttle_reasons && api.throttle_reasons(device_, &big) == 0) s.throttle_reasons = big;
    NvmlUtilization utilization{};
    if (api.utilization && api.utilization(device_, &utilization) == 0)
        s.utilization_percent = utilization.gpu;
    NvmlMemory memory{};
    if (api.memory && api.memory(device_, &memory) == 0) s.memory_used_bytes = memory.used;
    s.compute_processes = compute_processes();
    return s;
}

std::optional<uint64_t> NvmlProbe::energy_mj() const {
    const Nvml &api = *nvml();
    unsigned long long millijoules = 0;
    if (!api.energy || api.energy(device_, &millijoules) != 0) return std::nullopt;
    return millijoules;
}

std::optional<double> NvmlProbe::power_w() const {
    const Nvml &api = *nvml();
    unsigned milliwatts = 0;
    if (!api.power || api.power(device_, &milliwatts) != 0) return std::nullopt;
    return milliwatts / 1000.0;
}

std::optional<unsigned> NvmlProbe::compute_processes() const {
    const Nvml &api = *nvml();
    constexpr int nvml_success = 0, nvml_insufficient_size = 7;
    unsigned count = 0;
    if (!api.processes) return std::nullopt;
    const int status = api.processes(device_, &count, nullptr);
    if (status != nvml_success && status != nvml_insufficient_size) return std::nullopt;
    return count;
}

std::vector<int> NvmlProbe::local_cpus() const {
    const Nvml &api = *nvml();
    constexpr unsigned words = 64;  // 4096 CPUs
    constexpr unsigned bits = 8 * sizeof(unsigned long);
    unsigned long mask[words] = {};
    std::vector<int> cpus;
    if (!api.cpu_affinity || api.cpu_affinity(device_, words, mask) != 0) return cpus;
    for (unsigned word = 0; word < words; ++word)
        for (unsigned bit = 0; bit < bits; ++bit)
            if (mask[word] >> bit & 1UL) cpus.push_back(static_cast<int>(word * bits + bit));
    return cpus;
}

std::optional<int> NvmlProbe::numa_node() const {
    const Nvml &api = *nvml();
    unsigned node = 0;
    if (!api.numa_node || api.numa_node(device_, &node) != 0 || node > 1u << 16) return std::nullopt;
    return static_cast<int>(node);
}

LinkAnswers NvmlProbe::link_answers() const {
    const Nvml &api = *nvml();
    LinkAnswers a;
    const auto ask = [&](auto function, std::optional<unsigned> &answer) {
        unsigned value = 0;
        if (function && function(device_, &value) == 0) answer = value;
    };
    for (unsigned link = 0; api.nvlink_state && link < nvml_nvlink_max_links; ++link) {
        unsigned active = 0;
        if (api.nvlink_state(device_, link, &active) != 0) continue;  // no such link
        ++a.nvlinks_answered;
        if (active != nvml_feature_enabled) continue;
        if (++a.nvlinks_active == 1 && api.nvlink_version) {
            unsigned version = 0;
            if (api.nvlink_version(device_, link, &version) == 0) a.nvlink_version = version;
        }
    }
    NvmlFieldValue speed{};
    speed.field_id = nvml_fi_nvlink_speed_mbps_common;
    if (a.nvlinks_active > 0 && api.field_values && api.field_values(device_, 1, &speed) == 0 &&
        speed.status == 0) {
        if (speed.value_type == nvml_value_unsigned_int) a.nvlink_speed_mbps = speed.value.ui;
        if (speed.value_type == nvml_value_unsigned_long_long) a.nvlink_speed_mbps = unsigned(speed.value.ull);
    }
    ask(api.pcie_max_generation, a.pcie_generation);
    ask(api.pcie_max_width, a.pcie_width);
    ask(api.pcie_generation, a.pcie_current_generation);
    ask(api.pcie_width, a.pcie_current_width);
    return a;
}

LinkAnswers link_answers_of(const std::string &pci_bus_id) {
    std::string why_not;
    const std::unique_ptr<NvmlProbe> probe = NvmlProbe::open(pci_bus_id, why_not);
    if (!probe) return LinkAnswers{"NVML: " + why_not};
    return probe->link_answers();
}

}  // namespace gpubench
