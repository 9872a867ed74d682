// Hand-written CUDA ann: six kernels of its own, cuSOLVER only for the 1000 x 1000 Cholesky.
//   1. fit_neurons: the 1000 fits at once, one warp per neuron. Householder QR, as the
//      reference (ann_linalg.cpp) does, not the 10 x 10 normal equations: those square the
//      condition number, and at obs <= 1e4 (10 rows a neuron, square systems) one neuron in
//      ~6000 has cond > 1e5, where cond^2 * 1e-16 already breaks verify's 1e-6 on W (a failed
//      seed in ~15%). The warp takes its rows 32 at a time (a row a lane) under the 10 x 11
//      triangle [R | Q^T b] kept in shared memory, and reflects each column of the stacked
//      [R; rows] (LAPACK's tpqrt): stable whatever m, and at m <= 32 it is one plain QR.
//   2. hidden_chunk: H for a chunk of up to 45056 rows (H is never whole): tanh(x . w_k) in
//      columns 0..999, y in column 1000, zeros up to 1024 columns and in rows past obs.
//   3. gram_chunk: [H y]^T [H y] of the chunk, lower triangle, on the FP64 tensor cores
//      (mma.m16n8k16): 36 tiles of 128 x 128 (8 warps of 32 x 64), a fixed split-K of 11 slices
//      of rows (36 x 11 = 396 blocks: 3 whole waves on 132 SMs), H streamed through a 3-stage
//      cp.async pipeline. Each (tile, slice) adds into its own partial tile, chunk after chunk.
//      Row 1000 of that Gram is H^T y: no separate pass.
//   4. sum_partials: the 11 slices summed in order into H^T H and H^T y; add_ridge.
//   5. cusolverDnDpotrf/potrs (upper: the row-major lower triangle written is column-major's
//      upper).
//   6. predict: one thread per test row, sum_k v_k tanh(x . w_k) with W and V staged through
//      shared memory; no H for the test set.
// Every sum is in a fixed order (slices, chunks, warp butterflies): runs are bitwise repeatable.
#include "ann_cusolver.hpp"
#include "ann_gpu.hpp"
#include "cp_async.cuh"
#include "mma_f64.cuh"

#include <algorithm>

