// matmul_cuda's float32 kernel on the tensor cores at float32's accuracy (kernel=tensor, the
// default): each input x is split into x_hi = tf32(x) and x_lo = tf32(x - x_hi), and every
// product is summed as a_lo b_hi + a_hi b_lo + a_hi b_hi (small terms first) by mma.sync
// m16n8k8 TF32 with FP32 accumulation. What is dropped, a_lo b_lo and the rounding of x_lo, is
// at most 2^-21 of each product's size (x_hi and x_lo carry 22 of x's 24 bits). The tensor
// cores' FP32 sums do not round to nearest as FFMA does, and add more: on an H200 the largest
// error at 4096 was 2.5e-6 of sum |a b| against FFMA's 1.3e-7, a twelfth of float32's
// tolerance (8 sqrt(N) 2^-24, which both are checked against). Included by cuda.cu only; the
// copies, the pipeline and the block order are matmul_dmma.cuh's (matmul_tiles).
//
// A 256-thread block computes a 128 x 128 tile of C, 32 K columns per stage, three stages,
// two blocks per SM; each of the 8 warps a 64 x 32 sub-tile as 4 x 4 blocks of 16 x 8. A
// (as[m][k], row stride BK + 4) and B (bs[k][n], row stride BN + 8) keep their layouts in
// shared memory and come in 16-byte copies. PTX fragment layouts of m16n8k8 TF32, lane = 4 g
// + t: a = A(g, t), A(g+8, t), A(g, t+4), A(g+8, t+4); b = B(t, g), B(t+4, g); d = D(g, 2t),
// D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1). The strides put a warp's fragment reads in 32
// distinct banks: A at 4 g + t, B at 8 t + g.
#pragma once

#include "matmul_dmma.cuh"

#include <cuda_runtime.h>

namespace matmul_tf32x3 {

using namespace matmul_tiles;

constexpr int kThreads = 256, kBM = 128, kBN = 128, kBK = 32, kStages = 3;
constexpr int kWarpM = 64, kWarpN = 32, kWarpsN = kBN / kWarpN;
constexpr int kMBlocks = kWarpM / 16, kNBlocks = kWarpN / 8;  // 16 x 8 blocks of C per warp
constexpr int kAStride = kBK + 4, kBStride = kBN + 8;         // floats; conflict-free reads
constexpr int kStageFloats = kBM * kAStride + kBK * kBStride;
constexpr int kSharedBytes = kStages * kStageFloats * sizeof(float);
static_assert((kBM / kWarpM) * kWarpsN == kThreads / 32, "one warp per warp tile");
using CopyA = TileCopy<float, kBM, kBK, kAStride, kThreads>;
using CopyB = TileCopy<float, kBK, kBN, kBStride, kThreads>;

// x as TF32 (round to nearest, ties away), in the register the mma reads.
__device__ __forceinline__ uint32_t to_tf32(float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

// x as hi + lo, both TF32.
__device__ __forceinline__ void split(float x, uint32_t &hi, uint32_t &lo) {
    hi = to_tf32(x);
    lo = to_tf32(x - __uint_as_float(hi));
}

// d += a b on one 16 x 8 block, 8 deep, TF32 inputs, FP32 accumulation.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

struct WarpPlace {  // a lane's place: its warp tile's corner in the block tile, lane = 4 g + t
    int row, col, g, t;
};

__device__ __forceinline__ WarpPlace warp_place() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return {warp / kWarpsN * kWarpM, warp % kWarpsN * kWarpN, lane / 4, lane % 4};
}

// acc += the stage's 128 x 32 slice of A times its 32 x 128 slice of B, 8 deep at a time.
__device__ __forceinline__ void multiply_stage(const float *as, const float *bs, const WarpPlace &w,
                                               float (&acc)[kMBlocks][kNBlocks][4]) {
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 8) {
        uint32_t a_hi[kMBlocks][4], a_lo[kMBlocks][4], b_hi[kNBlocks][2], b_lo[kNBlocks][2];
#pragma unroll
        for (int mb = 0; mb < kMBlocks; ++mb)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int row = w.row + mb * 16 + w.g + 8 * (i % 2), k = kk + w.t + 4 * (i / 2);
                split(as[row * kAStride + k], a_hi[mb][i], a_lo[mb][i]);
            }
#pragma unroll
        for (int nb = 0; nb < kNBlocks; ++nb)
#pragma unroll
            for (int i = 0; i < 2; ++i)
                split(bs[(kk + w.t + 4 * i) * kBStride + w.col + nb * 8 + w.g], b_hi[nb][i], b_lo[nb][i]);
#pragma unroll
        for (int mb = 0; mb < kMBlocks; ++mb)
#pragma unroll
            for (int nb = 0; nb < kNBlocks; ++nb) {
                mma_tf32(acc[mb][nb], a_lo[mb], b_hi[nb]);
                mma_tf32(acc[mb][nb], a_hi[mb], b_lo[nb]);
                mma_tf32(acc[mb][nb], a_hi[mb], b_hi[nb]);
            }
    }
}

// Writes the warp's blocks: a lane holds C(g, 2t .. 2t+1) and C(g + 8, 2t .. 2t+1) of each.
template <bool Checked>
__device__ __forceinline__ void store_tile(float *c, int n, int2 origin, const WarpPlace &w,
                                           const float (&acc)[kMBlocks][kNBlocks][4]) {
#pragma unroll
    for (int mb = 0; mb < kMBlocks; ++mb)
#pragma unroll
        for (int nb = 0; nb < kNBlocks; ++nb)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = origin.x + w.row + mb * 16 + w.g + 8 * h;
                const int col = origin.y + w.col + nb * 8 + 2 * w.t;
                const float v0 = acc[mb][nb][2 * h], v1 = acc[mb][nb][2 * h + 1];
                if constexpr (!Checked) {
                    *reinterpret_cast<float2 *>(c + row * n + col) = make_float2(v0, v1);
                } else if (row < n) {
                    if (col < n) c[row * n + col] = v0;
                    if (col + 1 < n) c[row * n + col + 1] = v1;
                }
            }
}

template <bool Checked>
__global__ void __launch_bounds__(kThreads, 2)
    gemm_kernel(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n) {
#if __CUDA_ARCH__ >= 800  // TF32 mma.sync: Ampere on
    extern __shared__ __align__(16) float shared[];
    const int2 origin = tile_origin<kBM, kBN>(n);
    const WarpPlace w = warp_place();
    const CopyA copy_a(n, origin.x, 0);
    const CopyB copy_b(n, 0, origin.y);
    float acc[kMBlocks][kNBlocks][4] = {};

    const auto a_slot = [&](int slot) { return shared + slot * kStageFloats; };
    const auto b_slot = [&](int slot) { return a_slot(slot) + kBM * kAStride; };
    auto load = [&](int slot, int step) {
        copy_a.template issue<Checked>(a, n, 0, step * kBK, a_slot(slot));
        copy_b.template issue<Checked>(b, n, step * kBK, 0, b_slot(slot));
    };
    auto compute = [&](int slot) { multiply_stage(a_slot(slot), b_slot(slot), w, acc); };
    pipeline_over_k<kStages>((n + kBK - 1) / kBK, load, compute);

    store_tile<Checked>(c, n, origin, w, acc);
#else  // built without sm_80 code: never leave C unwritten (the launcher refuses older GPUs)
    __trap();
#endif
}

}  // namespace matmul_tf32x3
