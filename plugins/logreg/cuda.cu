// Hand-written CUDA training, two kernels per step and no atomics. A step is bound by
// reading X (n x 785 floats, 188 MB at 60000 samples: 63 us at 3 TB/s), so X is read from
// DRAM once per step, with enough bytes in flight to reach that rate, and the arithmetic
// (2 x 785 x 10 FMAs a sample) is laid out so that it keeps up:
//
// 1. fused_gradients: 256-thread blocks, two per SM (so that one block's barriers and
//    serial softmax overlap the other's FMAs), each taking whole sample chunks in turn.
//    A chunk streams through shared memory in tiles of 8 samples, 3 tiles in flight
//    (16-byte cp.async: X's rows are padded to 788 floats on the device, so a tile is one
//    aligned run and 4 features load as one 16-byte vector). Per tile:
//    - forward (logits, 8 x 10 = tile x theta): thread (sample s, slice h) takes every
//      32nd group of 4 features, theta's 10 classes of them read from shared memory as
//      16-byte broadcasts, so a loaded x value feeds 10 FMAs. A warp's 4 slices are added
//      by shuffles, the 8 warps' sums in a fixed order by 16 lanes per sample, which also
//      take the softmax residual d = softmax(z) - onehot(label);
//    - backward (gradient += tile^T d): thread q owns features 4q..4q+3 and their 40
//      gradient entries in registers; per sample one 16-byte load of x and three of d
//      (broadcast) feed 40 FMAs.
//    Three barriers a tile. At a chunk's end the block writes the chunk's partial gradient.
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
    "softmax regression by full-batch gradient descent, two hand-written CUDA kernels per "
    "step: X (rows padded to 788 floats on the device) streamed once through shared "
    "memory in 8-sample tiles, 3 in flight (16-byte cp.async); per tile the forward "
    "product with theta in shared memory (thread = sample x feature slice, theta read as "
    "16-byte broadcasts), the softmax residual (16 lanes a sample) and the gradient in "
    "registers (thread = 4 features); 256-thread blocks, two per SM so that one block's "
    "barriers overlap the other's FMAs; then a fixed-order reduction fused with the "
    "update, no atomics",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

using namespace logreg;

constexpr int kThreads = 256, kWarps = kThreads / 32, kBlocksPerSm = 2;
constexpr int kTileSamples = 8;
constexpr int kStages = 3;                                   // tiles in flight
constexpr int kQuads = (int(kFeatures) + 3) / 4;             // 197 groups of 4 features
constexpr int kRowFloats = 4 * kQuads;                       // 788: a padded row of X
// Forward: lane = 8 * slice + sample, so a warp holds 8 samples x 4 feature slices.
constexpr int kSlicesPerWarp = 32 / kTileSamples, kSlices = kWarps * kSlicesPerWarp;  // 32
constexpr int kQuadsPerSlice = (kQuads + kSlices - 1) / kSlices;                       // 7
constexpr int kSoftmaxLanes = 16;    // softmax: 16 lanes a sample, one class a lane
constexpr int kResidualStride = 12;  // d rows padded to 3 float4
constexpr int kReduceEntries = 32, kReduceRows = 8;  // reduce_and_descend's block shape
static_assert(kQuads <= kThreads, "one backward thread per group of 4 features");
static_assert(kTileSamples * kSoftmaxLanes <= kThreads && int(kClasses) <= kSoftmaxLanes);

// Shared memory of fused_gradients (dynamic: 108 KB, so that two blocks fit an SM).
struct SharedTiles {
    float4 theta[kQuads][kClasses];  // theta[q][c] = classes c of features 4q..4q+3
    float tiles[kStages][kTileSamples][kRowFloats];
    float warp_sums[kWarps][kClasses][kTileSamples];  // each warp's 4 slices added
    alignas(16) float residual[kTileSamples][kResidualStride];
};

// The first `rows` samples of a tile, from row `row0`, into `tile`: X's rows are padded to
// 788 floats on the device too, so the tile is one contiguous run of 16-byte pieces.
__device__ __forceinline__ void load_tile(float (*tile)[kRowFloats], const float *x, int row0,
                                          int rows) {
    const float4 *source = reinterpret_cast<const float4 *>(x + size_t(row0) * kRowFloats);
    float4 *target = reinterpret_cast<float4 *>(&tile[0][0]);
    for (int i = threadIdx.x; i < rows * (kRowFloats / 4); i += kThreads)
        __pipeline_memcpy_async(target + i, source + i, sizeof(float4));
}