namespace {

using ann::kInputs, ann::kNeurons;

const gpubench::BackendSpec kCuda{
    "ann_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "the notebook's random-feature network with hand-written kernels, float64: the 1000 "
    "fits in one launch (a warp's Householder QR each, rows folded 32 at a time; not the "
    "normal equations, which square the condition number); H by chunks of rows, never "
    "whole; [H y]^T [H y] on the FP64 tensor cores (mma.sync m16n8k16, 128 x 128 tiles, a "
    "fixed split-K, 3-stage cp.async), so that H^T y is the Gram's last row; cuSOLVER "
    "potrf/potrs; the test predictions fused (no H for the test set); every sum in a "
    "fixed order; before sm_90 the FP64 MMA is emulated as in matmul_cuda",
    4'000'000, {10'000, 100'000, 1'000'000}};

constexpr int kNeuronCount = int(kNeurons), kInputCount = int(kInputs);

// H as the Gram reads it: kNeurons activations, y in column kTargetColumn (so that the
// Gram's row kTargetColumn is H^T y), zeros up to whole tiles.
constexpr int kTile = 128, kTiles = 8, kColumns = kTile * kTiles, kTargetColumn = kNeuronCount;
static_assert(kColumns > kTargetColumn);
constexpr int kTilePairs = kTiles * (kTiles + 1) / 2;  // lower triangle with the diagonal
constexpr int kSlices = 11, kMaxSliceRows = 4096;      // split-K of a chunk's rows
constexpr int kStepRows = 16, kStages = 3;             // rows per pipeline stage, stages
constexpr int kPadded = kTile + 4;  // a shared row: fragment loads hit 16 distinct banks
constexpr int kGramThreads = 256;   // 8 warps: 4 x 2 warp tiles of 32 x 64
constexpr int kFitWarps = 4, kHiddenThreads = 256, kPredictThreads = 256, kNeuronTile = 200;
static_assert(kNeurons % kFitWarps == 0 && kNeurons % kNeuronTile == 0);

// How obs rows are cut: `chunks` chunks of kSlices slices of slice_rows rows (a multiple of
// kStepRows), the last chunk padded with zero rows.
struct ChunkPlan {
    size_t chunks, slice_rows;
    size_t chunk_rows() const { return kSlices * slice_rows; }
};
ChunkPlan plan_chunks(size_t obs) {
    const size_t largest = size_t(kSlices) * kMaxSliceRows;
    const size_t chunks = (obs + largest - 1) / largest;
    const size_t per_slice = (obs + chunks * kSlices - 1) / (chunks * kSlices);
    return {chunks, (per_slice + kStepRows - 1) / kStepRows * kStepRows};
}

// The sum over the warp, in every lane, in the same order in every lane.
__device__ __forceinline__ double warp_sum(double value) {
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(~0u, value, offset);
    return value;
}

// Neuron k's weights: least squares of x[subset k] w ~ arctanh(y[subset k]), one warp each.
__global__ void __launch_bounds__(32 * kFitWarps)
    fit_neurons(const double *__restrict__ x, const double *__restrict__ y,
                const int64_t *__restrict__ subsets, int rows, double *__restrict__ w) {
    __shared__ double r_shared[kFitWarps][kInputs][kInputs + 1];  // R | Q^T b, row j from j on
    double(*r)[kInputs + 1] = r_shared[threadIdx.x / 32];
    const int lane = threadIdx.x % 32;
    const size_t neuron = blockIdx.x * kFitWarps + threadIdx.x / 32;
    for (int e = lane; e < kInputCount * (kInputCount + 1); e += 32)
        r[e / (kInputCount + 1)][e % (kInputCount + 1)] = 0;
    __syncwarp();
    const int64_t *subset = subsets + neuron * rows;
    for (int first = 0; first < rows; first += 32) {
        double a[kInputs + 1] = {};  // this lane's row and its target; zero past the rows
        if (first + lane < rows) {
            const int64_t i = subset[first + lane];
            for (int c = 0; c < kInputCount; ++c) a[c] = x[i * kInputCount + c];
            a[kInputs] = atanh(y[i]);
        }
#pragma unroll
        for (int j = 0; j < kInputCount; ++j) {
            // u = (R_jj - alpha; the rows' column j) (R's column j is zero below the
            // diagonal); alpha's sign opposite to R_jj's, u^T u = -2 alpha u_top as in the
            // reference, so reflecting a column c is c += (u . c) u / (alpha u_top).
            double r_row[kInputs + 1], dots[kInputs + 1];
#pragma unroll
            for (int c = j; c <= kInputCount; ++c) r_row[c] = r[j][c];
            const double norm = sqrt(r_row[j] * r_row[j] + warp_sum(a[j] * a[j]));
            const double alpha = r_row[j] > 0 ? -norm : norm, u_top = r_row[j] - alpha;
            const double scale = 1 / (alpha * u_top);
#pragma unroll
            for (int c = j + 1; c <= kInputCount; ++c) dots[c] = a[j] * a[c];
#pragma unroll
            for (int offset = 16; offset > 0; offset /= 2) {  // all columns' sums at once
#pragma unroll
                for (int c = j + 1; c <= kInputCount; ++c)
                    dots[c] += __shfl_xor_sync(~0u, dots[c], offset);
            }
#pragma unroll
            for (int c = j + 1; c <= kInputCount; ++c) {
                const double f = (u_top * r_row[c] + dots[c]) * scale;
                r_row[c] += f * u_top;
                a[c] += f * a[j];
            }
            r_row[j] = alpha;
            __syncwarp();  // every lane has read row j
            if (lane == 0) {
#pragma unroll
                for (int c = j; c <= kInputCount; ++c) r[j][c] = r_row[c];
            }
            __syncwarp();
        }
    }
    if (lane != 0) return;
    for (int j = kInputCount - 1; j >= 0; --j) {  // R w = (Q^T b)[0, kInputs), in column kInputs
        for (int c = j + 1; c < kInputCount; ++c) r[j][kInputs] -= r[j][c] * r[c][kInputs];
        r[j][kInputs] /= r[j][j];
        w[neuron * kInputs + j] = r[j][kInputs];
    }
}

// Rows [first, first + gridDim.y * kStepRows) of [tanh(X W^T) y 0], chunk-local, into h.
__global__ void __launch_bounds__(kHiddenThreads)
    hidden_chunk(const double *__restrict__ x, const double *__restrict__ y,
                 const double *__restrict__ w, size_t obs, size_t first, double *__restrict__ h) {
    const int column = blockIdx.x * kHiddenThreads + threadIdx.x;
    double w_k[kInputs] = {};
    if (column < kNeuronCount)
        for (int c = 0; c < kInputCount; ++c) w_k[c] = w[column * kInputCount + c];
    for (int r = 0; r < kStepRows; ++r) {
        const size_t chunk_row = size_t(blockIdx.y) * kStepRows + r, row = first + chunk_row;
        double value = 0;
        if (row < obs && column < kNeuronCount) {
            double dot = 0;  // in input order, as the reference's input_dot
            for (int c = 0; c < kInputCount; ++c) dot += x[row * kInputs + c] * w_k[c];
            value = tanh(dot);
        } else if (row < obs && column == kTargetColumn) {
            value = y[row];
        }
        h[chunk_row * kColumns + column] = value;
    }
}

// One pipeline stage: kStepRows rows of H, the columns of tile I (a) and of tile J (b).
struct GramStage {
    double a[kStepRows][kPadded], b[kStepRows][kPadded];
};
constexpr int kGramShared = kStages * int(sizeof(GramStage));  // 101 KB: opted in

using plugin_common::commit_copies, plugin_common::copy_async, plugin_common::wait_copies;

// Rows [row0, row0 + kStepRows) of h, columns [col_a, +kTile) and [col_b, +kTile), into a stage.
__device__ __forceinline__ void load_stage(const double *h, size_t row0, int col_a, int col_b,
                                           GramStage &stage) {
    constexpr int kPieces = kStepRows * kTile / 2;  // 16-byte pieces of a tile's rows
    static_assert(kPieces % kGramThreads == 0);
#pragma unroll
    for (int s = 0; s < kPieces / kGramThreads; ++s) {
        const int p = threadIdx.x + s * kGramThreads;
        const int row = p / (kTile / 2), col = p % (kTile / 2) * 2;
        const double *from = h + (row0 + row) * kColumns + col;
        copy_async<16>(&stage.a[row][col], from + col_a);
        copy_async<16>(&stage.b[row][col], from + col_b);
    }
    commit_copies();
}

// d += a b, 16 x 8 x 16, on the FP64 tensor cores (sm_90; the 8 x 8 x 4 shape runs at half
// Hopper's FP64 tensor rate). Fragment layout: plugins/common/mma_f64.cuh.
__device__ __forceinline__ void mma_16x8x16(double (&d)[4], const double (&a)[8],
                                            const double (&b)[4]) {
    plugin_common::mma_m16n8k16_f64(d, a, b);
}
static_assert(kStepRows == 16, "a stage is one k of mma_16x8x16");

// The warp's 32 x 64 of the block's tile (128 x 128, row-major), stored or added to it.
__device__ __forceinline__ void store_warp_tile(double *tile, int warp_i, int warp_j,
                                                bool accumulate, const double (&acc)[2][8][4]) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int m = 0; m < 2; ++m) {
#pragma unroll
        for (int n = 0; n < 8; ++n) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {  // D rows g and g + 8
                const int i = warp_i + 16 * m + g + 8 * half, j = warp_j + 8 * n + 2 * t;
                double2 *to = reinterpret_cast<double2 *>(tile + i * kTile + j);
                double2 sum = make_double2(acc[m][n][2 * half], acc[m][n][2 * half + 1]);
                if (accumulate) {
                    const double2 before = *to;
                    sum = make_double2(before.x + sum.x, before.y + sum.y);
                }
                *to = sum;
            }
        }
    }
}

