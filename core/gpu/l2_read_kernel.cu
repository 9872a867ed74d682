// Timing all SMs reading an L2-resident buffer (l2_bandwidth.hpp).
#include "l2_bandwidth.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace gpubench {

namespace {

constexpr int passes = 64;           // over the buffer per kernel: ~0.2 ms on an H100
constexpr int repetitions = 5;       // the figure is the best of these
constexpr int threads_per_block = 512, blocks_per_sm = 4;

// Each thread reads its float4s `passes` times, cached in the L2 only (__ldcg skips the L1),
// so that the L2 serves every load. The sum is stored where no run can reach (the buffer
// holds zeros), so the loads are not dead code.
__global__ void read_l2(const float4 *__restrict__ data, size_t count, int times, float *sink) {
    float4 acc = make_float4(0, 0, 0, 0);
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (int p = 0; p < times; ++p) {
#pragma unroll 4
        for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
            const float4 v = __ldcg(data + i);
            acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
        }
    }
    if (acc.x + acc.y + acc.z + acc.w == 1.0f) *sink = acc.x;
}

}  // namespace

double measure_l2_read_bytes_per_s(uint64_t l2_bytes, int sm_count) {
    const size_t count = l2_bytes / 2 / sizeof(float4);
    if (count == 0 || sm_count <= 0) return 0;
    float4 *data = nullptr;
    float *sink = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t begin = nullptr, end = nullptr;
    double best = 0;
    if (cudaMalloc(&data, count * sizeof(float4)) == cudaSuccess &&
        cudaMalloc(&sink, sizeof(float)) == cudaSuccess &&
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess &&
        cudaEventCreate(&begin) == cudaSuccess && cudaEventCreate(&end) == cudaSuccess &&
        cudaMemsetAsync(data, 0, count * sizeof(float4), stream) == cudaSuccess) {
        const int blocks = sm_count * blocks_per_sm;
        read_l2<<<blocks, threads_per_block, 0, stream>>>(data, count, passes, sink);  // fills the L2
        for (int r = 0; r < repetitions; ++r) {
            cudaEventRecord(begin, stream);
            read_l2<<<blocks, threads_per_block, 0, stream>>>(data, count, passes, sink);
            cudaEventRecord(end, stream);
            float ms = 0;
            if (cudaEventSynchronize(end) != cudaSuccess ||
                cudaEventElapsedTime(&ms, begin, end) != cudaSuccess) {
                best = 0;
                break;
            }
            if (ms > 0) best = std::max(best, double(count) * sizeof(float4) * passes / (ms * 1e-3));
        }
    }
    cudaGetLastError();  // a failure here is "not measured", not an error to carry
    if (end) cudaEventDestroy(end);
    if (begin) cudaEventDestroy(begin);
    if (stream) cudaStreamDestroy(stream);
    cudaFree(sink);
    cudaFree(data);
    return best;
}

void enqueue_l2_read(const void *buffer, size_t bytes, int sm_count, void *stream) {
    const size_t count = bytes / sizeof(float4);
    if (count < 2 || sm_count <= 0) return;
    // The buffer's first float4 is the sink: the sum is never stored in practice anyway.
    read_l2<<<sm_count * blocks_per_sm, threads_per_block, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const float4 *>(buffer) + 1, count - 1, 1, static_cast<float *>(const_cast<void *>(buffer)));
}

}  // namespace gpubench
