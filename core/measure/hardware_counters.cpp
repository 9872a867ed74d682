#include "hardware_counters.hpp"

#include "elapsed.hpp"
#include "gpu_counters.hpp"
#include "host_resources.hpp"
#include "text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace gpubench {

const std::vector<CounterKind> &counter_kinds() {
    static const std::vector<CounterKind> kinds = {
        // A CPU entry's (perf_event_open), summed over the worker's threads.
        {"cycles_per_run", ""},
        {"instructions_per_run", ""},
        {"llc_misses_per_run", ""},
        // A GPU entry's, as Nsight Compute names them: dram__bytes_read.sum, dram__bytes_write.sum,
        // lts__t_bytes.sum, the flops of smsp__sass_thread_inst_executed_op_* by precision, and
        // the SM's and memory's throughput in % of their peak.
        {"dram_read_bytes_per_run", "B"},
        {"dram_write_bytes_per_run", "B"},
        {"l2_bytes_per_run", "B"},
        {"fp64_flops_per_run", ""},
        {"fp32_flops_per_run", ""},
        {"fp16_flops_per_run", ""},
        {"tensor_flops_per_run", ""},
        {"sm_throughput", "%"},
        {"memory_throughput", "%"},
    };
    return kinds;
}

namespace {

// Every source has the GPU session's interface: the fake and perf_event_open's implement it too.
using CounterSource = GpuCounterSession;
using Counted = std::vector<std::pair<std::string, double>>;

const CounterKind *kind_named(const std::string &name) {
    for (const CounterKind &kind : counter_kinds())
        if (name == kind.name) return &kind;
    return nullptr;
}

// GPUBENCH_FAKE_COUNTERS: the same values for every counted run().
class FakeCounters final : public CounterSource {
public:
    explicit FakeCounters(const std::string &path) {
        const auto refuse = [&](const std::string &why) {
            return std::runtime_error("GPUBENCH_FAKE_COUNTERS=" + path + ": " + why);
        };
        nlohmann::json values;
        try {
            std::ifstream in(path);
            if (!in) throw std::runtime_error("cannot be read");
            values = nlohmann::json::parse(in);
        } catch (const std::exception &e) {
            throw refuse(e.what());
        }
        if (!values.is_object()) throw refuse("not a JSON object of counters");
        for (const auto &[name, value] : values.items()) {
            if (!kind_named(name)) throw refuse("'" + name + "' is no counter");
            if (!value.is_number() || !std::isfinite(value.get<double>()))
                throw refuse("'" + name + "' is not a number");
            counted_.emplace_back(name, value.get<double>());
        }
    }
    std::string name() const override { return "GPUBENCH_FAKE_COUNTERS"; }
    size_t passes() const override { return 1; }
    std::string caveat() const override { return ""; }
    void start_pass() override {}
    bool end_pass() override { return true; }
    Counted read() override { return counted_; }

private:
    Counted counted_;
};

#if defined(__linux__)
// One hardware event on one thread (and the threads it starts meanwhile), user space only.
int open_event(uint64_t config, pid_t tid, int &error) {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = config;
    attr.disabled = 1;
    attr.inherit = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, 0));
    error = fd < 0 ? errno : 0;
    return fd;
}

std::string perf_refusal(int error) {
    std::string why = "perf_event_open: ";
    if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV)
        return why + "this machine exposes no hardware counters (" + std::strerror(error) +
               "; a VM often does not)";
    if (error == EACCES || error == EPERM) {
        std::ifstream paranoid("/proc/sys/kernel/perf_event_paranoid");
        int level = 0;
        return why + "not allowed (" + std::strerror(error) +
               (paranoid >> level ? "; kernel.perf_event_paranoid is " + std::to_string(level) : std::string()) +
               ")";
    }
    return why + std::strerror(error);
}

