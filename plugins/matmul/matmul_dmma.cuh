// The parts of matmul_cuda that both kernels share -- asynchronous global -> shared copies
// (cp.async), the multi-stage pipeline over K and the block order -- and the float64 kernel,
// on the FP64 tensor cores (DMMA, through inline PTX mma.sync). Included by cuda.cu only.
//
// float64: a 128-thread block computes a 128 x 64 tile of C, 16 K columns per stage, three stages
// deep (cuda.cu's F64Tiles), in unpadded tiles whose 16-byte chunks are swizzled (SwizzleA,
// SwizzleB); two blocks per SM, so that one block's barrier waits are covered by the other's math;
// each warp loads its next slab's fragments while the MMAs of the current one run
// (multiply_over_k; 255 registers a thread). Each of the 4 warps owns a 64 x 32 sub-tile as 2 x 8
// blocks on which mma.sync.m16n8k8.row.col.f64 computes C^T = B^T A^T (16 columns x 8 rows of C
// each; 64 accumulators per lane). PTX ISA fragment layouts, lane = 4 g + t: of the 16 x 8 operand
// X it holds X(g, t), X(g+8, t), X(g, t+4), X(g+8, t+4); of the 8 x 8 operand Y, Y(t, g) and
// Y(t+4, g); of the result D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1). Two relabelings make
// every operand whole 16-byte shared-memory loads straight into the registers the instruction
// reads: mma k index t + 4j is K column 2t + j of the slab (the order of the sum is free), and mma
// row g + 8h is column 2g + h of the 16-column block. A lane's X = B^T values are then B(2t + j,
// 2g + h): two adjacent pairs; its Y = A^T values A(g, 2t + j): one pair; and it ends up with C(2t
// + h, 2g + i): 16-byte stores.
#pragma once

#include "cp_async.cuh"
#include "mma_f64.cuh"

#include <cuda_runtime.h>

namespace matmul_tiles {

// The copies themselves: plugins/common/cp_async.cuh.
using plugin_common::commit_copies;
using plugin_common::copy_async;
using plugin_common::wait_copies;

// Where a tile row's 16-byte chunks lie in shared memory: in order (rows padded instead),
// or permuted within the row by a function of the row that repeats every kPeriod rows.
struct InOrder {
    static constexpr int kPeriod = 1;
    __device__ __forceinline__ static int chunk(int, int c) { return c; }
};

// One thread's share of copying a Rows x Cols tile of a row-major n x n matrix into shared
// memory (row stride DstStride, chunks placed by Swizzle), in 16-byte pieces that consecutive
// threads take along a row (coalesced). Offsets are worked out once; a K step only moves the
// tile.
template <class T, int Rows, int Cols, int DstStride, int Threads, class Swizzle = InOrder>
struct TileCopy {
    static constexpr int kVec = 16 / sizeof(T), kPiecesPerRow = Cols / kVec;
    static constexpr int kRowsPerPass = Threads / kPiecesPerRow;  // one piece per thread
    static_assert(Threads % kPiecesPerRow == 0 && Rows % kRowsPerPass == 0, "whole passes");
    // Passes kPatterns apart see the same permutation; the first kPatterns are worked out.
    static constexpr int kPatterns =
        Swizzle::kPeriod > kRowsPerPass ? Swizzle::kPeriod / kRowsPerPass : 1;
    static_assert((Swizzle::kPeriod > kRowsPerPass ? Swizzle::kPeriod % kRowsPerPass
                                                   : kRowsPerPass % Swizzle::kPeriod) == 0 &&
                      (Rows / kRowsPerPass) % kPatterns == 0,
                  "passes repeat the swizzle's pattern");

    static constexpr int kPassElements = kRowsPerPass * DstStride;  // in the shared tile

    int row, col;          // this thread's first piece in the matrix, tile at its start
    int dst[kPatterns];    // and in the shared tile, in each of the first passes
    int pass_stride;       // kRowsPerPass rows of the matrix

    __device__ __forceinline__ TileCopy(int n, int row0, int col0) {
        const int r = threadIdx.x / kPiecesPerRow, c = threadIdx.x % kPiecesPerRow * kVec;
        row = row0 + r, col = col0 + c, pass_stride = kRowsPerPass * n;
#pragma unroll
        for (int q = 0; q < kPatterns; ++q) {
            const int rq = r + q * kRowsPerPass;
            dst[q] = rq * DstStride + Swizzle::chunk(rq, c / kVec) * kVec;
        }
    }

