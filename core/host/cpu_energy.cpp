#include "cpu_energy.hpp"

#include "host_share.hpp"
#include "text_format.hpp"

#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace gpubench {

namespace fs = std::filesystem;

namespace {

// A sysfs file's first line, trimmed; nullopt with errno's value in `error` where it cannot be
// read (missing, a folder, root's alone).
std::optional<std::string> first_line(const fs::path &file, int &error) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = errno;
        return std::nullopt;
    }
    char text[256];
    const ssize_t got = ::read(fd, text, sizeof text - 1);
    error = got < 0 ? errno : 0;
    ::close(fd);
    if (got < 0) return std::nullopt;
    const std::string line(text, static_cast<size_t>(got));
    return trim(line.substr(0, line.find('\n')));
}

std::optional<uint64_t> number_in(const fs::path &file, int &error) {
    const std::optional<std::string> line = first_line(file, error);
    if (!line || line->empty() || line->find_first_not_of("0123456789") != std::string::npos) {
        if (line) error = EINVAL;
        return std::nullopt;
    }
    return std::stoull(*line);
}

// powercap's top-level domains are intel-rapl:N; intel-rapl:N:M are their sub-domains (core, dram).
bool top_level_domain(const std::string &name) {
    const std::string prefix = "intel-rapl:";
    return name.rfind(prefix, 0) == 0 && name.size() > prefix.size() &&
           name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

std::string packages_text(size_t packages) {
    return std::to_string(packages) + (packages == 1 ? " package" : " packages");
}

std::filesystem::path root_named(const char *variable, const char *otherwise) {
    const char *set = std::getenv(variable);
    return set && *set ? set : otherwise;
}

#if defined(__linux__)
// Why a system-wide perf event could not be opened, in words.
std::string perf_open_refusal(int error) {
    std::string why = std::strerror(error);
    if (error == EACCES || error == EPERM) {
        std::ifstream paranoid("/proc/sys/kernel/perf_event_paranoid");
        int level = 0;
        if (paranoid >> level) why += "; kernel.perf_event_paranoid is " + std::to_string(level);
        why += ", and a CPU-wide event needs 0 or less, or CAP_PERFMON";
    }
    return why;
}
#endif

}  // namespace

std::optional<PerfPowerEvent> perf_power_event(const fs::path &root, std::string &why_not) {
    const auto refuse = [&](const std::string &why) {
        why_not = "perf " + root.string() + ": " + why;
        return std::nullopt;
    };
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return refuse("no such power PMU (no RAPL events: a VM, or another CPU)");
    const fs::path events = root / "events";
    if (!fs::exists(events / "energy-pkg", ec))
        return refuse(fs::exists(events / "energy-psys", ec)
                          ? "no energy-pkg; its energy-psys is the platform (psys) domain, not the CPU packages' "
                            "(on a VM without powercap it read 0 J over 21 s of a 16-core load), so it is not used"
                          : "no events/energy-pkg");
    int error = 0;
    PerfPowerEvent event;
    const std::optional<uint64_t> type = number_in(root / "type", error);
    const std::optional<std::string> terms = first_line(events / "energy-pkg", error);
    const std::optional<std::string> scale = first_line(events / "energy-pkg.scale", error);
    const std::optional<std::string> unit = first_line(events / "energy-pkg.unit", error);
    const std::optional<std::string> cpus = first_line(root / "cpumask", error);
    const std::optional<std::string> format = first_line(root / "format" / "event", error);
    if (!type || !terms || !scale || !cpus) return refuse("type, events/energy-pkg, its .scale or cpumask unreadable");
    if (unit && *unit != "Joules") return refuse("energy-pkg counts in " + *unit + ", not Joules");
    try {
        event.type = static_cast<uint32_t>(*type);
        const size_t at = terms->find("event=");
        if (at == std::string::npos) return refuse("events/energy-pkg has no event= (\"" + *terms + "\")");
        event.config = std::stoull(terms->substr(at + 6), nullptr, 0);
        // format/event says where the event's bits go in config ("config:0-7"); at 0 where absent.
        if (format && format->rfind("config:", 0) == 0) event.config <<= std::stoul(format->substr(7));
        event.scale = std::stod(*scale);
        event.cpus = parse_cpu_list(*cpus);
    } catch (const std::exception &) {
        return refuse("events/energy-pkg, its .scale, format/event or cpumask does not parse");
    }
    if (!(event.scale > 0) || event.cpus.empty()) return refuse("energy-pkg's scale or cpumask is empty");
    return event;
}

