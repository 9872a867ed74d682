// The GPU's L2 read bandwidth, all SMs together, which working sets that fit in the L2 are held
// to: no attribute gives it, so it is measured once per GPU and kept in the cache folder.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpubench {

struct GpuInfo;

// The cached figure for `gpu`, else (measure = true) measured now on the current device and
// cached; 0 when neither, when no faster than the memory (something slowed it), or under a
// tool that intercepts CUDA (CUDA_INJECTION64_PATH set), whose rates mean nothing.
double l2_bytes_per_s(const GpuInfo &gpu, bool measure);

// The best of a few timed read kernels over l2_bytes / 2 on the current device; 0 on failure.
double measure_l2_read_bytes_per_s(uint64_t l2_bytes, int sm_count);

// Enqueues one read of `bytes` of device memory `buffer` on `stream` (a cudaStream_t) with
// that kernel: --cold's flush reads its buffer after writing it, so that the next run() pays no
// write-back of the flush's own (an H100 wrote 20 MB of it back inside the next run).
void enqueue_l2_read(const void *buffer, size_t bytes, int sm_count, void *stream);

}  // namespace gpubench
