// Which GPUs a process sees (CUDA_VISIBLE_DEVICES): starting CUDA initialises every GPU it is
// shown (0.4 s per GPU on a 4 x H200 host), so a worker is shown only the GPUs of its entry,
// by UUID, and the runner only those of its sweep. Indices in results stay the runner's own
// (what --device and --devices name), whatever a worker calls its devices.
#pragma once

#include "gpu.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

inline constexpr const char *visible_devices_variable = "CUDA_VISIBLE_DEVICES";

// The entries of a CUDA_VISIBLE_DEVICES value, as CUDA reads them: comma-separated, blanks
// around each trimmed. nullptr (the variable unset) gives nullopt: every GPU is visible.
std::optional<std::vector<std::string>> visible_device_entries(const char *value);

// The value that shows a child process the runner's devices `indices`, in that order, without
// knowing their UUIDs: the runner's own entries of CUDA_VISIBLE_DEVICES (`inherited`) at those
// positions, or the indices themselves where it was unset (the child inherits
// CUDA_DEVICE_ORDER too). An index beyond the inherited entries shows no device.
std::string narrowed_visible_devices(const std::optional<std::vector<std::string>> &inherited,
                                     const std::vector<int> &indices);

// How many GPUs CUDA will show this process, read without starting CUDA from the driver's
// listing `proc_gpus` (/proc/driver/nvidia/gpus: a folder per GPU, its "information" naming
// its UUID). nullopt where no listing tells it, or a CUDA_VISIBLE_DEVICES entry is neither an
// index nor a whole GPU UUID of the listing (a MIG instance, a UUID prefix).
std::optional<int> visible_gpu_count(const std::filesystem::path &proc_gpus,
                                     const std::optional<std::vector<std::string>> &inherited);

// The driver's listing of this machine, or GPUBENCH_PROC_NVIDIA_GPUS where set (tests).
std::filesystem::path driver_gpu_listing();

// The listing's parent (/proc/driver/nvidia), where a fake listing has the driver's other
// files faked beside it.
std::filesystem::path driver_proc_folder();

// The kernel driver's own version, e.g. "580.159.04": the first number with a dot after
// "Module" on the NVRM line of its "version" file in `driver_folder`; "" without one.
std::string driver_release(const std::filesystem::path &driver_folder = driver_proc_folder());

// This process's CUDA_VISIBLE_DEVICES as it started, read once: before narrow_own_devices.
const std::optional<std::vector<std::string>> &inherited_visible_devices();

// Before this process starts CUDA: shows it only the runner's devices `indices`, where the
// driver's listing tells that they all exist and are fewer than every GPU (else false).
bool narrow_own_devices(const std::vector<int> &indices);
// This process's CUDA index of the runner's device `index`: itself unless narrowed.
int own_cuda_index(int index);

// The UUIDs of the GPUs the driver's listing (`proc_gpus`) names, excluded ones left out;
// nullopt without a listing.
std::optional<std::vector<std::string>> listed_gpu_uuids(const std::filesystem::path &proc_gpus);

// What a worker for an entry on the runner's devices `indices` is shown: their UUIDs, in that
// order, where `known` (the runner's probes) names them all, the inherited value names no MIG
// instance (CUDA names it MIG-..., not the GPU-... a probe reads) and the driver's listing
// (`listed`, where there is one) holds each; else narrowed_visible_devices. "" for no GPU.
std::string worker_visible_devices(const std::vector<int> &indices, const std::vector<DeviceIdentity> &known,
                                   const std::optional<std::vector<std::string>> &inherited,
                                   const std::optional<std::vector<std::string>> &listed = std::nullopt);

}  // namespace gpubench