    // Copies the tile moved down by drow rows and right by dcol columns. Checked: element
    // by element, zeros outside the matrix (then rows need not be 16-byte aligned).
    template <bool Checked>
    __device__ __forceinline__ void issue(const T *__restrict__ src, int n, int drow, int dcol,
                                          T *tile) const {
        const T *from = src + (row + drow) * n + col + dcol;
#pragma unroll
        for (int p = 0; p < Rows / kRowsPerPass; ++p) {
            T *to = tile + dst[p % kPatterns] + p / kPatterns * kPatterns * kPassElements;
            if constexpr (!Checked) {
                copy_async<16>(to, from + p * pass_stride);
            } else {
                const int r = row + drow + p * kRowsPerPass, c = col + dcol;
#pragma unroll
                for (int e = 0; e < kVec; ++e) {
                    const bool inside = r < n && c + e < n;
                    copy_async<sizeof(T)>(to + e, inside ? src + r * n + c + e : src, inside);
                }
            }
        }
    }
};

// The K loop as a Stages-deep pipeline: the copies of step t + Stages - 1 are issued before
// the math of step t, into the slot that step t - 1 used (every thread has left it: the
// barrier). load(slot, step) issues a step's copies, compute(slot) consumes one.
template <int Stages, class Load, class Compute>
__device__ __forceinline__ void pipeline_over_k(int steps, Load load, Compute compute) {
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
        if (s < steps) load(s, s);
        commit_copies();  // one group per step, empty ones included, keeps the count simple
    }
    int load_slot = Stages - 1, compute_slot = 0;
    for (int t = 0; t < steps; ++t) {
        wait_copies<Stages - 2>();  // this thread's copies of step t have landed ...
        __syncthreads();            // ... and everyone's; slot (t - 1) % Stages is free
        if (t + Stages - 1 < steps) load(load_slot, t + Stages - 1);
        commit_copies();
        compute(compute_slot);
        load_slot = load_slot + 1 == Stages ? 0 : load_slot + 1;
        compute_slot = compute_slot + 1 == Stages ? 0 : compute_slot + 1;
    }
}

// ---- block order ----

constexpr int kGroupRows = 8;  // tile rows per group of the block order

// Top-left corner of this block's tile. Blocks go down a group of kGroupRows tile rows, then
// across its columns, so blocks running at the same time share A and B tiles in L2.
template <int BM, int BN>
__device__ __forceinline__ int2 tile_origin(int n) {
    const int tiles_m = (n + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int group = blockIdx.x / (kGroupRows * tiles_n);
    const int first_m = group * kGroupRows;
    const int group_m = min(tiles_m - first_m, kGroupRows);
    const int in_group = blockIdx.x % (kGroupRows * tiles_n);
    return make_int2((first_m + in_group % group_m) * BM, in_group / group_m * BN);
}

}  // namespace matmul_tiles

// ---- float64 on the tensor cores ----
namespace matmul_dmma {

using namespace matmul_tiles;

constexpr int kBM = 128;                 // block tile rows
constexpr int kWarpM = 64, kWarpN = 32;  // warp tile; 2 warps down the block tile
constexpr int kMBlocks = kWarpM / 8;     // 8-row blocks of C per warp (the mma's N side)
constexpr int kNBlocks = kWarpN / 16;    // 16-column blocks of C per warp (the mma's M side)

// The stage tiles' rows are whole 128-byte lines, unpadded: padded rows start off the lines,
// which cost 14% excess L2 sectors and 22% excess shared-memory wavefronts (ncu) and, at full
// clocks, 1-3% of the time. Instead a row's 16-byte chunks are permuted so that the 8 lanes
// of a fragment load's phase (g = 2i, 2i + 1; t = 0..3) hit 8 distinct 16-byte bank groups.
// The copies stay conflict-free: 8 threads write 8 chunks of one row, aligned by 8, permuted
// among themselves.
struct SwizzleA {  // 16 K columns (8 chunks) a row; lanes read rows g, chunks t (+ 4)
    static constexpr int kPeriod = 2;
    __device__ __forceinline__ static int chunk(int r, int c) { return c ^ (r & 1) << 2; }
};
struct SwizzleB {  // lanes read rows 2t (+ 1, + 8) and chunks (w.col + 16 nb) / 2 + g
    static constexpr int kPeriod = 8;
    __device__ __forceinline__ static int chunk(int r, int c) { return c ^ (r >> 1 & 3) << 1; }
};

// Block tile kBM x BN, K depth BK per stage, Stages-deep pipeline.
template <int BN_, int BK_, int Stages_, int MinBlocksPerSM_>
struct Config {
    static constexpr int BN = BN_, BK = BK_, Stages = Stages_;
    static constexpr int MinBlocksPerSM = MinBlocksPerSM_;
    static constexpr int WarpsN = BN / kWarpN, Threads = 32 * (kBM / kWarpM) * WarpsN;
    static constexpr int AStride = BK, BStride = BN;  // row strides in doubles
    static constexpr int StageDoubles = kBM * AStride + BK * BStride;
    static constexpr int SharedBytes = Stages * StageDoubles * sizeof(double);
    static_assert(BK == 16 && BN % kWarpN == 0, "SwizzleA's 8 chunks a row, whole warp tiles");
    using CopyA = TileCopy<double, kBM, BK, AStride, Threads, SwizzleA>;
    using CopyB = TileCopy<double, BK, BN, BStride, Threads, SwizzleB>;
};

// d += x y on one 16 x 8 block of C^T, 8 deep (FP64 tensor cores on sm_90).
__device__ __forceinline__ void mma(double (&d)[4], const double (&x)[4], const double (&y)[2]) {
    plugin_common::mma_m16n8k8_f64(d, x, y);
}

// A lane's operands for one 8-deep slab of K (columns kk + 2t, kk + 2t + 1 of A, the same
// rows of B), in the registers order the mma takes them.
struct Slab {
    double b[kNBlocks][4];  // mma A: B(2t, 2g), B(2t, 2g+1), B(2t+1, 2g), B(2t+1, 2g+1)
    double a[kMBlocks][2];  // mma B: A(g, 2t), A(g, 2t+1)
};

struct WarpPlace {  // where a lane's fragments lie in the block tile
    int row, col;   // warp tile corner
    int g, t;       // lane = 4 g + t
    int a, b;       // its first fragment loads in the stage tiles (slab 0, blocks 0)
};

template <class Cfg>
__device__ __forceinline__ WarpPlace warp_place() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row = warp / Cfg::WarpsN * kWarpM, col = warp % Cfg::WarpsN * kWarpN;
    return {row, col, g, t, (row + g) * Cfg::AStride + SwizzleA::chunk(row + g, t) * 2,
            2 * t * Cfg::BStride + SwizzleB::chunk(2 * t, col / 2 + g) * 2};
}

