// Hand-written CUDA training, two kernels per step and no atomics. A step is bound by
// reading X (n x 785 floats, 188 MB at 60000 samples: 63 us at 3 TB/s), so X is read from
// DRAM once per step, with enough bytes in flight to reach that rate, and the arithmetic
// (2 x 785 x 10 FMAs a sample) is laid out so that it keeps up:
//
// 1. fused_gradients: 256-thread blocks, two per SM (so that one block's barriers overlap
//    the other's FMAs), each taking whole sample chunks in turn. A chunk streams through
//    shared memory in tiles of 8 samples (16-byte cp.async: X's rows are padded to 788
//    floats on the device, so a tile is one aligned run and 4 features load as one 16-byte
//    vector), software-pipelined so that a tile takes two barriers and nothing waits on
//    the softmax. Phase t, with tile t + 1 loading into tile t - 2's stage:
//    - forward (logits, 8 x 10 = tile t x theta): thread (sample s, slice h) takes every
//      32nd group of 4 features, theta's 10 classes of them read from shared memory as
//      16-byte broadcasts, so a loaded x value feeds 10 FMAs. A warp's 4 slices are added
//      by shuffles; each warp writes its sums;
//    - barrier; then side by side:
//      - softmax of tile t: the last warp's first 8 lanes, one sample each, add the 8
//        warps' sums in a fixed order and write d = softmax(z) - onehot(label) (serial in
//        a thread: no shuffle latency, and the other warps are busy meanwhile);
//      - backward of tile t - 1 (gradient += tile^T d, d written in phase t - 1): thread q
//        owns features 4q..4q+3 and their 40 gradient entries in registers; per sample one
//        16-byte load of x and three of d (broadcast) feed 40 FMAs.
//    At a chunk's end the block writes the chunk's partial gradient, coalesced.
// 2. reduce_and_descend: per theta entry, the chunks' partials summed in a fixed order (a
//    strided pass, then a tree over 8 rows), and theta -= lr / n * sum.
// On sm_90 and later the kernels are launched with programmatic dependent launch: each
// kernel starts while the one before drains (fused_gradients loads its first tile), and
// waits for it before reading what it wrote.
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
    "memory in 8-sample tiles, 3 in flight (16-byte cp.async), software-pipelined so that "
    "the softmax of tile t runs beside the gradient of tile t - 1 (two barriers a tile); "
    "the forward product with theta in shared memory (thread = sample x feature slice, "
    "theta read as 16-byte broadcasts), the softmax residual (one thread a sample) and the "
    "gradient in registers (thread = 4 features); 256-thread blocks, two per SM so that "
    "one block's barriers overlap the other's FMAs; then a fixed-order reduction fused "
    "with the update, no atomics; programmatic dependent launch on sm_90 and later",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

using namespace logreg;

constexpr int kThreads = 256, kWarps = kThreads / 32, kBlocksPerSm = 2;
constexpr int kTileSamples = 8;
constexpr int kStages = 3;                                   // tiles t + 1, t and t - 1
constexpr int kQuads = (int(kFeatures) + 3) / 4;             // 197 groups of 4 features
constexpr int kRowFloats = 4 * kQuads;                       // 788: a padded row of X
// Forward: lane = 8 * slice + sample, so a warp holds 8 samples x 4 feature slices.
constexpr int kSlicesPerWarp = 32 / kTileSamples, kSlices = kWarps * kSlicesPerWarp;  // 32
constexpr int kQuadsPerSlice = (kQuads + kSlices - 1) / kSlices;                       // 7
constexpr int kClassStride = 12;                       // a row of d or of sums: 3 float4
constexpr int kSumsStride = kWarps * kClassStride + 4;  // 100: sample rows 4 banks apart
// A chunk's partial gradient as [k][c][q] (feature 4q + k, class c), so that the threads
// of a warp (consecutive q) store consecutive floats.
constexpr int kPartialFloats = 4 * int(kClasses) * kQuads;  // 7880
constexpr int kReduceEntries = 32, kReduceRows = 8;         // reduce_and_descend's block shape
static_assert(kQuads <= kThreads - 32, "backward threads leave the last warp to the softmax");

// Shared memory of fused_gradients (dynamic: 108 KB, so that two blocks fit an SM).
struct SharedTiles {
    float4 theta[kQuads][kClasses];  // theta[q][c] = classes c of features 4q..4q+3
    float tiles[kStages][kTileSamples][kRowFloats];
    alignas(16) float warp_sums[kTileSamples][kSumsStride];  // [s][warp * 12 + c]
    alignas(16) float residual[2][kTileSamples][kClassStride];  // d of tiles t and t - 1
};

// On sm_90 and later, under programmatic dependent launch: let the next kernel start, and
// wait until the previous one has finished and its writes are visible. No-ops otherwise.
__device__ __forceinline__ void let_next_kernel_start() {
#if __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}
__device__ __forceinline__ void wait_for_previous_kernel() {
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}

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
        for (int c = 0; c < int(kClasses); ++c)
            shared.warp_sums[sample][warp * kClassStride + c] = z[c];
}

