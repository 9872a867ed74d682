// A hand-written CUDA GEMM: shared-memory tiling plus register blocking.
//
// Each 256-thread block computes a 128 x 128 tile of C, stepping through K 8 at a time.
// Per step it stages a 128 x 8 slice of A (stored transposed, so a column is contiguous)
// and an 8 x 128 slice of B in shared memory, double-buffered: the global loads for step
// t+1 are issued before the math of step t and land in the other buffer afterwards, so
// one __syncthreads per step suffices. Each thread owns an 8 x 8 block of C in registers,
// split into 2 x 2 sub-blocks of 4 x 4 spaced 64 apart: its shared-memory reads are
// 16-byte vectors, contiguous across the warp (no bank conflicts), and every value read
// feeds 8 FMAs. Blocks are ordered in groups of 8 tile rows so that blocks running at the
// same time share A and B tiles in L2.
//
// When N is a multiple of 128 every tile is whole: 16-byte global loads and stores, no
// bounds checks. Otherwise the Checked instantiation bounds-checks every element.
#include "matmul_gpu.hpp"

namespace {

const gpubench::BackendSpec kCuda{
    "matmul_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "C = A*B, hand-written CUDA GEMM: 128x128 shared-memory tiles, 8x8 outputs "
    "per thread",
    32768, {64, 128, 256, 512, 1024, 2048, 4096}};

constexpr int kThreads = 256;
constexpr int kBM = 128, kBN = 128, kBK = 8;  // block tile: C rows, C columns, K depth
constexpr int kSub = 4;                       // thread tile: 2 x 2 sub-blocks of 4 x 4,
constexpr int kTM = 2 * kSub, kTN = 2 * kSub;  // the second one 64 rows/columns further
constexpr int kPadA = 4;      // pads the transposed A rows: its stores hit distinct banks
constexpr int kGroupRows = 8;  // tile rows per group of the block order
static_assert((kBM / kTM) * (kBN / kTN) == kThreads, "one thread per thread tile");

template <class T>
constexpr int kVec = 16 / sizeof(T);  // elements per 16-byte vector
template <class T>
constexpr int kALoads = kBM * kBK / (kThreads * kVec<T>);  // vectors per thread per step
template <class T>
constexpr int kBLoads = kBK * kBN / (kThreads * kVec<T>);
// float needs ~128 registers: 2 blocks per SM. double needs twice the accumulator space.
template <class T>
constexpr int kMinBlocksPerSM = sizeof(T) == 4 ? 2 : 1;

// 16-byte vector moves between memory and a register array.
__device__ __forceinline__ void load16(const float *from, float *to) {
    const float4 v = *reinterpret_cast<const float4 *>(from);
    to[0] = v.x, to[1] = v.y, to[2] = v.z, to[3] = v.w;
}
__device__ __forceinline__ void load16(const double *from, double *to) {
    const double2 v = *reinterpret_cast<const double2 *>(from);
    to[0] = v.x, to[1] = v.y;
}
__device__ __forceinline__ void store16(float *to, const float *from) {
    *reinterpret_cast<float4 *>(to) = make_float4(from[0], from[1], from[2], from[3]);
}
__device__ __forceinline__ void store16(double *to, const double *from) {
    *reinterpret_cast<double2 *>(to) = make_double2(from[0], from[1]);
}

template <class T>
struct Stage {  // this thread's share of one K step of A and B, on its way to shared memory
    T a[kALoads<T> * kVec<T>];
    T b[kBLoads<T> * kVec<T>];
};

// Where this thread's s-th vector lies in a slice Cols elements wide: coalesced, since
// consecutive threads take consecutive vectors of a row.
template <class T, int Cols>
__device__ __forceinline__ int2 slice_position(int s) {
    const int v = threadIdx.x + s * kThreads, per_row = Cols / kVec<T>;
    return make_int2(v / per_row, v % per_row * kVec<T>);
}

// Global -> registers: this thread's vectors of the Rows x Cols slice of src at (row0, col0).
template <class T, bool Checked, int Rows, int Cols>
__device__ __forceinline__ void load_slice(const T *__restrict__ src, int n, int row0, int col0,
                                           T *out) {
    constexpr int vec = kVec<T>;
#pragma unroll
    for (int s = 0; s < Rows * Cols / (kThreads * vec); ++s) {
        const int2 at = slice_position<T, Cols>(s);
        const int row = row0 + at.x, col = col0 + at.y;
        if constexpr (!Checked) {
            load16(src + row * n + col, out + s * vec);
        } else {
#pragma unroll
            for (int e = 0; e < vec; ++e)
                out[s * vec + e] = row < n && col + e < n ? src[row * n + col + e] : T(0);
        }
    }
}

// A[m0 .. m0+128, k0 .. k0+8) and B[k0 .. k0+8, n0 .. n0+128) into registers.
template <class T, bool Checked>
__device__ __forceinline__ void load_stage(const T *__restrict__ a, const T *__restrict__ b,
                                           int n, int m0, int n0, int k0, Stage<T> &stage) {
    load_slice<T, Checked, kBM, kBK>(a, n, m0, k0, stage.a);
    load_slice<T, Checked, kBK, kBN>(b, n, k0, n0, stage.b);
}

// Registers -> shared memory, A transposed to as[k][m].
template <class T>
__device__ __forceinline__ void store_stage(const Stage<T> &stage, T (*as)[kBM + kPadA],
                                            T (*bs)[kBN]) {
    constexpr int vec = kVec<T>;
#pragma unroll
    for (int s = 0; s < kALoads<T>; ++s) {
        const int2 at = slice_position<T, kBK>(s);
#pragma unroll
        for (int e = 0; e < vec; ++e) as[at.y + e][at.x] = stage.a[s * vec + e];
    }
#pragma unroll
    for (int s = 0; s < kBLoads<T>; ++s) {
        const int2 at = slice_position<T, kBN>(s);
        store16(&bs[at.x][at.y], stage.b + s * vec);
    }
}

// Row (or column) of C, within the block tile, of entry i of a thread's 8-entry tile.
__device__ __forceinline__ int tile_offset(int i, int thread_group, int block_extent) {
    return i / kSub * (block_extent / 2) + thread_group * kSub + i % kSub;
}

template <class T, bool Checked>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSM<T>)
    gemm_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c, int n) {
    __shared__ __align__(16) T as[2][kBK][kBM + kPadA];
    __shared__ __align__(16) T bs[2][kBK][kBN];
    constexpr int vec = kVec<T>;

    // Block order: down the tile rows of a group of kGroupRows, then across its columns.
    const int tiles_m = (n + kBM - 1) / kBM, tiles_n = (n + kBN - 1) / kBN;
    const int group = blockIdx.x / (kGroupRows * tiles_n);
    const int first_m = group * kGroupRows;
    const int group_m = min(tiles_m - first_m, kGroupRows);
    const int in_group = blockIdx.x % (kGroupRows * tiles_n);
    const int m0 = (first_m + in_group % group_m) * kBM, n0 = in_group / group_m * kBN;

    const int tx = threadIdx.x % (kBN / kTN), ty = threadIdx.x / (kBN / kTN);
    T acc[kTM][kTN] = {};
    Stage<T> stage;
    load_stage<T, Checked>(a, b, n, m0, n0, 0, stage);
    store_stage(stage, as[0], bs[0]);
    __syncthreads();

    const int steps = (n + kBK - 1) / kBK;
    for (int t = 0; t < steps; ++t) {
        const int cur = t & 1;
        const bool more = t + 1 < steps;
        if (more) load_stage<T, Checked>(a, b, n, m0, n0, (t + 1) * kBK, stage);
#pragma unroll
        for (int k = 0; k < kBK; ++k) {
            T a_frag[kTM], b_frag[kTN];
#pragma unroll
            for (int q = 0; q < kTM; q += vec)
                load16(&as[cur][k][tile_offset(q, ty, kBM)], a_frag + q);
#pragma unroll
            for (int q = 0; q < kTN; q += vec)
                load16(&bs[cur][k][tile_offset(q, tx, kBN)], b_frag + q);
#pragma unroll
            for (int i = 0; i < kTM; ++i)
#pragma unroll
                for (int j = 0; j < kTN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        if (more) {  // the other buffer was last read before the previous barrier
            store_stage(stage, as[cur ^ 1], bs[cur ^ 1]);
            __syncthreads();
        }
    }

#pragma unroll
    for (int i = 0; i < kTM; ++i) {
        const int row = m0 + tile_offset(i, ty, kBM);
#pragma unroll
        for (int j = 0; j < kTN; j += vec) {
            const int col = n0 + tile_offset(j, tx, kBN);
            if constexpr (!Checked) {
                store16(c + row * n + col, &acc[i][j]);
            } else {
#pragma unroll
                for (int e = 0; e < vec; ++e)
                    if (row < n && col + e < n) c[row * n + col + e] = acc[i][j + e];
            }
        }
    }
}

template <class T>
class CudaKernel {
public:
    CudaKernel(size_t n, const gpubench::Setup &setup)
        : n_(static_cast<int>(n)), stream_(gpubench::cuda::stream_of(setup)) {}

    void multiply(const T *a, const T *b, T *c) {
        const int blocks = ((n_ + kBM - 1) / kBM) * ((n_ + kBN - 1) / kBN);
        if (n_ % kBM == 0 && n_ % kBN == 0)
            gemm_kernel<T, false><<<blocks, kThreads, 0, stream_>>>(a, b, c, n_);
        else
            gemm_kernel<T, true><<<blocks, kThreads, 0, stream_>>>(a, b, c, n_);
        gpubench::cuda::check_launch("gemm_kernel");
    }

private:
    int n_;
    cudaStream_t stream_;
};

template <class T>
using CudaProblem = matmul::DeviceProblem<T, CudaKernel<T>>;
using CudaPlugin = matmul::Plugin<kCuda, CudaProblem>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, matmul::make_info(kCuda))
