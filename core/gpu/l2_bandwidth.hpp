// The GPU's L2 read bandwidth, all SMs together. No device attribute gives it, so it is
// measured once per GPU (a read kernel over half the L2) and kept per GPU UUID in the runner's
// cache folder (cache_files.hpp), beside the host's peaks. Working sets that fit in the L2 are
// held to it (gpu_roofline); where it is not known, no L2 ceiling applies.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpubench {

struct GpuInfo;

// The cached figure for `gpu`, else (measure = true) measured now on the current device and
// cached. 0 when neither: not cached and not measured, a measurement that failed, one no
// faster than the memory (something slowed it), or one under a tool that intercepts CUDA
// (compute-sanitizer, Nsight: CUDA_INJECTION64_PATH set), whose rates mean nothing.
double l2_bytes_per_s(const GpuInfo &gpu, bool measure);

// The measurement itself (l2_read_kernel.cu): best of a few timed read kernels over
// l2_bytes / 2 on the current device, after a warm-up that fills the L2; 0 on any failure.
double measure_l2_read_bytes_per_s(uint64_t l2_bytes, int sm_count);

// Enqueues one read of `bytes` of device memory `buffer` on `stream` (a cudaStream_t) with
// the same kernel, through the L2 alone: --cold's flush reads its buffer after writing it,
// so that the L2 is left holding clean lines and the next run() pays no write-back of the
// flush's own (an H100 wrote 20 MB of it back to HBM inside the next run).
void enqueue_l2_read(const void *buffer, size_t bytes, int sm_count, void *stream);

}  // namespace gpubench