// Sample s's residual d = softmax(z) - onehot(label) into d (12 floats, zero past class 9),
// z the warps' sums added in warp order, by one thread.
__device__ __forceinline__ void softmax_sample(const SharedTiles &shared, int s, bool valid,
                                               unsigned label, float *d) {
    float z[kClasses] = {};
    const float4 *sums = reinterpret_cast<const float4 *>(shared.warp_sums[s]);
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        const float4 a = sums[3 * w], b = sums[3 * w + 1], e = sums[3 * w + 2];
        const float v[kClasses] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, e.x, e.y};
#pragma unroll
        for (int c = 0; c < int(kClasses); ++c) z[c] += v[c];
    }
    float top = z[0];
#pragma unroll
    for (int c = 1; c < int(kClasses); ++c) top = fmaxf(top, z[c]);
    float e[kClasses], sum = 0;
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c) e[c] = expf(z[c] - top);
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c) sum += e[c];
    const float inverse = 1.0f / sum;
    float out[kClassStride] = {};
#pragma unroll
    for (int c = 0; c < int(kClasses); ++c)
        out[c] = valid ? e[c] * inverse - (unsigned(c) == label ? 1.0f : 0.0f) : 0.0f;
    float4 *d4 = reinterpret_cast<float4 *>(d);
#pragma unroll
    for (int k = 0; k < kClassStride / 4; ++k)
        d4[k] = make_float4(out[4 * k], out[4 * k + 1], out[4 * k + 2], out[4 * k + 3]);
}

// Thread q's gradient entries (features 4q..4q+3, all classes) += sample s's, of a tile and
// its residual rows d.
__device__ __forceinline__ void backward_sample(const float (*tile)[kRowFloats],
                                                const float (*d_rows)[kClassStride], int s,
                                                int q, float (&grad)[4][kClasses]) {
    const float4 x = *reinterpret_cast<const float4 *>(&tile[s][4 * q]);
    const float4 *d4 = reinterpret_cast<const float4 *>(d_rows[s]);
    const float4 a = d4[0], b = d4[1], e = d4[2];
    const float d[kClasses] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, e.x, e.y};
    const float xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int c = 0; c < int(kClasses); ++c) grad[k][c] = fmaf(xs[k], d[c], grad[k][c]);
}

// Thread q's gradient entries += the first `rows` samples of the tile's; unrolled for a whole
// tile.
__device__ __forceinline__ void backward_tile(const float (*tile)[kRowFloats],
                                              const float (*d_rows)[kClassStride], int rows,
                                              int q, float (&grad)[4][kClasses]) {
    if (rows == kTileSamples) {
#pragma unroll
        for (int s = 0; s < kTileSamples; ++s) backward_sample(tile, d_rows, s, q, grad);
    } else {
        for (int s = 0; s < rows; ++s) backward_sample(tile, d_rows, s, q, grad);
    }
}

// Thread q's 40 gradient entries into the chunk's partial `out` ([k][c][q]; the entries of
// features past 784 are zero, as X's padding is).
__device__ __forceinline__ void store_gradient(float *out, int q,
                                               const float (&grad)[4][kClasses]) {
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int c = 0; c < int(kClasses); ++c)
            out[(k * int(kClasses) + c) * kQuads + q] = grad[k][c];
}

__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    fused_gradients(const float *__restrict__ x, const uint8_t *__restrict__ labels,
                    const float *__restrict__ theta, int n, int chunk_samples, int chunks,
                    float *__restrict__ partials) {
    let_next_kernel_start();
    extern __shared__ float4 shared_memory[];
    SharedTiles &shared = *reinterpret_cast<SharedTiles *>(shared_memory);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int sample = lane % kTileSamples, slice = warp * kSlicesPerWarp + lane / kTileSamples;
    const bool softmax_thread = warp == kWarps - 1 && lane < kTileSamples;  // sample = lane

    for (int chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const int first = chunk * chunk_samples, end = min(n, first + chunk_samples);
        const int tiles = (end - first + kTileSamples - 1) / kTileSamples;
        const auto rows_of = [&](int tile) {
            return min(kTileSamples, end - first - tile * kTileSamples);
        };
        const auto issue = [&](int tile) {
            if (tile < tiles)
                load_tile(shared.tiles[tile % kStages], x, first + tile * kTileSamples,
                          rows_of(tile));
            __pipeline_commit();  // an empty group past the end keeps the count uniform
        };
        issue(0);
        if (chunk == int(blockIdx.x)) {  // while the first tile loads
            wait_for_previous_kernel();  // its theta, and its reads of `partials`
            load_theta(shared, theta);
        }
        float grad[4][kClasses] = {};
        // Phase t: forward of tile t; barrier; softmax of tile t beside backward of t - 1.
        for (int t = 0; t <= tiles; ++t) {
            __pipeline_wait_prior(0);  // this thread's copies of tile t landed
            __syncthreads();  // everyone's did, and phase t - 1 is done: tile t - 2's stage
                              // and residual buffer are free
            issue(t + 1);
            if (t < tiles) {
                forward_warp(shared, shared.tiles[t % kStages][sample], sample, slice, lane,
                             warp);
                __syncthreads();
                if (softmax_thread) {
                    const bool valid = lane < rows_of(t);
                    softmax_sample(shared, lane, valid,
                                   valid ? labels[first + t * kTileSamples + lane] : 0u,
                                   shared.residual[t % 2][lane]);
                }
            }
            if (t >= 1 && tid < kQuads)
                backward_tile(shared.tiles[(t - 1) % kStages], shared.residual[(t - 1) % 2],
                              rows_of(t - 1), tid, grad);
        }
        __pipeline_wait_prior(0);  // no copy outlives its chunk
        __syncthreads();           // and every thread is done with the tiles
        if (tid < kQuads) store_gradient(partials + size_t(chunk) * kPartialFloats, tid, grad);
    }
}

