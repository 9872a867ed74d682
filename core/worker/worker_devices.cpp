#include "worker_devices.hpp"

#include "visible_devices.hpp"

namespace gpubench {

WorkerDevices::WorkerDevices(std::vector<int> runner_indices, const std::vector<DeviceIdentity> &known,
                             const std::optional<std::vector<std::string>> &inherited,
                             const std::optional<std::vector<std::string>> &listed)
    : runner_indices_(std::move(runner_indices)),
      visible_(worker_visible_devices(runner_indices_, known, inherited, listed)) {}

MeasureOptions WorkerDevices::for_worker(MeasureOptions options) const {
    options.cuda_device = 0;
    options.cuda_devices.clear();
    if (runner_indices_.size() > 1)
        for (int index = 0; index < static_cast<int>(runner_indices_.size()); ++index)
            options.cuda_devices.push_back(index);
    return options;
}

void WorkerDevices::for_runner(Measurement &entry) const {
    for (int &index : entry.cuda_devices)
        if (index >= 0 && static_cast<size_t>(index) < runner_indices_.size()) index = runner_indices_[index];
}

}  // namespace gpubench