// Block (pair, slice): tile (I, J), I >= J, of the chunk's [H y]^T [H y] over the slice's
// rows, stored (first chunk) or added to partials[slice][pair] (128 x 128, row-major).
__global__ void __launch_bounds__(kGramThreads, 1)
    gram_chunk(const double *__restrict__ h, int slice_rows, bool accumulate,
               double *__restrict__ partials) {
    extern __shared__ __align__(16) unsigned char shared[];
    GramStage *stages = reinterpret_cast<GramStage *>(shared);
    const int pair = blockIdx.x % kTilePairs, slice = blockIdx.x / kTilePairs;
    int tile_i = 0;
    while ((tile_i + 1) * (tile_i + 2) / 2 <= pair) ++tile_i;
    const int col_a = tile_i * kTile, col_b = (pair - tile_i * (tile_i + 1) / 2) * kTile;
    const size_t row0 = size_t(slice) * slice_rows;
    const int steps = slice_rows / kStepRows;

    // Warp tile 32 x 64: 2 x 8 products of 16 x 8. Fragment loads hit 16 distinct banks.
    const int warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    const int warp_i = warp / 2 * 32, warp_j = warp % 2 * 64;
    double acc[2][8][4] = {};
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < steps) load_stage(h, row0 + s * kStepRows, col_a, col_b, stages[s]);
        else commit_copies();
    }
    for (int step = 0; step < steps; ++step) {
        wait_copies<kStages - 2>();  // this thread's copies of `step` have landed
        __syncthreads();             // everyone's; and everyone is done with step - 1's stage
        const int next = step + kStages - 1;
        if (next < steps) load_stage(h, row0 + next * kStepRows, col_a, col_b, stages[next % kStages]);
        else commit_copies();
        const GramStage &stage = stages[step % kStages];
        double a[2][8];
#pragma unroll
        for (int m = 0; m < 2; ++m) {
#pragma unroll
            for (int i = 0; i < 8; ++i) a[m][i] = stage.a[t + 4 * (i / 2)][warp_i + 16 * m + g + 8 * (i % 2)];
        }
#pragma unroll
        for (int n = 0; n < 8; ++n) {
            double b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) b[i] = stage.b[t + 4 * i][warp_j + 8 * n + g];
            mma_16x8x16(acc[0][n], a[0], b);
            mma_16x8x16(acc[1][n], a[1], b);
        }
    }
    store_warp_tile(partials + (size_t(slice) * kTilePairs + pair) * kTile * kTile, warp_i,
                    warp_j, accumulate, acc);
}

