#include "stream_hold.hpp"

#include "thread_name.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <stdexcept>

namespace gpubench {
namespace {

// One thread spinning until the flag reaches its generation (cyclic >=), napping between
// reads. As PTX, loaded through the runtime (cudaLibraryLoadData JIT-compiles it for the
// device), so that the core needs no CUDA compiler.
constexpr char hold_kernel_ptx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry gpubench_stream_hold(.param .u64 flag_address, .param .u32 generation)
{
    .reg .pred %waiting;
    .reg .b32 %flag, %wanted, %ahead;
    .reg .b64 %address;
    ld.param.u64 %address, [flag_address];
    ld.param.u32 %wanted, [generation];
SPIN:
    ld.volatile.u32 %flag, [%address];
    sub.s32 %ahead, %flag, %wanted;
    setp.lt.s32 %waiting, %ahead, 0;
    @!%waiting bra DONE;
    nanosleep.u32 500;
    bra SPIN;
DONE:
    ret;
}
)";

}  // namespace

StreamHold::StreamHold(void *stream) : stream_(stream) {
    // What is made is kept in the members at once: the destructor frees it, whatever failed.
    cudaLibrary_t library = nullptr;
    cudaKernel_t kernel = nullptr;
    const cudaError_t loaded =
        cudaLibraryLoadData(&library, hold_kernel_ptx, nullptr, nullptr, 0, nullptr, nullptr, 0);
    library_ = library;
    if (loaded != cudaSuccess ||
        cudaLibraryGetKernel(&kernel, library, "gpubench_stream_hold") != cudaSuccess) {
        why_not_ = std::string("the hold kernel did not load (") +
                   cudaGetErrorString(cudaGetLastError()) + ")";
        return;
    }
    void *host = nullptr, *device = nullptr;
    if (cudaHostAlloc(&host, sizeof(uint32_t), cudaHostAllocMapped) != cudaSuccess) {
        cudaGetLastError();
        why_not_ = "no mapped host memory for the hold's flag";
        return;
    }
    flag_ = static_cast<volatile uint32_t *>(host);
    *flag_ = 0;
    if (cudaHostGetDevicePointer(&device, host, 0) != cudaSuccess) {
        cudaGetLastError();
        why_not_ = "the hold's flag has no device address";
        return;
    }
    device_flag_ = reinterpret_cast<unsigned long long>(device);
    kernel_ = kernel;
    watchdog_ = std::thread([this] {
        name_this_thread("hold-watch");
        watch();
    });
}

StreamHold::~StreamHold() {
    if (watchdog_.joinable()) {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_one();
        watchdog_.join();
    }
    if (flag_) {
        set_flag(generation_);  // nothing may stay held behind a destroyed hold
        cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
        cudaFreeHost(const_cast<uint32_t *>(flag_));
    }
    if (library_) cudaLibraryUnload(static_cast<cudaLibrary_t>(library_));
    cudaGetLastError();
}

void StreamHold::set_flag(uint32_t value) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *flag_ = value;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

void StreamHold::hold(double timeout_s) {
    if (!available()) throw std::runtime_error("the stream cannot be held: " + why_not_);
    std::lock_guard lock(mutex_);
    uint32_t generation = generation_ + 1;
    void *arguments[] = {&device_flag_, &generation};
    const cudaError_t status = cudaLaunchKernel(kernel_, dim3(1), dim3(1), arguments, 0,
                                                static_cast<cudaStream_t>(stream_));
    if (status != cudaSuccess) {
        cudaGetLastError();
        kernel_ = nullptr;
        why_not_ = std::string("the hold kernel did not launch (") + cudaGetErrorString(status) + ")";
        throw std::runtime_error("the stream cannot be held: " + why_not_);
    }
    generation_ = generation;
    armed_ = true;
    fired_ = false;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(timeout_s));
    changed_.notify_one();
}

bool StreamHold::release() {
    std::lock_guard lock(mutex_);
    if (!armed_) return !fired_;
    armed_ = false;
    set_flag(generation_);
    changed_.notify_one();
    return true;
}

void StreamHold::watch() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (!armed_) {
            changed_.wait(lock);
            continue;
        }
        if (changed_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ &&
            std::chrono::steady_clock::now() >= deadline_) {
            set_flag(generation_);
            armed_ = false;
            fired_ = true;
        }
    }
}

}  // namespace gpubench
