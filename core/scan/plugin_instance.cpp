#include "plugin_instance.hpp"

#include "elapsed.hpp"

#include <chrono>
#include <cstddef>
#include <vector>

namespace gpubench {
namespace {

constexpr size_t message_capacity = 1024;

// Adds the time from construction to destruction to `total`.
class Stopwatch {
public:
    explicit Stopwatch(double &total) : total_(total) {}
    ~Stopwatch() { total_ += seconds_since(began_); }

private:
    double &total_;
    std::chrono::steady_clock::time_point began_ = std::chrono::steady_clock::now();
};

// The plugin may have filled the buffer without a terminating NUL: the runner terminates it
// itself, so that nothing reads past the buffer.
void expect_ok(const char *phase, gpubench_status status, char (&message)[message_capacity]) {
    message[message_capacity - 1] = '\0';
    if (status == GPUBENCH_OK) return;
    throw PluginFailure{status, std::string(phase) + ": " +
                                    (message[0] ? message : "failed without a message")};
}

}  // namespace

Instance::Instance(const gpubench_plugin &api, const gpubench_setup_args &args, std::string label)
    : api_(api), ranges_(std::move(label)) {
    const NvtxRange range(ranges_.name("setup"));
    Stopwatch watch(plugin_time_s_);
    char message[message_capacity] = "";
    expect_ok("setup", api.create(&args, &handle_, message, sizeof message), message);
    if (!handle_) throw PluginFailure{GPUBENCH_ERROR, "setup: create returned no instance"};
}

Instance::~Instance() {
    if (!handle_) return;
    const NvtxRange range(ranges_.name("teardown"));
    api_.destroy(handle_);
}

void Instance::invoke(const char *phase, gpubench_phase_fn fn) {
    Stopwatch watch(plugin_time_s_);
    char message[message_capacity] = "";
    expect_ok(phase, fn(handle_, message, sizeof message), message);
}

bool Instance::call(const char *phase, gpubench_phase_fn fn) {
    if (!fn) return false;
    const NvtxRange range(ranges_.name(phase));
    invoke(phase, fn);
    return true;
}

double Instance::timed(const char *phase, gpubench_phase_fn fn, PhaseTimer &timer,
                       double *host_s) {
    if (!fn) return -1;
    const NvtxRange range(ranges_.name(phase));  // pushed and popped outside the timed span
    timer.start();
    const auto began = std::chrono::steady_clock::now();
    try {
        invoke(phase, fn);
    } catch (...) {
        timer.release_hold();  // nothing stays queued behind a failed call
        throw;
    }
    if (host_s) *host_s = seconds_since(began);
    Stopwatch watch(plugin_time_s_);  // waiting for the phase's device work
    return timer.stop();
}

Verification Instance::verify() {
    const NvtxRange range(ranges_.name("verify"));
    Stopwatch watch(plugin_time_s_);
    gpubench_verification raw{};
    raw.struct_size = sizeof raw;
    char message[message_capacity] = "";
    expect_ok("verify", api_.verify(handle_, &raw, message, sizeof message), message);
    raw.detail[sizeof raw.detail - 1] = '\0';
    return {raw.passed == 1, raw.max_error, raw.tolerance, raw.checked, raw.detail};
}

std::vector<Metric> Instance::metrics(decltype(gpubench_plugin::metrics) fn) {
    if (!fn) return {};
    const NvtxRange range(ranges_.name("metrics"));
    Stopwatch watch(plugin_time_s_);
    constexpr uint32_t capacity = 32;
    // The array in the layout the plugin was built with: a plugin older than 1.8 steps
    // through it by its own, smaller sizeof(gpubench_metric), which ends before `better`.
    const uint32_t stride = api_.abi_minor >= 8 ? sizeof(gpubench_metric)
                                                : offsetof(gpubench_metric, better);
    std::vector<char> buffer(size_t(capacity) * stride + sizeof(gpubench_metric), 0);
    gpubench_metric *raw = reinterpret_cast<gpubench_metric *>(buffer.data());
    for (uint32_t i = 0; i < capacity; ++i) GPUBENCH_METRIC_AT(raw, i)->struct_size = stride;
    uint32_t count = 0;
    char message[message_capacity] = "";
    expect_ok("metrics", fn(handle_, raw, capacity, &count, message, sizeof message), message);
    std::vector<Metric> out;
    // Read by the runner's own stride and sizes: a plugin may have overwritten struct_size.
    const bool has_better = stride >= offsetof(gpubench_metric, better) + sizeof(int32_t);
    for (uint32_t i = 0; i < count && i < capacity; ++i) {
        gpubench_metric &m = *reinterpret_cast<gpubench_metric *>(buffer.data() + size_t(i) * stride);
        m.name[sizeof m.name - 1] = m.unit[sizeof m.unit - 1] = m.text[sizeof m.text - 1] = 0;
        Metric metric{m.name, m.value, m.unit, m.text};
        if (has_better) {
            if (m.better < GPUBENCH_BETTER_UNSTATED || m.better > GPUBENCH_BETTER_LOWER)
                throw PluginFailure{GPUBENCH_ERROR, "metrics: " + metric.name + "'s better is " +
                                                        std::to_string(m.better) +
                                                        ", not a gpubench_better (0, 1 or 2)"};
            metric.better = static_cast<gpubench_better>(m.better);
        }
        out.push_back(std::move(metric));
    }
    return out;
}

Work query_work(const gpubench_plugin &api, uint64_t size, const std::string &params,
                int devices, int ranks) {
    gpubench_work raw{};
    raw.struct_size = sizeof raw;
    raw.devices = devices;
    raw.ranks = ranks;
    char message[message_capacity] = "";
    expect_ok("work", api.work(size, params.c_str(), &raw, message, sizeof message), message);
    return {raw.flops, raw.bytes, raw.host_bytes, raw.device_bytes, raw.items, raw.math, raw.flags, raw.launches};
}

}  // namespace gpubench
