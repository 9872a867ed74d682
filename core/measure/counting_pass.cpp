#include "counting_pass.hpp"

#include "hardware_counters.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace gpubench {

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
        if (result.cache == "cold") timer.flush_cache();  // waited for: outside the counted range
        source->start_pass();
        instance.timed("run", api.run, timer);  // its time is not kept: only that its work is done
        if (source->end_pass()) break;
        const double pass_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        if (pass == 1 && pass_s * double(source->passes() - 1) > time_limit_s) {
            char why[160];
            std::snprintf(why, sizeof why, "not read: %zu passes of %.2f s would take over %.3g s (30 times --max-time, 4-30 s)",
                          source->passes(), pass_s, time_limit_s);
            result.counters = why;
            instance.timed("download", api.download, timer);  // verify() reads its result next
            return {};
        }
    }
    std::vector<Metric> counted = source->read();
    // Waited for as a sample's download is: verify() reads its result next.
    instance.timed("download", api.download, timer);
    const std::string caveat = source->caveat();
    result.counters = source->name() + (caveat.empty() ? "" : "; " + caveat);
    return counted;
}

}  // namespace gpubench
