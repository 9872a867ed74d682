// A hand-written CUDA GEMM: float32 on the TF32 tensor cores at float32's accuracy (3xTF32,
// matmul_tf32x3.cuh; the default, kernel=tensor) or on the FP32 pipes (plain FFMA,
// kernel=ffma, below), float64 on the FP64 tensor cores (matmul_dmma.cuh).
//
// Both kernels stream K through shared memory in a cp.async pipeline (matmul_dmma.cuh),
// three stages deep for float32 and two for float64: the copies of the next K steps are in
// flight while the math of the current one runs, with no staging registers and one barrier
// per step.
//
// float32: a 256-thread block computes a 128 x 128 tile of C, 32 K columns per stage, two
// blocks per SM. A is stored transposed in shared memory (as[k][m]) by 4-byte copies, so
// that a thread's A values of one k are contiguous; B keeps its layout and comes in 16-byte
// copies. Each warp owns a 64 x 32 sub-tile, its lanes as 8 x 4, each lane an 8 x 8 block
// of C in registers made of 4 x 4 sub-blocks 32 rows / 16 columns apart: per k a lane's
// shared reads are four 16-byte vectors that fall in distinct banks across the warp, and
// every value read feeds 8 FMAs. The copy offsets are worked out once per thread, so the
// K loop is FFMAs and shared loads plus a few copies per stage.
//
// When N is a multiple of the tile every tile is whole: 16-byte copies and stores, no bounds
// checks. Otherwise the Checked instantiations copy element by element with zero fill and
// bounds-check the stores.
#include "matmul_gpu.hpp"
#include "matmul_dmma.cuh"
#include "matmul_tf32x3.cuh"

#include <initializer_list>
#include <type_traits>

namespace {

using namespace matmul_tiles;

const gpubench::BackendSpec kCuda{
    "matmul_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "C = A*B, hand-written CUDA GEMM over a cp.async shared-memory pipeline: float32 with kernel=ffma on "
    "FFMA (128x128x32 tiles, 3 stages, 8x8 outputs per thread, no tensor cores), float64 "
    "on the FP64 tensor cores (mma.sync m16n8k8, 128x64x16 tiles whose 16-byte chunks are "
    "XOR-swizzled, 3 stages, the next 8-deep slab's fragments loaded during the MMAs); "
    "bounds-checked kernels when N is not "
    "a multiple of the tile; before sm_90, which has no FP64 MMA of that shape, the same "
    "fragments are computed with shuffles and DFMAs. kernel=tensor (the default) runs float32 "
    "on the TF32 tensor cores at float32's accuracy instead (3xTF32: each input split in two "
    "TF32 halves, three MMAs a product, 128x128x32 tiles, 3 stages); kernel=ffma keeps FFMA",
    32768, {64, 128, 256, 512, 1024, 2048, 4096}};

// ---- float32 on the FP32 pipes ----
namespace sgemm {

constexpr int kThreads = 256;
constexpr int kLaneRows = 8, kLaneCols = 4;  // a warp's lanes as 8 x 4
constexpr int kSub = 4;                      // lane tiles are made of 4 x 4 sub-blocks

template <int BM_, int BN_, int BK_, int TM_, int TN_, int Stages_, int MinBlocksPerSM_>
struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile, K depth per stage
    static constexpr int TM = TM_, TN = TN_;  // lane tile
    static constexpr int Stages = Stages_, MinBlocksPerSM = MinBlocksPerSM_;
    static constexpr int WarpM = kLaneRows * TM, WarpN = kLaneCols * TN;  // warp tile
    // as[k][m]: the pad puts the 4-byte copies of a warp (8 k x 4 m) in distinct banks.
    static constexpr int AStride = BM + 4;
    static constexpr int StageFloats = BK * AStride + BK * BN;
    static constexpr int SharedBytes = Stages * StageFloats * sizeof(float);
    static_assert((BM / WarpM) * (BN / WarpN) == kThreads / 32, "one warp per warp tile");
    static_assert(BM % (kThreads / 8) == 0 && BK % 8 == 0, "A copies in whole passes");
    using CopyB = TileCopy<float, BK, BN, BN, kThreads>;
};

__device__ __forceinline__ void load16(const float *from, float *to) {
    const float4 v = *reinterpret_cast<const float4 *>(from);
    to[0] = v.x, to[1] = v.y, to[2] = v.z, to[3] = v.w;
}

// One thread's share of copying A[m0 .. m0+BM, k0 .. k0+BK) into as[k][m], 4 bytes per
// copy. The 32 lanes of a warp take 8 consecutive k of 4 rows: whole 32-byte sectors in
// global memory, and 32 distinct banks in shared memory (row stride BM + 4).
template <class Cfg>
struct TransposingCopy {
    static constexpr int kRowsPerPass = kThreads / 8;
    int row, col;     // this thread's first element in A, tile at k0 = 0
    int dst;          // and in as
    int pass_stride;  // kRowsPerPass rows of A

