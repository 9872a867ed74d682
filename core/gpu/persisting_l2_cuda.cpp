// The L2 set aside for persisting accesses, and the streams' access-policy windows: state a
// plugin may set for its run() (cudaDeviceSetLimit, cudaStreamSetAttribute) that outlives its
// entry in the worker's CUDA context, shrinking the L2 of every entry after it.
#include "gpu.hpp"

#include <cuda_runtime.h>

#include <cstdio>

namespace gpubench {

namespace {

std::string mib(size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g MiB", bytes / (1024.0 * 1024.0));
    return text;
}

// The device's persisting-L2 set-aside, reset to none; "" where there was none (or the
// device has no such limit: a query that fails leaves no error behind).
std::string undo_limit(int device) {
    size_t bytes = 0;
    if (cudaSetDevice(device) != cudaSuccess ||
        cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    if (bytes == 0) return "";
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    cudaCtxResetPersistingL2Cache();
    cudaGetLastError();
    return mib(bytes) + " of device " + std::to_string(device) + "'s L2 set aside (cudaLimitPersistingL2CacheSize)";
}

std::string undo_window(cudaStream_t stream, int device) {
    cudaStreamAttrValue value{};
    if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    if (value.accessPolicyWindow.num_bytes == 0) return "";
    const size_t bytes = value.accessPolicyWindow.num_bytes;
    cudaStreamAttrValue none{};  // num_bytes 0: no window
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none);
    cudaGetLastError();
    return "an access-policy window of " + mib(bytes) + " on the runner's stream of device " + std::to_string(device);
}

}  // namespace

std::string undo_persisting_l2(const std::vector<int> &devices, const std::vector<void *> &streams) {
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    std::string left;
    for (size_t i = 0; i < devices.size(); ++i) {
        std::string found = undo_limit(devices[i]);
        if (i < streams.size() && streams[i]) {
            const std::string window = undo_window(static_cast<cudaStream_t>(streams[i]), devices[i]);
            found += (found.empty() || window.empty() ? "" : ", ") + window;
        }
        if (!found.empty()) left += (left.empty() ? "" : "; ") + found;
    }
    cudaSetDevice(current);
    return left;
}

}  // namespace gpubench
