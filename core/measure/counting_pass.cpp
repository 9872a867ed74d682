#include "counting_pass.hpp"

#include "hardware_counters.hpp"

namespace gpubench {

std::vector<Metric> count_one_run(Instance &instance, const gpubench_plugin &api, PhaseTimer &timer,
                                  EntryResult &result) {
    const bool on_gpu = timer.on_device();
    std::string why_not;
    const std::unique_ptr<CounterSource> source = open_counter_source(on_gpu, why_not);
    if (!source) {
        result.counters = "not read: " + why_not;
        return {};
    }
    instance.call("upload", api.upload);
    instance.call("reset", api.reset);
    source->start();
    instance.timed("run", api.run, timer);  // its time is not kept: only that its work is done
    std::vector<Metric> counted = source->stop();
    // Waited for as a sample's download is: verify() reads its result next.
    instance.timed("download", api.download, timer);
    result.counters = source->name();
    return counted;
}

}  // namespace gpubench