    __device__ __forceinline__ TransposingCopy(int n, int m0) {
        const int k = threadIdx.x % 8, m = threadIdx.x / 8;
        row = m0 + m, col = k, dst = k * Cfg::AStride + m, pass_stride = kRowsPerPass * n;
    }

    template <bool Checked>
    __device__ __forceinline__ void issue(const float *__restrict__ a, int n, int k0,
                                          float *as) const {
        const float *from = a + row * n + col + k0;
#pragma unroll
        for (int kh = 0; kh < Cfg::BK / 8; ++kh)
#pragma unroll
            for (int p = 0; p < Cfg::BM / kRowsPerPass; ++p) {
                float *to = as + dst + kh * 8 * Cfg::AStride + p * kRowsPerPass;
                if constexpr (!Checked) {
                    copy_async<4>(to, from + p * pass_stride + kh * 8);
                } else {
                    const int r = row + p * kRowsPerPass, c = col + k0 + kh * 8;
                    const bool inside = r < n && c < n;
                    copy_async<4>(to, inside ? a + r * n + c : a, inside);
                }
            }
    }
};

struct LanePlace {  // the corner of a lane's first sub-block in the block tile
    int row, col;
};

template <class Cfg>
__device__ __forceinline__ LanePlace lane_place() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int warps_n = Cfg::BN / Cfg::WarpN;
    return {warp / warps_n * Cfg::WarpM + lane % kLaneRows * kSub,
            warp % warps_n * Cfg::WarpN + lane / kLaneRows * kSub};
}

// Row (column) offset of entry i of a lane's tile from its first sub-block.
__device__ __forceinline__ int lane_offset(int i, int lanes) { return i / kSub * lanes * kSub + i % kSub; }

// acc += the stage's BM x BK slice of A times its BK x BN slice of B.
template <class Cfg>
__device__ __forceinline__ void multiply_stage(const float *as, const float *bs, LanePlace p,
                                               float (&acc)[Cfg::TM][Cfg::TN]) {
#pragma unroll
    for (int k = 0; k < Cfg::BK; ++k) {
        float a_frag[Cfg::TM], b_frag[Cfg::TN];
#pragma unroll
        for (int i = 0; i < Cfg::TM; i += kSub)
            load16(&as[k * Cfg::AStride + p.row + lane_offset(i, kLaneRows)], a_frag + i);
#pragma unroll
        for (int j = 0; j < Cfg::TN; j += kSub)
            load16(&bs[k * Cfg::BN + p.col + lane_offset(j, kLaneCols)], b_frag + j);
        // Rows in snake order (odd rows right to left), so that consecutive FFMAs across a
        // row end share b_frag[j]. Same instructions and results as row order, but ptxas's
        // schedule of it stalls less at dispatch (ncu, H100, 8192: 0.29 against 0.49 per
        // instruction): 16384 in 174.1 instead of 179.0 ms, 0.933 of cuBLAS.
#pragma unroll
        for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
            for (int step = 0; step < Cfg::TN; ++step) {
                const int j = i % 2 == 0 ? step : Cfg::TN - 1 - step;
                acc[i][j] += a_frag[i] * b_frag[j];
            }
    }
}