__device__ __forceinline__ void load16(const double *from, double *to) {
    const double2 v = *reinterpret_cast<const double2 *>(from);
    to[0] = v.x, to[1] = v.y;
}

// Slab kk .. kk+8 of the stage in shared memory (as: [m][k], bs: [k][n]): 16-byte loads.
// The swizzles keep a lane's offsets w.a and w.b up to whole rows and chunks: its A rows
// keep their parity, so slab 8 only flips chunk bit 2 (double 8); its B rows kk + 2t + j
// keep (r / 2) & 3 = t, and its B chunks move by whole groups of 8.
template <class Cfg>
__device__ __forceinline__ void load_slab(const double *as, const double *bs, int kk,
                                          const WarpPlace &w, Slab &s) {
#pragma unroll
    for (int nb = 0; nb < kNBlocks; ++nb) {
        const double *from = &bs[w.b + kk * Cfg::BStride + nb * 16];
        load16(from, &s.b[nb][0]);
        load16(from + Cfg::BStride, &s.b[nb][2]);
    }
    const int a = kk / 8 % 2 ? w.a ^ 8 : w.a;
#pragma unroll
    for (int mb = 0; mb < kMBlocks; ++mb) load16(&as[a + mb * 8 * Cfg::AStride], s.a[mb]);
}

// acc += the stage's kBM x BK slice of A times its BK x BN slice of B.
template <class Cfg>
__device__ __forceinline__ void multiply_stage(const double *as, const double *bs,
                                               const WarpPlace &w,
                                               double (&acc)[kNBlocks][kMBlocks][4]) {
#pragma unroll
    for (int kk = 0; kk < Cfg::BK; kk += 8) {
        Slab s;
        load_slab<Cfg>(as, bs, kk, w, s);
#pragma unroll
        for (int nb = 0; nb < kNBlocks; ++nb)
#pragma unroll
            for (int mb = 0; mb < kMBlocks; ++mb) mma(acc[nb][mb], s.b[nb], s.a[mb]);
    }
}

// Writes the warp's fragments. Block (nb, mb) holds C^T: a lane has C(2t, 2g .. 2g+1) in
// d[0], d[2] and C(2t + 1, 2g .. 2g+1) in d[1], d[3], relative to the block's corner.
template <bool Checked>
__device__ __forceinline__ void store_tile(double *c, int n, int2 origin, const WarpPlace &w,
                                           const double (&acc)[kNBlocks][kMBlocks][4]) {
#pragma unroll
    for (int nb = 0; nb < kNBlocks; ++nb)
#pragma unroll
        for (int mb = 0; mb < kMBlocks; ++mb)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = origin.x + w.row + mb * 8 + 2 * w.t + h;
                const int col = origin.y + w.col + nb * 16 + 2 * w.g;
                const double v0 = acc[nb][mb][h], v1 = acc[nb][mb][h + 2];
                if constexpr (!Checked) {
                    *reinterpret_cast<double2 *>(c + row * n + col) = make_double2(v0, v1);
                } else if (row < n) {
                    if (col < n) c[row * n + col] = v0;
                    if (col + 1 < n) c[row * n + col + 1] = v1;
                }
            }
}

