// The runner's description of its GPUs (probe_gpu's answer), kept per machine in the cache
// folder (cache_files.hpp: gpu-descriptions.json), so that a runner on a machine whose GPUs an
// earlier run probed makes no CUDA call at all: its cuInit would run beside that of the worker
// it starts ahead (0.4 s per GPU) and slow it in the driver. A description is kept under
// everything that could change CUDA's answer, read from /proc and the environment without
// starting CUDA; where that cannot be told, the GPU is probed every time and nothing is kept.
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
    // The entry's name: the boot id (/proc/sys/kernel/random/boot_id, or the file that
    // GPUBENCH_PROC_BOOT_ID names), the kernel driver's release and the UUIDs of its listing
    // (visible_devices.hpp), the MIG instances under its capabilities/gpu*/mig, the
    // process's CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER as they are now (after
    // narrow_own_devices), LD_LIBRARY_PATH (which libcuda and libcudart load), this build
    // of gpubench (its version, revision and CUDA runtime), and the index.
    std::string text;
};

// The key, read now; nullopt where it cannot be formed: no driver listing, no driver release,
// no boot id, a CUDA_VISIBLE_DEVICES that only CUDA can read (a MIG instance, a UUID prefix:
// visible_gpu_count), MIG capabilities that cannot be listed.
std::optional<GpuDescriptionKey> gpu_description_key(int own_index);

// The description kept under `key`, l2_bytes_per_s filled from its own cache as probe_gpu
// fills it; nullopt where the cache holds none that is whole and well-formed (a damaged, foreign
// or over-long file is as if absent).
std::optional<GpuInfo> cached_gpu_description(const GpuDescriptionKey &key);

// Keeps `gpu` under `key` when it is available. An unavailable answer is never kept (it is
// asked again every time, so that a mended driver is seen) and removes what was kept under
// `key`. A cache that cannot be written is skipped.
void keep_gpu_description(const GpuDescriptionKey &key, const GpuInfo &gpu);

// The one way the runner learns about its device `own_index` (its own CUDA index): the kept
// description, else probe_gpu's answer, kept for the next run. `reprobe` (--reprobe-gpus)
// asks CUDA whatever is kept, and keeps the answer. Never throws.
GpuInfo cached_or_probed_gpu(int own_index, bool reprobe = false);

}  // namespace gpubench
