// Hand-written CUDA training, two kernels per step and no atomics:
//
// 1. partial_gradients: one 256-thread block per chunk of consecutive 32-sample tiles, with
//    theta in shared memory, transposed to class-major so that lanes reading consecutive
//    features hit distinct banks. Per tile, each warp computes the logits of 4 samples
//    (lanes stride over the 785 features, then a shuffle reduction), their softmax residual
//    goes to shared memory, and then each thread adds the tile's x_ij * d_ic to the 10
//    classes of the (up to 4) features it owns, in registers. X is thus read from DRAM once
//    per step: the gradient pass re-reads the tile the forward pass just brought into cache.
//    The block writes its chunk's partial gradient, in sample order.
// 2. reduce_and_descend: per theta entry, the chunks' partials summed in a fixed order (a
//    strided pass, then a tree over 8 rows), and theta -= lr / n * sum.
//
// The chunking depends on n only (gradient_chunks), so the result is the same on every
// GPU and every run.
#include "logreg_gpu.hpp"

namespace {

const gpubench::BackendSpec kCuda{
    "logreg_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "softmax regression, full-batch gradient descent; hand-written CUDA: fused "
    "forward + softmax + partial gradient per sample chunk (theta in shared "
    "memory), deterministic reduce-and-update",
    logreg::kMaxSamples, {60, 600, 6000, 60000}};

using namespace logreg;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kTile = int(kChunkSamples);  // samples per tile
constexpr int kFeatureSlots = (int(kFeatures) + kThreads - 1) / kThreads;  // 4 per thread
constexpr int kReduceEntries = 32, kReduceRows = 8;  // reduce_and_descend's block shape
static_assert(kTile % kWarps == 0, "every warp takes the same number of tile samples");
static_assert(sizeof(float) * (kThetaSize + kTile * kClasses) <= 48 * 1024,
              "theta and a tile's residuals fit static shared memory");

__global__ void __launch_bounds__(kThreads)
    partial_gradients(const float *__restrict__ x, const uint8_t *__restrict__ labels,
                      const float *__restrict__ theta, int n, int tiles_per_chunk,
                      float *__restrict__ partials) {
    __shared__ float theta_by_class[kClasses][kFeatures];
    __shared__ float residual[kTile][kClasses];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    for (int e = tid; e < int(kThetaSize); e += kThreads)
        theta_by_class[e % kClasses][e / kClasses] = theta[e];
    __syncthreads();

    float grad[kFeatureSlots][kClasses] = {};
    const int tiles = (n + kTile - 1) / kTile;
    const int first_tile = blockIdx.x * tiles_per_chunk;
    const int last_tile = min(first_tile + tiles_per_chunk, tiles);
    for (int tile = first_tile; tile < last_tile; ++tile) {
        const int row0 = tile * kTile, rows = min(kTile, n - row0);
        for (int s = warp; s < kTile; s += kWarps) {  // warp-uniform: no divergence
            if (s >= rows) {
                if (lane < int(kClasses)) residual[s][lane] = 0;
                continue;
            }
            const float *row = x + size_t(row0 + s) * kFeatures;
            float z[kClasses] = {};
            for (int j = lane; j < int(kFeatures); j += 32) {
                const float xj = row[j];
#pragma unroll
                for (int c = 0; c < int(kClasses); ++c) z[c] += xj * theta_by_class[c][j];
            }
#pragma unroll
            for (int c = 0; c < int(kClasses); ++c)
#pragma unroll
                for (int offset = 16; offset > 0; offset /= 2)
                    z[c] += __shfl_xor_sync(0xFFFFFFFFu, z[c], offset);
            softmax_residual_in_place(z, labels[row0 + s]);
            float mine = z[0];  // lane c keeps class c, selected without dynamic indexing
#pragma unroll
            for (int c = 1; c < int(kClasses); ++c) mine = lane == c ? z[c] : mine;
            if (lane < int(kClasses)) residual[s][lane] = mine;
        }
        __syncthreads();
        for (int s = 0; s < rows; ++s) {
            const float *row = x + size_t(row0 + s) * kFeatures;
            float d[kClasses];
#pragma unroll
            for (int c = 0; c < int(kClasses); ++c) d[c] = residual[s][c];
#pragma unroll
            for (int k = 0; k < kFeatureSlots; ++k) {
                const int j = tid + k * kThreads;
                if (j < int(kFeatures)) {
                    const float xj = row[j];
#pragma unroll
                    for (int c = 0; c < int(kClasses); ++c) grad[k][c] += xj * d[c];
                }
            }
        }
        __syncthreads();  // the residuals are read before the next tile overwrites them
    }
    float *out = partials + size_t(blockIdx.x) * kThetaSize;
#pragma unroll
    for (int k = 0; k < kFeatureSlots; ++k) {
        const int j = tid + k * kThreads;
        if (j < int(kFeatures))
#pragma unroll
            for (int c = 0; c < int(kClasses); ++c) out[j * kClasses + c] = grad[k][c];
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
        const int tiles = (n_ + kTile - 1) / kTile;
        const int chunks = static_cast<int>(gradient_chunks(task.samples()));
        tiles_per_chunk_ = (tiles + chunks - 1) / chunks;
        chunks_ = (tiles + tiles_per_chunk_ - 1) / tiles_per_chunk_;  // none empty
        partials_ = gpubench::cuda::DeviceBuffer<float>(size_t(chunks_) * kThetaSize);
    }

    void train(const float *x, const uint8_t *labels, float *theta) {
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(theta, 0, kThetaSize * sizeof(float), stream_));
        const float step = settings_.lr / static_cast<float>(n_);
        const int reduce_blocks = (int(kThetaSize) + kReduceEntries - 1) / kReduceEntries;
        for (int i = 0; i < settings_.iterations; ++i) {
            partial_gradients<<<chunks_, kThreads, 0, stream_>>>(x, labels, theta, n_,
                                                                 tiles_per_chunk_,
                                                                 partials_.data());
            gpubench::cuda::check_launch("partial_gradients");
            reduce_and_descend<<<reduce_blocks, dim3(kReduceEntries, kReduceRows), 0,
                                 stream_>>>(partials_.data(), chunks_, step, theta);
            gpubench::cuda::check_launch("reduce_and_descend");
        }
    }

private:
    int n_;
    Settings settings_;
    cudaStream_t stream_;
    int tiles_per_chunk_ = 1, chunks_ = 1;
    gpubench::cuda::DeviceBuffer<float> partials_;  // chunks x 7850
};

using CudaPlugin = DevicePlugin<kCuda, CudaTrainer>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, make_info(kCuda))