// The K loop of the float64 kernel, as CUTLASS's multistage main loop runs it: every slot is
// filled first; a warp loads the next 8-deep slab's fragments from shared memory while the
// MMAs of the current one run, across a stage boundary too: before its last slab's MMAs it
// waits for the next stage's copies (everyone's: the barrier), refills the slot it has read
// out with the stage Stages ahead, and loads the next stage's first slab. Here it takes the
// kernel from 0.90 to 0.956 of cuBLAS on the H100; the float32 kernel keeps pipeline_over_k
// (the same loop gained it nothing), and so do GPUs before sm_90 (below). load(slot, step)
// issues a step's copies.
template <class Cfg, class Load>
__device__ __forceinline__ void multiply_over_k(int steps, Load load, const double *shared,
                                                const WarpPlace &w,
                                                double (&acc)[kNBlocks][kMBlocks][4]) {
    constexpr int kSlabs = Cfg::BK / 8;
    static_assert(kSlabs % 2 == 0, "slab fragments alternate between two sets");
    const auto a_slot = [&](int slot) { return shared + slot * Cfg::StageDoubles; };
    const auto b_slot = [&](int slot) { return a_slot(slot) + kBM * Cfg::AStride; };
#pragma unroll
    for (int s = 0; s < Cfg::Stages; ++s) {
        if (s < steps) load(s, s);
        commit_copies();  // one group per step, empty ones included, keeps the count simple
    }
    wait_copies<Cfg::Stages - 1>();
    __syncthreads();
    Slab slab[2];
    load_slab<Cfg>(a_slot(0), b_slot(0), 0, w, slab[0]);
    int slot = 0;
    for (int t = 0; t < steps; ++t) {
#pragma unroll
        for (int kk = 0; kk < kSlabs; ++kk) {
            if (kk == kSlabs - 1) {  // every fragment of step t is loaded: on to step t + 1
                wait_copies<Cfg::Stages - 2>();
                __syncthreads();
                if (t + Cfg::Stages < steps) load(slot, t + Cfg::Stages);
                commit_copies();
                slot = slot + 1 == Cfg::Stages ? 0 : slot + 1;
            }
            if (kk < kSlabs - 1 || t + 1 < steps)
                load_slab<Cfg>(a_slot(slot), b_slot(slot), (kk + 1) % kSlabs * 8, w,
                               slab[(kk + 1) % 2]);
            // A fragments outer: 0.3-1% faster than B outer on the H200 (three probes against
            // cublasDgemm in one process; ncu: 11.7 against 12.1 cycles an instruction).
#pragma unroll
            for (int mb = 0; mb < kMBlocks; ++mb)
#pragma unroll
                for (int nb = 0; nb < kNBlocks; ++nb)
                    mma(acc[nb][mb], slab[kk % 2].b[nb], slab[kk % 2].a[mb]);
        }
    }
}

template <class Cfg, bool Checked>
__global__ void __launch_bounds__(Cfg::Threads, Cfg::MinBlocksPerSM)
    dgemm_kernel(const double *__restrict__ a, const double *__restrict__ b,
                 double *__restrict__ c, int n) {
    extern __shared__ __align__(16) double shared[];
    const int2 origin = tile_origin<kBM, Cfg::BN>(n);
    const WarpPlace w = warp_place<Cfg>();
    const typename Cfg::CopyA copy_a(n, origin.x, 0);
    const typename Cfg::CopyB copy_b(n, 0, origin.y);
    double acc[kNBlocks][kMBlocks][4] = {};

    auto load = [&](int slot, int step) {
        double *a_slot = shared + slot * Cfg::StageDoubles, *b_slot = a_slot + kBM * Cfg::AStride;
        copy_a.template issue<Checked>(a, n, 0, step * Cfg::BK, a_slot);
        copy_b.template issue<Checked>(b, n, step * Cfg::BK, 0, b_slot);
    };
#if __CUDA_ARCH__ >= 900
    multiply_over_k<Cfg>((n + Cfg::BK - 1) / Cfg::BK, load, shared, w, acc);
#else  // the MMAs emulated (mma_f64.cuh), whose shuffles leave no registers for a second slab
    auto compute = [&](int slot) {
        const double *a_slot = shared + slot * Cfg::StageDoubles;
        multiply_stage<Cfg>(a_slot, a_slot + kBM * Cfg::AStride, w, acc);
    };
    pipeline_over_k<Cfg::Stages>((n + Cfg::BK - 1) / Cfg::BK, load, compute);
#endif

    store_tile<Checked>(c, n, origin, w, acc);
}

}  // namespace matmul_dmma
