// Asynchronous global -> shared copies (cp.async, sm_80 and later): a piece goes straight
// into shared memory without passing through registers, so a kernel can keep the next tiles
// in flight while it computes on the current one. Include from .cu files only.
#pragma once

namespace plugin_common {

// Copies Bytes (4, 8 or 16) from global to shared memory without passing through registers.
// When !valid, writes zeros and reads nothing (src must still be a valid address).
template <int Bytes>
__device__ __forceinline__ void copy_async(void *dst, const void *src, bool valid = true) {
    const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    const int src_bytes = valid ? Bytes : 0;
    if constexpr (Bytes == 16)  // .cg: bypass L1; the piece is read from shared memory after
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src),
                     "r"(src_bytes) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(to), "l"(src),
                     "n"(Bytes), "r"(src_bytes) : "memory");
}
// Closes this thread's copies issued since the last commit into one group.
__device__ __forceinline__ void commit_copies() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int Pending>  // waits until at most Pending groups of this thread are in flight
__device__ __forceinline__ void wait_copies() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

}  // namespace plugin_common
