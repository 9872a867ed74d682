// CUDA helpers for plugins written with gpubench/plugin.hpp: checked calls that throw the
// right gpubench exception, and RAII buffers. Header-only; include from .cu files.
#pragma once

#include <gpubench/plugin.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace gpubench::cuda {

// Throws OutOfMemory for allocation failures (so the runner reports "out of memory at this
// size"), Error(DEVICE_ERROR) for everything else.
inline void check(cudaError_t status, const char *what) {
    if (status == cudaSuccess) return;
    std::string message = std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                          cudaGetErrorString(status) + ")";
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // allocation failures are not sticky; clear them
        throw OutOfMemory(message);
    }
    throw Error(GPUBENCH_DEVICE_ERROR, message);
}

// After a kernel launch: reports launch-configuration errors without synchronising.
inline void check_launch(const char *kernel) { check(cudaGetLastError(), kernel); }

inline cudaStream_t stream_of(const Setup &setup) {
    return static_cast<cudaStream_t>(setup.cuda_stream);
}

// Makes `device` current for the scope and the previous device current again after it: for
// plugins across several GPUs (ABI 1.5), whose allocations and launches go to each device in
// turn, while the runner expects setup.cuda_devices[0] current between calls.
class CurrentDevice {
public:
    explicit CurrentDevice(int device) {
        check(cudaGetDevice(&previous_), "cudaGetDevice");
        check(cudaSetDevice(device), "cudaSetDevice");
    }
    ~CurrentDevice() { cudaSetDevice(previous_); }
    CurrentDevice(const CurrentDevice &) = delete;
    CurrentDevice &operator=(const CurrentDevice &) = delete;

private:
    int previous_ = 0;
};

// Device memory of `count` elements of T.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count) check(cudaMalloc(reinterpret_cast<void **>(&data_), count * sizeof(T)),
                         "cudaMalloc");
    }
    ~DeviceBuffer() { if (data_) cudaFree(data_); }
    DeviceBuffer(DeviceBuffer &&o) noexcept : data_(o.data_), count_(o.count_) {
        o.data_ = nullptr;
        o.count_ = 0;
    }
    DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;

    T *data() const { return data_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

private:
    T *data_ = nullptr;
    size_t count_ = 0;
};

// Page-locked host memory: transfers from it are asynchronous and run at full link speed, so
// every CUDA plugin uses it for the data it uploads and downloads (equal terms).
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(size_t count) : count_(count) {
        if (count) check(cudaMallocHost(reinterpret_cast<void **>(&data_), count * sizeof(T)),
                         "cudaMallocHost");
    }
    ~PinnedBuffer() { if (data_) cudaFreeHost(data_); }
    PinnedBuffer(PinnedBuffer &&o) noexcept : data_(o.data_), count_(o.count_) {
        o.data_ = nullptr;
        o.count_ = 0;
    }
    PinnedBuffer &operator=(PinnedBuffer &&o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    PinnedBuffer(const PinnedBuffer &) = delete;
    PinnedBuffer &operator=(const PinnedBuffer &) = delete;

    T *data() const { return data_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }
    T &operator[](size_t i) const { return data_[i]; }

private:
    T *data_ = nullptr;
    size_t count_ = 0;
};

// Enqueues a host -> device copy of a whole buffer on `stream`.
template <class T>
void copy_async(DeviceBuffer<T> &to, const PinnedBuffer<T> &from, cudaStream_t stream) {
    check(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(host to device)");
}

// Enqueues a device -> host copy of a whole buffer on `stream`.
template <class T>
void copy_async(PinnedBuffer<T> &to, const DeviceBuffer<T> &from, cudaStream_t stream) {
    check(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync(device to host)");
}

}  // namespace gpubench::cuda

#define GPUBENCH_CUDA_CHECK(call) ::gpubench::cuda::check((call), #call)