// theta (785 x 10, feature-major) into shared memory as float4 quads of features, zero past
// feature 784 (the padding of X's rows is zero too).
__device__ void load_theta(SharedTiles &shared, const float *theta) {
    for (int i = threadIdx.x; i < kQuads * int(kClasses); i += kThreads) {
        const int q = i / int(kClasses), c = i - q * int(kClasses);
        float v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int j = 4 * q + k;
            v[k] = j < int(kFeatures) ? theta[j * kClasses + c] : 0.0f;
        }
        shared.theta[q][c] = make_float4(v[0], v[1], v[2], v[3]);
    }
}

// Thread (sample s, slice h)'s share of sample s's logits: features 4q..4q+3 for
// q = h, h + 32, ...
__device__ __forceinline__ void forward_slice(const SharedTiles &shared, const float *row,
                                              int slice, float (&z)[kClasses]) {
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c) z[c] = 0;
#pragma unroll
    for (int i = 0; i < kQuadsPerSlice; ++i) {
        const int q = slice + i * kSlices;
        if (q >= kQuads) break;
        const float4 x = *reinterpret_cast<const float4 *>(row + 4 * q);
#pragma unroll
        for (int c = 0; c < int(kClasses); ++c) {
            const float4 t = shared.theta[q][c];
            z[c] = fmaf(x.w, t.w, fmaf(x.z, t.z, fmaf(x.y, t.y, fmaf(x.x, t.x, z[c]))));
        }
    }
}

// Sample s's residual d = softmax(z) - onehot(label) from the warps' sums, by 16 lanes (one
// class each; lanes 10-15 write d's zero padding), as cublas.cu's softmax_residual_in_place
// computes it.
__device__ __forceinline__ void softmax_row(SharedTiles &shared, int s, int c, bool valid,
                                            unsigned label) {
    float z = 0;
    if (c < int(kClasses))
#pragma unroll
        for (int w = 0; w < kWarps; ++w) z += shared.warp_sums[w][c][s];
    float top = c < int(kClasses) ? z : -INFINITY;
#pragma unroll
    for (int offset = kSoftmaxLanes / 2; offset > 0; offset /= 2)
        top = fmaxf(top, __shfl_xor_sync(0xFFFFFFFFu, top, offset));
    const float e = c < int(kClasses) ? expf(z - top) : 0.0f;
    float sum = e;
#pragma unroll
    for (int offset = kSoftmaxLanes / 2; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
    if (c < kResidualStride)
        shared.residual[s][c] =
            valid && c < int(kClasses) ? e * (1.0f / sum) - (unsigned(c) == label ? 1.0f : 0.0f)
                                       : 0.0f;
}

// Thread q's gradient entries (features 4q..4q+3, all classes) += tile sample s's.
__device__ __forceinline__ void backward_sample(const SharedTiles &shared,
                                                const float (*tile)[kRowFloats], int s, int q,
                                                float (&grad)[4][kClasses]) {
    const float4 x = *reinterpret_cast<const float4 *>(&tile[s][4 * q]);
    const float4 *d4 = reinterpret_cast<const float4 *>(shared.residual[s]);
    const float4 a = d4[0], b = d4[1], e = d4[2];
    const float d[kClasses] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, e.x, e.y};
    const float xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int c = 0; c < int(kClasses); ++c) grad[k][c] = fmaf(xs[k], d[c], grad[k][c]);
}

// The warp's sums of the logits of its 8 samples: each lane's slice of its sample's row, the
// warp's 4 slices added by shuffles (lanes 8 apart), written by the first 8 lanes.
__device__ __forceinline__ void forward_warp(SharedTiles &shared, const float *row, int sample,
                                             int slice, int lane, int warp) {
    float z[kClasses];
    forward_slice(shared, row, slice, z);
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c) {
        z[c] += __shfl_xor_sync(0xFFFFFFFFu, z[c], kTileSamples);
        z[c] += __shfl_xor_sync(0xFFFFFFFFu, z[c], 2 * kTileSamples);
    }
    if (lane < kTileSamples)
#pragma unroll
        for (int c = 0; c < int(kClasses); ++c) shared.warp_sums[warp][c][sample] = z[c];
}

// Thread q's gradient entries += the first `rows` samples of the tile's; unrolled for a whole
// tile.
__device__ __forceinline__ void backward_tile(const SharedTiles &shared,
                                              const float (*tile)[kRowFloats], int rows, int q,
                                              float (&grad)[4][kClasses]) {
    if (rows == kTileSamples) {
#pragma unroll
        for (int s = 0; s < kTileSamples; ++s) backward_sample(shared, tile, s, q, grad);
    } else {
        for (int s = 0; s < rows; ++s) backward_sample(shared, tile, s, q, grad);
    }
}

// Thread q's gradient entries (features 4q..4q+3 below 785) into the chunk's partial `out`.
__device__ __forceinline__ void store_gradient(float *out, int q,
                                               const float (&grad)[4][kClasses]) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int j = 4 * q + k;
        if (j < int(kFeatures))