// Element (i, j), j <= i, of the Gram, the slices summed in order: H^T H's lower triangle
// row-major into gram for i < kNeurons, H^T y into hty for i = kTargetColumn.
__global__ void sum_partials(const double *__restrict__ partials, double *__restrict__ gram,
                             double *__restrict__ hty) {
    const int i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= kNeuronCount || j > i) return;
    const int tile_i = i / kTile, pair = tile_i * (tile_i + 1) / 2 + j / kTile;
    const double *from = partials + (size_t(pair) * kTile + i % kTile) * kTile + j % kTile;
    double sum = 0;
    for (int s = 0; s < kSlices; ++s) sum += from[size_t(s) * kTilePairs * kTile * kTile];
    if (i < kNeuronCount) gram[size_t(i) * kNeurons + j] = sum;
    else hty[j] = sum;
}

// predictions[row] = sum over k, in order, of tanh(x_test[row] . w_k) v_k: a thread a row.
__global__ void __launch_bounds__(kPredictThreads)
    predict(const double *__restrict__ x_test, const double *__restrict__ w,
            const double *__restrict__ v, size_t obs, double *__restrict__ predictions) {
    __shared__ double neurons[kNeuronTile][kInputs + 1];  // w_k, then v_k: read as broadcasts
    const size_t row = size_t(blockIdx.x) * kPredictThreads + threadIdx.x;
    double x_row[kInputs] = {};
    if (row < obs)
        for (int c = 0; c < kInputCount; ++c) x_row[c] = x_test[row * kInputs + c];
    double sum = 0;
    for (int first = 0; first < kNeuronCount; first += kNeuronTile) {
        __syncthreads();  // the previous tile is read
        for (int e = threadIdx.x; e < kNeuronTile * (kInputCount + 1); e += kPredictThreads) {
            const int k = e / (kInputCount + 1), c = e % (kInputCount + 1);
            neurons[k][c] = c < kInputCount ? w[(first + k) * kInputCount + c] : v[first + k];
        }
        __syncthreads();
        for (int k = 0; k < kNeuronTile; ++k) {
            double dot = 0;
            for (int c = 0; c < kInputCount; ++c) dot += x_row[c] * neurons[k][c];
            sum += tanh(dot) * neurons[k][kInputs];
        }
    }
    if (row < obs) predictions[row] = sum;
}