std::unique_ptr<CpuEnergySource> CpuEnergySource::from_powercap(const fs::path &root, std::string &why_not) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
        why_not = "powercap: no " + root.string() + " (no RAPL driver, or a VM)";
        return nullptr;
    }
    std::vector<fs::path> packages;
    for (const fs::directory_entry &domain : fs::directory_iterator(root, ec)) {
        int error = 0;
        const std::optional<std::string> name = first_line(domain.path() / "name", error);
        if (top_level_domain(domain.path().filename().string()) && name && name->rfind("package-", 0) == 0)
            packages.push_back(domain.path());
    }
    std::sort(packages.begin(), packages.end());
    if (packages.empty()) {
        why_not = "powercap: no package domain in " + root.string() + " (intel-rapl:N named package-N)";
        return nullptr;
    }
    auto source = std::unique_ptr<CpuEnergySource>(new CpuEnergySource);
    for (const fs::path &package : packages) {
        int error = 0;
        const std::optional<uint64_t> range = number_in(package / "max_energy_range_uj", error);
        if (range && number_in(package / "energy_uj", error)) {
            source->counters_.push_back({package / "energy_uj", -1, *range, 1e-6});
            continue;
        }
        why_not = "powercap: " + (package / (range ? "energy_uj" : "max_energy_range_uj")).string() +
                  " is not readable (" + std::strerror(error) +
                  (error == EACCES || error == EPERM ? "; energy_uj is root's alone since Linux 5.10)" : ")");
        return nullptr;
    }
    source->name_ = "powercap intel-rapl: " + packages_text(packages.size());
    return source;
}

std::unique_ptr<CpuEnergySource> CpuEnergySource::from_perf(const fs::path &root, std::string &why_not) {
    const std::optional<PerfPowerEvent> event = perf_power_event(root, why_not);
    if (!event) return nullptr;
#if defined(__linux__)
    auto source = std::unique_ptr<CpuEnergySource>(new CpuEnergySource);
    for (int cpu : event->cpus) {
        perf_event_attr attr{};
        attr.type = event->type;
        attr.size = sizeof attr;
        attr.config = event->config;
        const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
        if (fd < 0) {
            why_not = "perf power/energy-pkg: perf_event_open on CPU " + std::to_string(cpu) + ": " +
                      perf_open_refusal(errno);
            return nullptr;
        }
        source->counters_.push_back({{}, fd, 0, event->scale});
    }
    source->name_ = "perf power/energy-pkg: " + packages_text(event->cpus.size());
    return source;
#else
    why_not = "perf power/energy-pkg: perf_event_open is Linux's";
    return nullptr;
#endif
}

std::unique_ptr<CpuEnergySource> CpuEnergySource::discover(const fs::path &powercap_root,
                                                           const fs::path &perf_power_root, std::string &why_not) {
    std::string powercap_why, perf_why;
    if (auto source = from_powercap(powercap_root, powercap_why)) return source;
    if (auto source = from_perf(perf_power_root, perf_why)) return source;
    why_not = "no CPU package energy counter: " + powercap_why + "; " + perf_why;
    return nullptr;
}

CpuEnergySource::~CpuEnergySource() {
    for (const Counter &counter : counters_)
        if (counter.fd >= 0) ::close(counter.fd);
}

std::optional<std::vector<uint64_t>> CpuEnergySource::read() const {
    std::vector<uint64_t> values;
    for (const Counter &counter : counters_) {
        uint64_t value = 0;
        int error = 0;
        if (counter.fd >= 0) {
            if (::read(counter.fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) return std::nullopt;
        } else if (const std::optional<uint64_t> read = number_in(counter.file, error)) {
            value = *read;
        } else {
            return std::nullopt;
        }
        values.push_back(value);
    }
    return values;
}

double CpuEnergySource::joules_between(const std::vector<uint64_t> &before, const std::vector<uint64_t> &after) const {
    double joules = 0;
    for (size_t i = 0; i < counters_.size() && i < before.size() && i < after.size(); ++i) {
        const Counter &counter = counters_[i];
        // A counter that wrapped went past `range` back to 0 (once: it takes minutes at the least).
        const uint64_t counted =
            after[i] >= before[i] || counter.range == 0 ? after[i] - before[i] : counter.range - before[i] + after[i];
        joules += static_cast<double>(counted) * counter.scale;
    }
    return joules;
}

fs::path powercap_root() { return root_named("GPUBENCH_POWERCAP_ROOT", "/sys/class/powercap"); }

fs::path perf_power_root() { return root_named("GPUBENCH_PERF_POWER_ROOT", "/sys/bus/event_source/devices/power"); }

const CpuEnergySource *host_cpu_energy(std::string *why_not) {
    static std::string why;
    static const std::unique_ptr<CpuEnergySource> source =
        CpuEnergySource::discover(powercap_root(), perf_power_root(), why);
    if (why_not) *why_not = why;
    return source.get();
}

}  // namespace gpubench
