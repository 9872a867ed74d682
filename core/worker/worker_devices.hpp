// The GPUs of one worker: it is shown only those of its entry (visible_devices.hpp), so it
// numbers them 0, 1, ... in the entry's order; the runner's options are renumbered on the way
// in and the entry's devices on the way back, so results keep the runner's numbering.
#pragma once

#include "gpu.hpp"
#include "measure.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpubench {

class WorkerDevices {
public:
    WorkerDevices() = default;
    // `runner_indices`: the entry's devices in the runner's numbering (entry_cuda_devices; none
    // for a CPU plugin). `known`: the runner's probed GPUs (their UUIDs). `inherited`: the
    // runner's CUDA_VISIBLE_DEVICES as it started (inherited_visible_devices()). `listed`:
    // the driver's GPUs (listed_gpu_uuids), where it lists them.
    WorkerDevices(std::vector<int> runner_indices, const std::vector<DeviceIdentity> &known,
                  const std::optional<std::vector<std::string>> &inherited,
                  const std::optional<std::vector<std::string>> &listed = std::nullopt);
    const std::vector<int> &runner_indices() const { return runner_indices_; }
    const std::string &visible() const { return visible_; }  // the worker's CUDA_VISIBLE_DEVICES
    // `options` as the worker numbers devices: the entry's first is 0, its others 1, 2, ...
    MeasureOptions for_worker(MeasureOptions options) const;
    // The devices `entry` ran on, back in the runner's numbering.
    void for_runner(Measurement &entry) const;

private:
    std::vector<int> runner_indices_;
    std::string visible_;
};

}  // namespace gpubench