#pragma unroll
            for (int c = 0; c < int(kClasses); ++c) out[j * kClasses + c] = grad[k][c];
    }
}

__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    fused_gradients(const float *__restrict__ x, const uint8_t *__restrict__ labels,
                    const float *__restrict__ theta, int n, int chunk_samples, int chunks,
                    float *__restrict__ partials) {
    extern __shared__ float4 shared_memory[];
    SharedTiles &shared = *reinterpret_cast<SharedTiles *>(shared_memory);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int sample = lane % kTileSamples, slice = warp * kSlicesPerWarp + lane / kTileSamples;
    load_theta(shared, theta);

    for (int chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const int first = chunk * chunk_samples, end = min(n, first + chunk_samples);
        const int tiles = (end - first + kTileSamples - 1) / kTileSamples;
        const auto issue = [&](int tile) {
            if (tile < tiles) {
                const int row0 = first + tile * kTileSamples;
                load_tile(shared.tiles[tile % kStages], x, row0, min(kTileSamples, end - row0));
            }
            __pipeline_commit();  // an empty group past the end keeps the count uniform
        };
        for (int tile = 0; tile < kStages - 1; ++tile) issue(tile);
        float grad[4][kClasses] = {};
        for (int tile = 0; tile < tiles; ++tile) {
            __pipeline_wait_prior(kStages - 2);  // this thread's copies of `tile` landed
            __syncthreads();  // everyone's did, and everyone is done with tile - 1
            issue(tile + kStages - 1);  // into tile - 1's stage
            const float(*samples)[kRowFloats] = shared.tiles[tile % kStages];
            const int row0 = first + tile * kTileSamples, rows = min(kTileSamples, end - row0);

            forward_warp(shared, samples[sample], sample, slice, lane, warp);
            __syncthreads();
            if (tid < kTileSamples * kSoftmaxLanes) {
                const int s = tid / kSoftmaxLanes;
                softmax_row(shared, s, tid % kSoftmaxLanes, s < rows,
                            s < rows ? labels[row0 + s] : 0u);
            }
            __syncthreads();
            if (tid < kQuads) backward_tile(shared, samples, rows, tid, grad);
        }
        __pipeline_wait_prior(0);  // no copy outlives its chunk
        __syncthreads();           // and every thread is done with the tiles
        float *out = partials + size_t(chunk) * kThetaSize;
        if (tid < kQuads) store_gradient(out, tid, grad);
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
    static constexpr size_t kRowFloats = ::kRowFloats;  // X's rows padded to 788 on the device
    // The partial gradients of the sample chunks.
    static double scratch_bytes(uint64_t n) {
        return static_cast<double>(gradient_chunks(n)) * kThetaSize * sizeof(float);
    }

    CudaTrainer(const Task &task, const gpubench::Setup &setup)
        : n_(static_cast<int>(task.samples())),
          settings_(task.settings()),
          stream_(gpubench::cuda::stream_of(setup)) {
        const int tiles = (n_ + kTileSamples - 1) / kTileSamples;
        const int chunks = static_cast<int>(gradient_chunks(task.samples()));
        chunk_samples_ = kTileSamples * ((tiles + chunks - 1) / chunks);  // whole tiles
        chunks_ = (n_ + chunk_samples_ - 1) / chunk_samples_;  // none empty
        partials_ = gpubench::cuda::DeviceBuffer<float>(size_t(chunks_) * kThetaSize);
        int sms = 0;
        GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                   setup.cuda_device));
        blocks_ = std::min(chunks_, kBlocksPerSm * sms);
        GPUBENCH_CUDA_CHECK(cudaFuncSetAttribute(fused_gradients,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                int(sizeof(SharedTiles))));
        // All of the SM's 228 KB as shared memory, so that two blocks fit.
        GPUBENCH_CUDA_CHECK(cudaFuncSetAttribute(fused_gradients,
                                                cudaFuncAttributePreferredSharedMemoryCarveout,
                                                int(cudaSharedmemCarveoutMaxShared)));
    }

    void train(const float *x, const uint8_t *labels, float *theta) {
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(theta, 0, kThetaSize * sizeof(float), stream_));
        const float step = settings_.lr / static_cast<float>(n_);
        const int reduce_blocks = (int(kThetaSize) + kReduceEntries - 1) / kReduceEntries;
        for (int i = 0; i < settings_.iterations; ++i) {
            fused_gradients<<<blocks_, kThreads, sizeof(SharedTiles), stream_>>>(
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
    int chunk_samples_ = kTileSamples, chunks_ = 1, blocks_ = 1;
    gpubench::cuda::DeviceBuffer<float> partials_;  // chunks x 7850
};

using CudaPlugin = gpubench::cuda::DeviceProblem<DeviceArrays<kCuda, CudaTrainer>>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, make_info(kCuda))
