// The L2 set aside for persisting accesses, and the streams' access-policy windows: state a
// plugin may set for its run() that outlives its entry in the worker's CUDA context, changing
// the L2 of every entry after it. A driver may set a default: what counts is the change.
#include "gpu.hpp"

#include "text_format.hpp"

#include <cuda_runtime.h>

namespace gpubench {

namespace {

std::string mib(size_t bytes) { return format_text("%.3g MiB", bytes / (1024.0 * 1024.0)); }

// A query that fails (a device without the limit, a lost context) reads as 0, no error left.
size_t set_aside(int device) {
    size_t bytes = 0;
    if (cudaSetDevice(device) != cudaSuccess || cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize) != cudaSuccess)
        bytes = 0;
    cudaGetLastError();
    return bytes;
}

cudaStreamAttrValue window(void *stream) {
    cudaStreamAttrValue value{};
    if (cudaStreamGetAttribute(static_cast<cudaStream_t>(stream), cudaStreamAttributeAccessPolicyWindow, &value) !=
        cudaSuccess)
        value = {};
    cudaGetLastError();
    return value;
}

// The device's set-aside and its stream's window back to `before`; what differed, or "".
std::string restore(const PersistingL2 &before, int device, void *stream) {
    std::string left;
    if (const size_t now = set_aside(device); now != before.set_aside_bytes) {
        left = mib(now) + " of device " + std::to_string(device) + "'s L2 set aside, " + mib(before.set_aside_bytes) +
               " before the entry (cudaLimitPersistingL2CacheSize)";
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, before.set_aside_bytes);
        cudaCtxResetPersistingL2Cache();
    }
    if (stream)
        if (const cudaStreamAttrValue now = window(stream); now.accessPolicyWindow.num_bytes != before.window_bytes) {
            left += (left.empty() ? "" : ", ") + std::string("an access-policy window of ") +
                    mib(now.accessPolicyWindow.num_bytes) + " on the runner's stream of device " + std::to_string(device);
            cudaStreamAttrValue none{};  // the runner's streams are made with none
            cudaStreamSetAttribute(static_cast<cudaStream_t>(stream), cudaStreamAttributeAccessPolicyWindow, &none);
        }
    cudaGetLastError();
    return left;
}

}  // namespace

std::vector<PersistingL2> read_persisting_l2(const std::vector<int> &devices, const std::vector<void *> &streams) {
    int current = 0;
    const bool known = cudaGetDevice(&current) == cudaSuccess;
    std::vector<PersistingL2> state;
    for (size_t i = 0; i < devices.size(); ++i)
        state.push_back({set_aside(devices[i]),
                         i < streams.size() && streams[i] ? window(streams[i]).accessPolicyWindow.num_bytes : 0});
    if (known) cudaSetDevice(current);
    cudaGetLastError();
    return state;
}

std::string restore_persisting_l2(const std::vector<PersistingL2> &before, const std::vector<int> &devices,
                                  const std::vector<void *> &streams) {
    if (before.empty()) return "";  // nothing was read: no CUDA call for a host clock
    int current = 0;
    const bool known = cudaGetDevice(&current) == cudaSuccess;
    std::string left;
    for (size_t i = 0; i < devices.size() && i < before.size(); ++i)
        if (std::string found = restore(before[i], devices[i], i < streams.size() ? streams[i] : nullptr);
            !found.empty())
            left += (left.empty() ? "" : "; ") + found;
    if (known) cudaSetDevice(current);
    cudaGetLastError();
    return left;
}

}  // namespace gpubench