class CudaTrainer {
public:
    // A chunk of H, the partial Gram tiles, H^T H, and an allowance for potrf's workspace
    // (queried in the constructor: scratch_bytes runs without a GPU).
    static double scratch_bytes(uint64_t obs) {
        const double partial_tiles = double(kSlices) * kTilePairs * kTile * kTile;
        return 8.0 * (double(plan_chunks(obs).chunk_rows()) * kColumns + partial_tiles +
                      double(kNeurons * kNeurons)) +
               double(4 << 20);
    }

    CudaTrainer(const ann::Task &task, const gpubench::Setup &setup)
        : obs_(task.obs()), rows_(int(ann::rows_per_neuron(obs_))), plan_(plan_chunks(obs_)),
          stream_(gpubench::cuda::stream_of(setup)), solver_(stream_),
          hidden_(plan_.chunk_rows() * kColumns),
          partials_(size_t(kSlices) * kTilePairs * kTile * kTile), gram_(kNeurons * kNeurons),
          info_(1) {
        int potrf = 0;
        ANN_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(solver_.get(), CUBLAS_FILL_MODE_UPPER,
                                                       kNeuronCount, gram_.data(), kNeuronCount,
                                                       &potrf));
        workspace_ = gpubench::cuda::DeviceBuffer<double>(std::max(potrf, 1));
        GPUBENCH_CUDA_CHECK(cudaFuncSetAttribute(
            gram_chunk, cudaFuncAttributeMaxDynamicSharedMemorySize, kGramShared));
    }

    void train(const ann::TrainingData &data, const ann::Model &model) {
        fit_neurons<<<kNeuronCount / kFitWarps, 32 * kFitWarps, 0, stream_>>>(
            data.x, data.y, data.subsets, rows_, model.w);
        gpubench::cuda::check_launch("fit_neurons");
        const dim3 hidden_grid(kColumns / kHiddenThreads, unsigned(plan_.chunk_rows() / kStepRows));
        for (size_t chunk = 0; chunk < plan_.chunks; ++chunk) {
            hidden_chunk<<<hidden_grid, kHiddenThreads, 0, stream_>>>(
                data.x, data.y, model.w, obs_, chunk * plan_.chunk_rows(), hidden_.data());
            gpubench::cuda::check_launch("hidden_chunk");
            gram_chunk<<<kTilePairs * kSlices, kGramThreads, kGramShared, stream_>>>(
                hidden_.data(), int(plan_.slice_rows), chunk > 0, partials_.data());
            gpubench::cuda::check_launch("gram_chunk");
        }
        sum_partials<<<dim3((kNeuronCount + 255) / 256, kNeuronCount + 1), 256, 0, stream_>>>(
            partials_.data(), gram_.data(), model.v);
        gpubench::cuda::check_launch("sum_partials");
        ann::add_ridge<<<1, ann::kRidgeThreads, 0, stream_>>>(gram_.data());
        gpubench::cuda::check_launch("add_ridge");
        ANN_CUSOLVER_CHECK(cusolverDnDpotrf(solver_.get(), CUBLAS_FILL_MODE_UPPER, kNeuronCount,
                                            gram_.data(), kNeuronCount, workspace_.data(),
                                            int(workspace_.size()), info_.data()));
        ANN_CUSOLVER_CHECK(cusolverDnDpotrs(solver_.get(), CUBLAS_FILL_MODE_UPPER, kNeuronCount, 1,
                                            gram_.data(), kNeuronCount, model.v, kNeuronCount,
                                            info_.data()));
        const unsigned predict_blocks = unsigned((obs_ + kPredictThreads - 1) / kPredictThreads);
        predict<<<predict_blocks, kPredictThreads, 0, stream_>>>(data.x_test, model.w, model.v,
                                                                 obs_, model.predictions);
        gpubench::cuda::check_launch("predict");
    }

private:
    size_t obs_;
    int rows_;
    ChunkPlan plan_;
    cudaStream_t stream_;
    ann::cusolver::Handle solver_;
    gpubench::cuda::DeviceBuffer<double> hidden_, partials_, gram_, workspace_;
    gpubench::cuda::DeviceBuffer<int> info_;
};

using CudaPlugin = gpubench::cuda::DeviceProblem<ann::DeviceArrays<kCuda, CudaTrainer>>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, ann::make_info(kCuda))
