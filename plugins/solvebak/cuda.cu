// Hand-written CUDA SolveBak: ONE kernel launch per column step (per block of `batch`
// columns), with no scalar ever leaving the device.
//
// A step's residual update and the next step's dot products touch the same rows of e, and
// the only thing the update needs from the whole grid is da of the previous step, which the
// previous launch finished. So launch k fuses them: each thread loads its rows of e into
// registers, applies the previous step (e -= X_prev da_prev), stores them, and computes its
// share of this step's dots X_cur^T e from the same registers. Each thread block writes one
// partial sum per column; the last block to arrive (an atomic ticket, after a
// __threadfence) adds the partials in block order, so the result is deterministic, and
// writes da = t / |X_j|^2 and a_j += da. The kernel boundary is the grid-wide barrier.
//
// Every step has a previous one: the first step of an iteration applies the last block of
// columns of the iteration before, and at the start of a run da = 0, so that update leaves
// e unchanged (one extra pass over one block of columns per run). Every iteration is thus
// the same sequence of launches, captured once as a CUDA graph (graph=1).
#include "solvebak_gpu.hpp"

#include <algorithm>

namespace {

const gpubench::BackendSpec kCuda{
    "solvebak_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "SolveBak least squares by coordinate descent, one hand-written CUDA kernel per "
    "column step (the previous step's residual update fused with this step's dot "
    "products; the last thread block divides and updates a on the device), each iteration "
    "replayed as a CUDA graph (graph=1) (max_size 4e6: X is 32 GB in float64)",
    4'000'000, {1'000, 10'000, 100'000, 1'000'000}, solvebak::kGpuParams};

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kMaxRowsPerThread = 8;  // rows of e a thread keeps in registers

template <class T>
struct StepArgs {
    const T *x, *x_x;
    T *e, *a, *da;             // da: each column's latest step
    T *partials;               // [batch][blocks] per-block dot products
    unsigned int *arrivals;    // blocks done with this launch; the last one resets it
    long long obs;
    int rows_per_thread;
    int prev, prev_count;      // columns of the previous step: [prev, prev + prev_count)
    int cur, cur_count;        // columns of this step
};

template <class T>
__device__ __forceinline__ T warp_sum(T value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

// The block's sum, valid in thread 0, in a fixed order. One barrier: the caller alternates
// two scratch arrays, so a later call never overwrites what thread 0 is still reading.
template <class T>
__device__ __forceinline__ T block_sum(T value, T *scratch) {
    value = warp_sum(value);
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = value;
    __syncthreads();
    T total = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < kWarps; ++w) total += scratch[w];
    return total;
}

// The previous step's update of this thread's rows of e (row first_row + k * kThreads in
// e_rows[k]), stored back to e.
template <class T>
__device__ __forceinline__ void update_residual(const StepArgs<T> s, long long first_row,
                                                T (&e_rows)[kMaxRowsPerThread]) {
#pragma unroll
    for (int k = 0; k < kMaxRowsPerThread; ++k) {
        const long long row = first_row + k * kThreads;
        e_rows[k] = k < s.rows_per_thread && row < s.obs ? s.e[row] : T(0);
    }
    for (int b = 0; b < s.prev_count; ++b) {
        const T da = s.da[s.prev + b];
        const T *column = s.x + static_cast<size_t>(s.prev + b) * s.obs;
#pragma unroll
        for (int k = 0; k < kMaxRowsPerThread; ++k) {
            const long long row = first_row + k * kThreads;
            if (k < s.rows_per_thread && row < s.obs) e_rows[k] -= da * column[row];
        }
    }
#pragma unroll
    for (int k = 0; k < kMaxRowsPerThread; ++k) {
        const long long row = first_row + k * kThreads;
        if (k < s.rows_per_thread && row < s.obs) s.e[row] = e_rows[k];
    }
}

// In the last block: each column's dot product from every block's partial, da = dot / |X_j|^2
// and a_j += da. One warp per column; lanes stride over the blocks in a fixed order. When
// prev == cur (one block of columns per iteration) every block read da before taking its
// ticket, so overwriting it here races with nothing.
template <class T>
__device__ __forceinline__ void finish_columns(const StepArgs<T> s) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int b = warp; b < s.cur_count; b += kWarps) {
        const T *column_partials = s.partials + static_cast<size_t>(b) * gridDim.x;
        T dot = 0;
        for (unsigned int k = lane; k < gridDim.x; k += 32) dot += __ldcg(column_partials + k);
        dot = warp_sum(dot);
        if (lane == 0) {
            const T da = dot / s.x_x[s.cur + b];
            s.da[s.cur + b] = da;
            s.a[s.cur + b] += da;
        }
    }
    if (threadIdx.x == 0) *s.arrivals = 0;  // ready for the next launch
}

template <class T>
__global__ void __launch_bounds__(kThreads) column_step(const StepArgs<T> s) {
    __shared__ T warp_sums[2][kWarps];
    __shared__ bool last_block;
    const long long first_row =
        static_cast<long long>(blockIdx.x) * s.rows_per_thread * kThreads + threadIdx.x;

    T e_rows[kMaxRowsPerThread];
    update_residual(s, first_row, e_rows);
    for (int b = 0; b < s.cur_count; ++b) {  // this step's dot products, one partial each
        const T *column = s.x + static_cast<size_t>(s.cur + b) * s.obs;
        T dot = 0;
#pragma unroll
        for (int k = 0; k < kMaxRowsPerThread; ++k) {
            const long long row = first_row + k * kThreads;
            if (k < s.rows_per_thread && row < s.obs) dot += column[row] * e_rows[k];
        }
        dot = block_sum(dot, warp_sums[b & 1]);
        if (threadIdx.x == 0) s.partials[static_cast<size_t>(b) * gridDim.x + blockIdx.x] = dot;
    }

    // Publish the partials, then take a ticket; the last block sees every block's partials.
    if (threadIdx.x == 0) {
        __threadfence();
        last_block = atomicAdd(s.arrivals, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last_block) return;
    __threadfence();
    finish_columns(s);
}

template <class T>
class CudaSolver {
public:
    CudaSolver(const solvebak::Config &config, const gpubench::Setup &setup,
               solvebak::DeviceData<T> data, cudaStream_t stream)
        : c_(config), stream_(stream), da_(config.vars), arrivals_(1) {
        int sms = 0;
        GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                   setup.cuda_device));
        // Enough rows per thread for ~2 blocks per SM, at most what registers hold.
        const size_t per_block_target = static_cast<size_t>(kThreads) * 2 * std::max(sms, 1);
        const size_t rows_per_thread = std::clamp<size_t>(
            (config.obs + per_block_target - 1) / per_block_target, 1, kMaxRowsPerThread);
        const size_t rows_per_block = rows_per_thread * kThreads;
        blocks_ = static_cast<unsigned int>((config.obs + rows_per_block - 1) / rows_per_block);
        partials_ = gpubench::cuda::DeviceBuffer<T>(config.batch * blocks_);

        args_.x = data.x;
        args_.x_x = data.x_x;
        args_.e = data.e;
        args_.a = data.a;
        args_.da = da_.data();
        args_.partials = partials_.data();
        args_.arrivals = arrivals_.data();
        args_.obs = static_cast<long long>(config.obs);
        args_.rows_per_thread = static_cast<int>(rows_per_thread);
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(arrivals_.data(), 0, arrivals_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    // da = 0: the first step's update of e (by the last columns) changes nothing.
    void begin_run(cudaStream_t runner_stream) {
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(da_.data(), 0, da_.bytes(), runner_stream));
    }

    void enqueue_iteration() {
        const size_t last = (c_.blocks_per_iteration() - 1) * c_.batch;
        for (size_t j0 = 0; j0 < c_.vars; j0 += c_.batch) {
            StepArgs<T> step = args_;
            const size_t prev = j0 == 0 ? last : j0 - c_.batch;
            step.prev = static_cast<int>(prev);
            step.prev_count = static_cast<int>(std::min(c_.batch, c_.vars - prev));
            step.cur = static_cast<int>(j0);
            step.cur_count = static_cast<int>(std::min(c_.batch, c_.vars - j0));
            column_step<T><<<blocks_, kThreads, 0, stream_>>>(step);
            gpubench::cuda::check_launch("column_step");
        }
    }

private:
    solvebak::Config c_;
    cudaStream_t stream_;
    gpubench::cuda::DeviceBuffer<T> da_, partials_;
    gpubench::cuda::DeviceBuffer<unsigned int> arrivals_;
    unsigned int blocks_ = 0;
    StepArgs<T> args_{};
};

template <class T>
using CudaProblem = gpubench::cuda::DeviceProblem<solvebak::DeviceArrays<T, CudaSolver<T>>>;
using CudaPlugin = solvebak::Plugin<kCuda, CudaProblem>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, solvebak::make_info(kCuda))