__global__ void __launch_bounds__(kReduceEntries *kReduceRows)
    reduce_and_descend(const float *__restrict__ partials, int chunks, float step,
                       float *__restrict__ theta) {
    let_next_kernel_start();
    wait_for_previous_kernel();
    __shared__ float sums[kReduceRows][kReduceEntries];
    const int p = blockIdx.x * kReduceEntries + threadIdx.x;  // [k][c][q], as stored
    float sum = 0;
    if (p < kPartialFloats)
        for (int chunk = threadIdx.y; chunk < chunks; chunk += kReduceRows)
            sum += partials[size_t(chunk) * kPartialFloats + p];
    sums[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    for (int half = kReduceRows / 2; half > 0; half /= 2) {
        if (threadIdx.y < half)
            sums[threadIdx.y][threadIdx.x] += sums[threadIdx.y + half][threadIdx.x];
        __syncthreads();
    }
    const int q = p % kQuads, k = p / kQuads / int(kClasses), c = p / kQuads % int(kClasses);
    if (threadIdx.y == 0 && p < kPartialFloats && 4 * q + k < int(kFeatures))
        theta[(4 * q + k) * kClasses + c] -= step * sums[0][threadIdx.x];
}

// A launch of `kernel` (named `name` in errors) on `stream`, under programmatic dependent
// launch where `dependent`.
template <typename... Params, typename... Args>
void launch(const char *name, void (*kernel)(Params...), int blocks, dim3 threads,
            size_t shared_bytes, cudaStream_t stream, bool dependent, Args... args) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = threads;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = dependent ? 1 : 0;
    gpubench::cuda::check(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...),
                          name);
}

class CudaTrainer {
public:
    static constexpr size_t kRowFloats = ::kRowFloats;  // X's rows padded to 788 on the device
    // The partial gradients of the sample chunks.
    static double scratch_bytes(uint64_t n) {
        return static_cast<double>(gradient_chunks(n)) * kPartialFloats * sizeof(float);
    }

    CudaTrainer(const Task &task, const gpubench::Setup &setup)
        : n_(static_cast<int>(task.samples())),
          settings_(task.settings()),
          stream_(gpubench::cuda::stream_of(setup)) {
        const int tiles = (n_ + kTileSamples - 1) / kTileSamples;
        const int chunks = static_cast<int>(gradient_chunks(task.samples()));
        chunk_samples_ = kTileSamples * ((tiles + chunks - 1) / chunks);  // whole tiles
        chunks_ = (n_ + chunk_samples_ - 1) / chunk_samples_;  // none empty
        partials_ = gpubench::cuda::DeviceBuffer<float>(size_t(chunks_) * kPartialFloats);
        int sms = 0, major = 0;
        GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                   setup.cuda_device));
        GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                                   setup.cuda_device));
        dependent_launch_ = major >= 9;
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
        const int reduce_blocks = (kPartialFloats + kReduceEntries - 1) / kReduceEntries;
        for (int i = 0; i < settings_.iterations; ++i) {
            launch("fused_gradients", fused_gradients, blocks_, dim3(kThreads),
                   sizeof(SharedTiles), stream_, dependent_launch_, x, labels, theta, n_,
                   chunk_samples_, chunks_, partials_.data());
            launch("reduce_and_descend", reduce_and_descend, reduce_blocks,
                   dim3(kReduceEntries, kReduceRows), 0, stream_, dependent_launch_,
                   partials_.data(), chunks_, step, theta);
        }
    }

private:
    int n_;
    Settings settings_;
    cudaStream_t stream_;
    int chunk_samples_ = kTileSamples, chunks_ = 1, blocks_ = 1;
    bool dependent_launch_ = false;  // sm_90 and later
    gpubench::cuda::DeviceBuffer<float> partials_;  // chunks x 7880
};

using CudaPlugin = gpubench::cuda::DeviceProblem<DeviceArrays<kCuda, CudaTrainer>>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, make_info(kCuda))
