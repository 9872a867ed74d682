// FP64 warp-level matrix multiply-accumulate, d += a b with a 16 x K (K = 8 or 16) and b
// K x 8, in the fragment layout of PTX's mma.sync.aligned.m16n8kK.row.col.f64: lane 4g + t
// (g = lane / 4, t = lane % 4) holds
//   a[i] = A(g + 8 (i % 2), t + 4 (i / 2))   (K / 2 values)
//   b[i] = B(t + 4 i, g)                     (K / 4 values)
//   d[i] = D(g + 8 (i / 2), 2 t + i % 2)     (4 values)
// On sm_90 these shapes run on the FP64 tensor cores. Older GPUs (the default build also
// targets sm_80, where only m8n8k4 exists) get the same product from shuffles and DFMAs:
// correct, several times slower, so that a plugin built with them runs everywhere.
// Include from .cu files only.
#pragma once

namespace plugin_common {

// The same product, lane by lane: for each k the lane fetches A(g, k), A(g + 8, k) from lane
// 4g + k % 4 and B(k, 2t), B(k, 2t + 1) from lanes 8t + k % 4 and 8t + 4 + k % 4.
template <int K>
__device__ __forceinline__ void mma_f64_emulated(double (&d)[4], const double (&a)[K / 2],
                                                 const double (&b)[K / 4]) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int a_lane = 4 * g + k % 4, b_lane = 8 * t + k % 4;
        const double a_top = __shfl_sync(0xFFFFFFFFu, a[2 * (k / 4)], a_lane);
        const double a_bottom = __shfl_sync(0xFFFFFFFFu, a[2 * (k / 4) + 1], a_lane);
        const double b_left = __shfl_sync(0xFFFFFFFFu, b[k / 4], b_lane);
        const double b_right = __shfl_sync(0xFFFFFFFFu, b[k / 4], b_lane + 4);
        d[0] = fma(a_top, b_left, d[0]);
        d[1] = fma(a_top, b_right, d[1]);
        d[2] = fma(a_bottom, b_left, d[2]);
        d[3] = fma(a_bottom, b_right, d[3]);
    }
}

__device__ __forceinline__ void mma_m16n8k8_f64(double (&d)[4], const double (&a)[4],
                                                const double (&b)[2]) {
#if __CUDA_ARCH__ >= 900
    // Not volatile: the compiler may schedule it among the loads (its outputs are used); at
    // 8192 that made matmul_cuda's DGEMM 2-3% faster on the H200.
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    mma_f64_emulated<8>(d, a, b);
#endif
}

__device__ __forceinline__ void mma_m16n8k16_f64(double (&d)[4], const double (&a)[8],
                                                 const double (&b)[4]) {
#if __CUDA_ARCH__ >= 900
    // Not volatile: the compiler may schedule it among the loads (its outputs are used).
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
    mma_f64_emulated<16>(d, a, b);
#endif
}

}  // namespace plugin_common