template <class Cfg, bool Checked>
__device__ __forceinline__ void store_tile(float *c, int n, int2 origin, LanePlace p,
                                           const float (&acc)[Cfg::TM][Cfg::TN]) {
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
        const int row = origin.x + p.row + lane_offset(i, kLaneRows);
#pragma unroll
        for (int j = 0; j < Cfg::TN; j += kSub) {
            const int col = origin.y + p.col + lane_offset(j, kLaneCols);
            if constexpr (!Checked) {
                *reinterpret_cast<float4 *>(c + row * n + col) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            } else {
#pragma unroll
                for (int e = 0; e < kSub; ++e)
                    if (row < n && col + e < n) c[row * n + col + e] = acc[i][j + e];
            }
        }
    }
}

template <class Cfg, bool Checked>
__global__ void __launch_bounds__(kThreads, Cfg::MinBlocksPerSM)
    sgemm_kernel(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ c, int n) {
    extern __shared__ __align__(16) float shared[];
    const int2 origin = tile_origin<Cfg::BM, Cfg::BN>(n);
    const LanePlace p = lane_place<Cfg>();
    const TransposingCopy<Cfg> copy_a(n, origin.x);
    const typename Cfg::CopyB copy_b(n, 0, origin.y);
    float acc[Cfg::TM][Cfg::TN] = {};

    auto a_slot = [&](int slot) { return shared + slot * Cfg::StageFloats; };
    auto b_slot = [&](int slot) { return shared + slot * Cfg::StageFloats + Cfg::BK * Cfg::AStride; };
    auto load = [&](int slot, int step) {
        copy_a.template issue<Checked>(a, n, step * Cfg::BK, a_slot(slot));
        copy_b.template issue<Checked>(b, n, step * Cfg::BK, 0, b_slot(slot));
    };
    auto compute = [&](int slot) { multiply_stage<Cfg>(a_slot(slot), b_slot(slot), p, acc); };
    pipeline_over_k<Cfg::Stages>((n + Cfg::BK - 1) / Cfg::BK, load, compute);

    store_tile<Cfg, Checked>(c, n, origin, p, acc);
}

}  // namespace sgemm

// Tile shapes, tuned on the H100 (see the header comments).
using F32Tiles = sgemm::Config<128, 128, 32, 8, 8, 3, 2>;
// float64: three stages, the next slab's fragments loaded while the current one's MMAs run
// (H100, the runner's own sweeps, cuBLAS in the same run, 2026-11-28: 0.956 of cuBLAS at 4096
// and 0.958 at 8192; the same main loop with two stages 0.941 and 0.949; the earlier main
// loop, which loaded a slab's fragments and then multiplied them, 0.90 at both with two
// stages, a little less with three). Probed and slower with the earlier main loop: 128 x 128
// tiles at one block per SM (0.80-0.86 in a probe against cublasDgemm in one process), K
// depth 32 (0.69-0.76), three blocks per SM (0.87-0.91), 128 x 32 tiles (0.71-0.76), and
// mma.sync m16n8k16 (half the MMA instructions, B swizzled in shared memory: 0.78-0.85 in
// every shape tried). On the H200 (probes against cublasDgemm in one process, 2026-11-30):
// 128 x 128 tiles at one block per SM 0.92-0.95, K depth 32 0.74-0.89, block-order groups of 4
// or 16 rows no better than 8, 8-byte fragment loads (ptxas merges ld.shared.f64 pairs into
// LDS.128 again) and the next slab's A loads between the MMAs no better. Unpadded tiles with
// swizzled chunks (matmul_dmma.cuh), which remove the 14% excess L2 sectors and 22% excess
// shared wavefronts of padded rows, were no faster with clocks locked by ncu, but are at full
// clocks, where the DGEMM runs near the power cap: with the mma no longer volatile, 0.96-1.00
// of cuBLAS at 8192 in probes of 2026-12-01 against 0.95-0.96 for the padded kernel. Four
// stages, or groups of 16 to 64 tile rows, read more DRAM (up to 6x at 8192) and were slower.
using F64Tiles = matmul_dmma::Config<64, 16, 3, 2>;

