// Hand-written CUDA training, two kernels per step and no atomics. A step is bound by
// reading X (n x 785 floats, 188 MB at 60000 samples: 63 us at 3 TB/s), so X is read from
// DRAM once per step, and with enough bytes in flight to reach that rate:
//
// 1. fused_gradients: one 256-thread block per SM, each taking whole sample chunks in turn.
//    A chunk streams through shared memory in tiles of 8 samples, 4 tiles in flight
//    (cp.async), so the loads never wait for the arithmetic. Thread t owns features t,
//    t + 256, t + 512 (and t + 768 for t < 17), holding theta's 10 classes of them in
//    registers for the whole step. Per tile it adds its features' share of the 8 x 10
//    logits, the warp halves the 80 partial sums in a butterfly (80 shuffles, not 400), the
//    8 warps' sums give the logits, one warp per sample takes the softmax residual, and each
//    thread adds x_sj * d_sc to the gradient of its features, in registers. At a chunk's end
//    the block writes the chunk's partial gradient.
// 2. reduce_and_descend: per theta entry, the chunks' partials summed in a fixed order (a
//    strided pass, then a tree over 8 rows), and theta -= lr / n * sum.
//
// The chunks depend on n only (gradient_chunks), and every sum runs in a fixed order, so
// the result is the same on every GPU and every run.
#include "logreg_gpu.hpp"

#include <cuda_pipeline.h>