// Cycles, instructions and last-level cache misses of the calling thread and every other
// thread of the worker but the harness's own (host_resources.hpp), summed.
class PerfCounters final : public CounterSource {
public:
    static std::unique_ptr<PerfCounters> open(std::string &why_not) {
        auto counters = std::unique_ptr<PerfCounters>(new PerfCounters);
        std::vector<pid_t> threads{static_cast<pid_t>(syscall(SYS_gettid))};
        for (const ThreadTime &thread : ThreadTimes().read()) threads.push_back(thread.tid);
        static constexpr uint64_t configs[] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
                                               PERF_COUNT_HW_CACHE_MISSES};
        for (size_t k = 0; k < 3; ++k)
            for (pid_t tid : threads) {
                int error = 0;
                const int fd = open_event(configs[k], tid, error);
                if (fd >= 0) {
                    counters->events_.push_back({fd, k});
                } else if (error != ESRCH) {  // a thread that just ended counts nothing
                    why_not = perf_refusal(error);
                    return nullptr;
                }
            }
        return counters;
    }
    ~PerfCounters() override {
        for (const Event &event : events_) close(event.fd);
    }
    std::string name() const override { return "perf_event_open"; }
    size_t passes() const override { return 1; }
    std::string caveat() const override { return ""; }
    void start_pass() override {
        for (const Event &event : events_) {
            ioctl(event.fd, PERF_EVENT_IOC_RESET, 0);
            ioctl(event.fd, PERF_EVENT_IOC_ENABLE, 0);
        }
    }
    bool end_pass() override {
        for (const Event &event : events_) {
            ioctl(event.fd, PERF_EVENT_IOC_DISABLE, 0);
            uint64_t reading[3] = {0, 0, 0};  // value, time enabled, time running
            if (::read(event.fd, reading, sizeof reading) != sizeof reading)
                throw std::runtime_error("perf_event_open: a counter could not be read");
            // Multiplexed with other events: scaled to the time it was enabled.
            if (reading[2] > 0) totals_[event.kind] += double(reading[0]) * double(reading[1]) / double(reading[2]);
        }
        return true;
    }
    Counted read() override {
        Counted counted;
        for (size_t k = 0; k < 3; ++k) counted.emplace_back(counter_kinds()[k].name, totals_[k]);
        return counted;
    }

private:
    PerfCounters() = default;
    struct Event {
        int fd;
        size_t kind;  // index into counter_kinds()
    };
    std::vector<Event> events_;
    double totals_[3] = {0, 0, 0};
};
#endif

// The source for an entry: the fake where GPUBENCH_FAKE_COUNTERS names a file, else one for
// the entry's device kind; nullptr with `why_not` set where none can read them. Throws
// std::runtime_error for a fake file that cannot be read or names an unknown counter.
std::unique_ptr<CounterSource> open_counter_source(bool on_gpu, std::string &why_not) {
    if (const char *fake = std::getenv("GPUBENCH_FAKE_COUNTERS"); fake && *fake)
        return std::make_unique<FakeCounters>(fake);
    if (on_gpu) return open_gpu_counters(why_not);
#if defined(__linux__)
    return PerfCounters::open(why_not);
#else
    why_not = "perf_event_open is Linux's";
    return nullptr;
#endif
}

}  // namespace

double counting_time_limit_s(double max_time_s) { return std::clamp(30 * max_time_s, 4.0, 30.0); }

std::vector<Metric> count_one_run(Instance &instance, const gpubench_plugin &api, PhaseTimer &timer,
                                  Measurement &result, double time_limit_s) {
    if (timer.cuda_devices().size() > 1) {
        // One session counts one device: the others' share would go missing unsaid.
        result.counters = "not read: the entry runs across several GPUs, and the counters read one";
        return {};
    }
    std::string why_not;
    const std::unique_ptr<CounterSource> source = open_counter_source(timer.on_device(), why_not);
    if (!source) {
        result.counters = "not read: " + why_not;
        return {};
    }
    // Each pass counts the same call from the same inputs, in the same cache state as a sample.
    const auto began = std::chrono::steady_clock::now();
    for (size_t pass = 1;; ++pass) {
        instance.call("upload", api.upload);
        instance.call("reset", api.reset);
        if (result.timing.cache == "cold") timer.flush_cache();  // waited for: outside the counted range
        source->start_pass();
        instance.timed("run", api.run, timer);  // its time is not kept: only that its work is done
        if (source->end_pass()) break;
        const double pass_s = seconds_since(began);
        if (pass == 1 && pass_s * double(source->passes() - 1) > time_limit_s) {
            result.counters = format_text("not read: %zu passes of %.2f s would take over %.3g s (30 times "
                                          "--max-time, 4-30 s)", source->passes(), pass_s, time_limit_s);
            instance.timed("download", api.download, timer);  // verify() reads its result next
            return {};
        }
    }
    std::vector<Metric> counted;
    for (const auto &[name, value] : source->read()) {
        const CounterKind *kind = kind_named(name);
        counted.push_back({name, value, kind ? kind->unit : "", "", GPUBENCH_BETTER_UNSTATED});
    }
    // Waited for as a sample's download is: verify() reads its result next.
    instance.timed("download", api.download, timer);
    const std::string caveat = source->caveat();
    result.counters = source->name() + (caveat.empty() ? "" : "; " + caveat);
    return counted;
}

}  // namespace gpubench