// The two instantiations of a kernel (whole tiles, bounds-checked) and its launch shape.
template <class T>
struct Launcher {
    using Kernel = void (*)(const T *, const T *, T *, int);
    Kernel whole, checked;
    int tile_m, tile_n, threads, shared_bytes;

    void allow_shared_memory() const {  // above the 48 KiB a block gets by default
        for (Kernel kernel : {whole, checked})
            GPUBENCH_CUDA_CHECK(cudaFuncSetAttribute(
                kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    }

    void launch(cudaStream_t stream, const T *a, const T *b, T *c, int n) const {
        const int blocks = ((n + tile_m - 1) / tile_m) * ((n + tile_n - 1) / tile_n);
        const Kernel kernel = n % tile_m == 0 && n % tile_n == 0 ? whole : checked;
        kernel<<<blocks, threads, shared_bytes, stream>>>(a, b, c, n);
        gpubench::cuda::check_launch("matmul_cuda gemm kernel");
    }
};

// The kernel the settings ask for: float32's FFMA or 3xTF32 one, float64's.
template <class T>
Launcher<T> launcher_for(const gpubench::Params &params) {
    if constexpr (std::is_same_v<T, float>) {
        if (matmul::tensor_kernel(params)) {
            int device = 0, major = 0;
            GPUBENCH_CUDA_CHECK(cudaGetDevice(&device));
            GPUBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
            if (major < 8) throw gpubench::NotSupported("kernel=tensor needs TF32 tensor cores (sm_80 on): kernel=ffma runs here");
            namespace x3 = matmul_tf32x3;
            return {x3::gemm_kernel<false>, x3::gemm_kernel<true>, x3::kBM, x3::kBN, x3::kThreads, x3::kSharedBytes};
        }
        return {sgemm::sgemm_kernel<F32Tiles, false>, sgemm::sgemm_kernel<F32Tiles, true>,
                F32Tiles::BM, F32Tiles::BN, sgemm::kThreads, F32Tiles::SharedBytes};
    } else
        return {matmul_dmma::dgemm_kernel<F64Tiles, false>,
                matmul_dmma::dgemm_kernel<F64Tiles, true>, matmul_dmma::kBM, F64Tiles::BN,
                F64Tiles::Threads, F64Tiles::SharedBytes};
}

template <class T>
class CudaKernel {
public:
    CudaKernel(size_t n, const gpubench::Setup &setup)
        : n_(static_cast<int>(n)),
          stream_(gpubench::cuda::stream_of(setup)),
          launcher_(launcher_for<T>(setup.params)) {
        launcher_.allow_shared_memory();
    }

    void multiply(const T *a, const T *b, T *c) { launcher_.launch(stream_, a, b, c, n_); }

private:
    int n_;
    cudaStream_t stream_;
    Launcher<T> launcher_;
};

// matmul's rules, with the work of the kernel the settings pick: float32 on the tensor cores
// is read against the TF32 peak (3xTF32 issues three MMAs a product, so a third of it is its
// ceiling), so that a fast kernel is never taken for impossible against the FP32 pipes' peak.
struct CudaRules : matmul::Rules {
    static gpubench::Work work(const gpubench::BackendSpec &spec, uint64_t n, const gpubench::Params &params) {
        gpubench::Work w = matmul::make_work(spec, n, params);
        if (matmul::parse_dtype(params) == matmul::Dtype::float32 && matmul::tensor_kernel(params))
            w.math = GPUBENCH_MATH_TENSOR_TF32;
        return w;
    }
    static constexpr auto make_work = &work;
};

template <class T>
using CudaProblem = gpubench::cuda::DeviceProblem<matmul::DeviceArrays<T, CudaKernel<T>>>;
using CudaPlugin = gpubench::ProblemChosenByParams<CudaRules, kCuda, CudaProblem, float, double>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, matmul::make_info(kCuda, {matmul::kKernelParam}))
