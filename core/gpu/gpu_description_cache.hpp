// The runner's description of its GPUs (probe_gpu's answer), kept per machine in the cache
// folder, so that a runner whose GPUs an earlier run probed makes no CUDA call: its cuInit
// would slow that of the worker it starts ahead (0.4 s per GPU). A description is kept under
// everything that could change CUDA's answer, read from /proc and the environment; where that
// cannot be told, the GPU is probed every time and nothing is kept.
#pragma once

#include "gpu.hpp"

#include <optional>
#include <string>

namespace gpubench {

inline constexpr const char *gpu_description_cache_name = "gpu-descriptions.json";

// What CUDA's answer for this process's device `own_index` depends on.
struct GpuDescriptionKey {
    int device = 0;       // own_index
    std::string boot_id;  // a new boot starts the cache afresh: no entry of an earlier one can match
    // The entry's name: the boot id, the kernel driver's release, the UUIDs of its listing and
    // its MIG instances, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER as they are now,
    // LD_LIBRARY_PATH (which libcuda loads), this build of gpubench and the index.
    std::string text;
};

// The key, read now; nullopt where it cannot be formed (no driver listing, release or boot id,
// a CUDA_VISIBLE_DEVICES that only CUDA can read, MIG capabilities that cannot be listed).
std::optional<GpuDescriptionKey> gpu_description_key(int own_index);

// The description kept under `key` (l2_bytes_per_s from its own cache, as probe_gpu fills it);
// nullopt where the cache holds none that is whole and well-formed.
std::optional<GpuInfo> cached_gpu_description(const GpuDescriptionKey &key);

// Keeps `gpu` under `key` when it is available; an unavailable answer removes what was kept
// (it is asked again every time, so that a mended driver is seen).
void keep_gpu_description(const GpuDescriptionKey &key, const GpuInfo &gpu);

// The runner's one way to learn about its device `own_index` (its own CUDA index): the kept
// description, else probe_gpu's answer, kept for the next run. `reprobe` (--reprobe-gpus)
// asks CUDA whatever is kept. Never throws.
GpuInfo cached_or_probed_gpu(int own_index, bool reprobe = false);

}  // namespace gpubench
