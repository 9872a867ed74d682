// The CPU packages' energy, read through the kernel's RAPL interfaces: powercap's package
// domains (/sys/class/powercap/intel-rapl:N, named package-N; AMD hosts expose theirs under the
// same names), else perf's power PMU (power/energy-pkg, one counter per package). A source that
// is missing or unreadable is a one-line reason, never an error. GPUBENCH_POWERCAP_ROOT and
// GPUBENCH_PERF_POWER_ROOT name other roots: tests point them at made-up trees.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// The power PMU's package event as sysfs describes it: what perf_event_open takes.
struct PerfPowerEvent {
    uint32_t type = 0;      // <root>/type
    uint64_t config = 0;    // events/energy-pkg's "event=", placed where format/event says
    double scale = 0;       // joules per count (events/energy-pkg.scale)
    std::vector<int> cpus;  // one CPU of each package (<root>/cpumask)
};
// The energy-pkg event of the power PMU whose folder is `root`, or nullopt with why not: no
// such PMU, no energy-pkg (energy-psys is the platform's domain, not the packages'), a unit
// other than joules, or a file that does not parse.
std::optional<PerfPowerEvent> perf_power_event(const std::filesystem::path &root, std::string &why_not);

class CpuEnergySource {
public:
    // The first usable source: powercap's packages under `powercap_root`, else the power PMU at
    // `perf_power_root`; nullptr and why_not, naming what was looked for and why each was
    // unusable, when neither is.
    static std::unique_ptr<CpuEnergySource> discover(const std::filesystem::path &powercap_root,
                                                     const std::filesystem::path &perf_power_root,
                                                     std::string &why_not);
    ~CpuEnergySource();
    CpuEnergySource(const CpuEnergySource &) = delete;
    CpuEnergySource &operator=(const CpuEnergySource &) = delete;
    // "powercap intel-rapl: 2 packages", "perf power/energy-pkg: 2 packages"
    const std::string &name() const { return name_; }
    // Each package's counter now, in its own units; nullopt when one could not be read.
    std::optional<std::vector<uint64_t>> read() const;
    // The joules of all packages between two readings, each counter's wrap-around undone.
    double joules_between(const std::vector<uint64_t> &before, const std::vector<uint64_t> &after) const;

private:
    struct Counter {
        std::filesystem::path file;  // powercap's energy_uj; empty for a perf event
        int fd = -1;                 // the perf event's
        uint64_t range = 0;          // where it wraps (max_energy_range_uj); 0: at 2^64
        double scale = 0;            // joules per count
    };
    CpuEnergySource() = default;
    static std::unique_ptr<CpuEnergySource> from_powercap(const std::filesystem::path &root, std::string &why_not);
    static std::unique_ptr<CpuEnergySource> from_perf(const std::filesystem::path &root, std::string &why_not);
    std::string name_;
    std::vector<Counter> counters_;
};

// GPUBENCH_POWERCAP_ROOT, else /sys/class/powercap.
std::filesystem::path powercap_root();
// GPUBENCH_PERF_POWER_ROOT, else /sys/bus/event_source/devices/power.
std::filesystem::path perf_power_root();
// This process's source, discovered once under those roots: nullptr where there is none, and
// why in `why_not`.
const CpuEnergySource *host_cpu_energy(std::string *why_not = nullptr);

}  // namespace gpubench