namespace {

const gpubench::BackendSpec kCuda{
    "logreg_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "softmax regression, full-batch gradient descent; hand-written CUDA: X streamed "
    "once per step through shared memory (cp.async), fused forward + softmax + "
    "gradient with theta in registers, deterministic reduce-and-update",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

using namespace logreg;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kTileSamples = kWarps;  // one sample per warp in the softmax
constexpr int kStages = 4;            // tiles in flight
constexpr int kTileFloats = kTileSamples * int(kFeatures);
constexpr int kLogits = kTileSamples * int(kClasses);  // 80, sample-major
constexpr int kSlots = (int(kFeatures) + kThreads - 1) / kThreads;  // features per thread: 4
constexpr size_t kStageBytes = sizeof(float) * kStages * kTileFloats;
constexpr int kReduceEntries = 32, kReduceRows = 8;  // reduce_and_descend's block shape
static_assert(kChunkSamples % kTileSamples == 0, "chunks hold whole tiles");
// A tile starts at a multiple of 8 rows: 8 x 785 x 4 bytes is a multiple of 16 (cp.async).
static_assert((kTileSamples * kFeatures * sizeof(float)) % 16 == 0);
static_assert(kLogits == 16 * 5, "the butterfly halves 80 sums four times, to 5 per lane");

// The first `rows` samples of a tile, from row `row0`, into `stage`: 16-byte cp.async for
// all but the last 0-3 floats.
__device__ __forceinline__ void load_tile(float *stage, const float *x, int row0, int rows) {
    const int count = rows * int(kFeatures), vectors = count / 4;
    const float *source = x + size_t(row0) * kFeatures;
    for (int i = threadIdx.x; i < vectors; i += kThreads)
        __pipeline_memcpy_async(stage + 4 * i, source + 4 * i, 16);
    if (int rest = int(threadIdx.x) + 4 * vectors; rest < count) stage[rest] = source[rest];
}

// One halving step of the butterfly: of the first N sums, a lane keeps one half (the upper
// if its `offset` bit is set) and adds its partner's copy of that half.
template <int N>
__device__ __forceinline__ void keep_half(float (&sums)[kLogits], int lane, int offset) {
    const bool upper = lane & offset;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) {
        const float send = upper ? sums[i] : sums[i + N / 2];
        const float keep = upper ? sums[i + N / 2] : sums[i];
        sums[i] = keep + __shfl_xor_sync(0xFFFFFFFFu, send, offset);
    }
}

__global__ void __launch_bounds__(kThreads, 1)
    fused_gradients(const float *__restrict__ x, const uint8_t *__restrict__ labels,
                    const float *__restrict__ theta, int n, int chunk_samples, int chunks,
                    float *__restrict__ partials) {
    extern __shared__ float4 stage_memory[];
    float *stages = reinterpret_cast<float *>(stage_memory);
    __shared__ float warp_logits[kWarps][kLogits];
    __shared__ float residual[kTileSamples][kClasses];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    float my_theta[kSlots][kClasses];
#pragma unroll
    for (int k = 0; k < kSlots; ++k)
#pragma unroll
        for (int c = 0; c < int(kClasses); ++c) {
            const int j = tid + k * kThreads;
            my_theta[k][c] = j < int(kFeatures) ? theta[j * kClasses + c] : 0.0f;
        }
    // Where this lane's 5 sums land among the 80 after the butterfly.
    const int sums_at = (lane & 16 ? 40 : 0) + (lane & 8 ? 20 : 0) + (lane & 4 ? 10 : 0) +
                        (lane & 2 ? 5 : 0);

    for (int chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const int first = chunk * chunk_samples, end = min(n, first + chunk_samples);
        const int tiles = (end - first + kTileSamples - 1) / kTileSamples;
        const auto issue = [&](int tile) {
            if (tile < tiles) {
                const int row0 = first + tile * kTileSamples;
                load_tile(stages + (tile % kStages) * kTileFloats, x, row0,
                          min(kTileSamples, end - row0));
            }
            __pipeline_commit();  // an empty group past the end keeps the count uniform
        };
        for (int tile = 0; tile < kStages - 1; ++tile) issue(tile);
        float grad[kSlots][kClasses] = {};
        for (int tile = 0; tile < tiles; ++tile) {
            issue(tile + kStages - 1);
            __pipeline_wait_prior(kStages - 1);  // this thread's copies of `tile` landed
            __syncthreads();                     // everyone's did
            const float *samples = stages + (tile % kStages) * kTileFloats;
            const int row0 = first + tile * kTileSamples, rows = min(kTileSamples, end - row0);

            float sums[kLogits] = {};  // this thread's features' share of the tile's logits
#pragma unroll
            for (int k = 0; k < kSlots; ++k) {
                const int j = tid + k * kThreads;
                if (j >= int(kFeatures)) continue;
#pragma unroll
                for (int s = 0; s < kTileSamples; ++s) {
                    const float xs = s < rows ? samples[s * int(kFeatures) + j] : 0.0f;
#pragma unroll
                    for (int c = 0; c < int(kClasses); ++c)
                        sums[s * kClasses + c] += xs * my_theta[k][c];
                }
            }
            keep_half<80>(sums, lane, 16);
            keep_half<40>(sums, lane, 8);
            keep_half<20>(sums, lane, 4);
            keep_half<10>(sums, lane, 2);
#pragma unroll
            for (int i = 0; i < 5; ++i) sums[i] += __shfl_xor_sync(0xFFFFFFFFu, sums[i], 1);
            if (!(lane & 1))
#pragma unroll
                for (int i = 0; i < 5; ++i) warp_logits[warp][sums_at + i] = sums[i];
            __syncthreads();

            if (lane == 0) {  // warp w: sample w's residual
                float z[kClasses];
#pragma unroll
                for (int c = 0; c < int(kClasses); ++c) {
                    z[c] = 0;
                    for (int w = 0; w < kWarps; ++w) z[c] += warp_logits[w][warp * kClasses + c];
                }
                if (warp < rows) softmax_residual_in_place(z, labels[row0 + warp]);
#pragma unroll
                for (int c = 0; c < int(kClasses); ++c)
                    residual[warp][c] = warp < rows ? z[c] : 0.0f;
            }
            __syncthreads();

#pragma unroll
            for (int s = 0; s < kTileSamples; ++s) {
                float d[kClasses];
#pragma unroll
                for (int c = 0; c < int(kClasses); ++c) d[c] = residual[s][c];
#pragma unroll
                for (int k = 0; k < kSlots; ++k) {
                    const int j = tid + k * kThreads;
                    if (j >= int(kFeatures)) continue;
                    const float xs = s < rows ? samples[s * int(kFeatures) + j] : 0.0f;
#pragma unroll
                    for (int c = 0; c < int(kClasses); ++c) grad[k][c] += xs * d[c];
                }
            }
            __syncthreads();  // the stage is read before a later issue() refills it
        }
        __pipeline_wait_prior(0);  // no copy outlives its chunk
        float *out = partials + size_t(chunk) * kThetaSize;
#pragma unroll
        for (int k = 0; k < kSlots; ++k) {
            const int j = tid + k * kThreads;
            if (j < int(kFeatures))
#pragma unroll
                for (int c = 0; c < int(kClasses); ++c) out[j * kClasses + c] = grad[k][c];
        }
    }
}

__global__ void __launch_bounds__(kReduceEntries *kReduceRows)
    reduce_and_descend(const float *__restrict__ partials, int chunks, float step,
                       float *__restrict__ theta) {
    __shared__ float sums[kReduceRows][kReduceEntries];
    const int e = blockIdx.x * kReduceEntries + threadIdx.x;
    float sum = 0;
    if (e < int(kThetaSize))
        for (int chunk = threadIdx.y; chunk < chunks; chunk += kReduceRows)
            sum += partials[size_t(chunk) * kThetaSize + e];
    sums[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    for (int half = kReduceRows / 2; half > 0; half /= 2) {
        if (threadIdx.y < half)
            sums[threadIdx.y][threadIdx.x] += sums[threadIdx.y + half][threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.y == 0 && e < int(kThetaSize)) theta[e] -= step * sums[0][threadIdx.x];
}

class CudaTrainer {
public:
    // The partial gradients of the sample chunks.
    static double scratch_bytes(uint64_t n) {
        return static_cast<double>(gradient_chunks(n)) * kThetaSize * sizeof(float);
    }

    CudaTrainer(const Task &task, const gpubench::Setup &setup)
        : n_(static_cast<int>(task.samples())),
          settings_(task.settings()),
          stream_(gpubench::cuda::stream_of(setup)) {
        const int tiles = (n_ + int(kChunkSamples) - 1) / int(kChunkSamples);
        const int chunks = static_cast<int>(gradient_chunks(task.samples()));
        chunk_samples_ = int(kChunkSamples) * ((tiles + chunks - 1) / chunks);
        chunks_ = (n_ + chunk_samples_ - 1) / chunk_samples_;  // none empty
        partials_ = gpubench::cuda::DeviceBuffer<float>(size_t(chunks_) * kThetaSize);
        int sms = 0;
        GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                   setup.cuda_device));
        blocks_ = std::min(chunks_, sms);  // one block per SM: it holds 255 registers a thread
        GPUBENCH_CUDA_CHECK(cudaFuncSetAttribute(
            fused_gradients, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStageBytes)));
    }

    void train(const float *x, const uint8_t *labels, float *theta) {
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(theta, 0, kThetaSize * sizeof(float), stream_));
        const float step = settings_.lr / static_cast<float>(n_);
        const int reduce_blocks = (int(kThetaSize) + kReduceEntries - 1) / kReduceEntries;
        for (int i = 0; i < settings_.iterations; ++i) {
            fused_gradients<<<blocks_, kThreads, kStageBytes, stream_>>>(
                x, labels, theta, n_, chunk_samples_, chunks_, partials_.data());
            gpubench::cuda::check_launch("fused_gradients");
            reduce_and_descend<<<reduce_blocks, dim3(kReduceEntries, kReduceRows), 0,
                                 stream_>>>(partials_.data(), chunks_, step, theta);
            gpubench::cuda::check_launch("reduce_and_descend");
        }
    }

private:
    int n_;
    Settings settings_;
    cudaStream_t stream_;
    int chunk_samples_ = int(kChunkSamples), chunks_ = 1, blocks_ = 1;
    gpubench::cuda::DeviceBuffer<float> partials_;  // chunks x 7850
};

using CudaPlugin = DevicePlugin<kCuda, CudaTrainer>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, make_info(kCuda))
