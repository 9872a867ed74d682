// One thread per pixel on a 2-D grid, like the article's Numba kernel but without its
// grid-stride loops: the grid covers the image exactly once. Blocks are 32 x 8, so a warp
// is 32 consecutive pixels of one row: its 2-byte stores coalesce, and neighbouring
// pixels, which tend to escape at similar iterations, share a warp (less divergence).
//
// The FP64 pipe is the limit (about 70 iterations per pixel on average at 256, 8 DP
// instructions each in the plain loop). The loop here takes 3 per step, all FMAs:
//   next_r = zr*zr - zi*zi + cr    two FMAs
//   h      = zr*zi + ci/2          one FMA, reading zr from the operand cache the FMA
//                                  before it filled (a third distinct register would
//                                  cost the FMA an extra cycle of register reads)
//   zi     = 2h                    an integer add to h's exponent, off the FP64 pipe
// 2h is what fma(2 zr, zi, ci) rounds to. For h = 0 or subnormal the exponent add gives a
// value below 2^-1021 instead, far below the rounding differences FMAs already make (the
// check's tolerance). The escape test runs once per chunk of 8 steps, as an integer compare
// of |z|^2's high word, and costs 2 DP instructions. That is exact: once |z| > 2 the orbit
// only grows, so an escape inside a chunk still shows at its end; the chunk's states are
// kept in registers and the first one outside gives the iteration. In float64 nothing
// overflows within 8 steps of |z| < 2 (|z| stays below 1e205); in float32 it may, and then
// zr turns inf or NaN in the step h does and stays so, which the unsigned compare counts as
// outside. The FMAs round differently from the CPU reference's separate operations, within
// the pixels the check allows GPUs.
#include "mandelbrot_gpu.hpp"

namespace {

const gpubench::BackendSpec kCuda{
    "mandelbrot_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "Mandelbrot escape counts, CUDA kernel with one thread per pixel on a 2-D grid of "
    "32x8 blocks; each step three FMAs (in float64 2 zr zi by an exponent add), the escape tested once "
    "per 8 steps as an integer compare, the chunk's states kept to find the escaping step; "
    "max 16384 rows (24576 x 16384)",
    mandelbrot::kMaxGpuRows, {256, 512, 1024, 2048, 4096}};

constexpr int kBlockX = 32, kBlockY = 8;
// gridDim.y is limited to 65535 blocks: 16384 rows need 2048.
static_assert((mandelbrot::kMaxGpuRows + kBlockY - 1) / kBlockY <= 65535);

constexpr int kStepsPerTest = 8;

// 2h. In float64 by adding 1 to the exponent field: an integer add instead of an FP64 one.
// float32 is not bound on its pipe, so it adds.
__device__ __forceinline__ double twice(double h) {
    return __hiloint2double(__double2hiint(h) + (1 << 20), __double2loint(h));
}
__device__ __forceinline__ float twice(float h) { return h + h; }

// x < 4 for x >= 0 from the high bits, compared unsigned so that inf and NaN of either sign
// count as not below.
__device__ __forceinline__ bool below_four(double x) {
    return static_cast<unsigned>(__double2hiint(x)) < 0x40100000u;
}
__device__ __forceinline__ bool below_four(float x) { return __float_as_uint(x) < 0x40800000u; }

template <class T>
__device__ __forceinline__ bool inside(T zr, T zi) {
    return below_four(fma(zr, zr, zi * zi));
}

// z = z^2 + c; half_ci = ci / 2.
template <class T>
__device__ __forceinline__ void step(T &zr, T &zi, T cr, T half_ci) {
    const T next_r = fma(zr, zr, fma(-zi, zi, cr));
    zi = twice(fma(zr, zi, half_ci));
    zr = next_r;
}

// mandelbrot::escape_count's result: the iteration at which |z|^2 >= 4, or `iterations`.
template <class T>
__device__ uint16_t escape_count_chunked(T cr, T ci, int iterations) {
    const T half_ci = ci * T(0.5);
    T zr = 0, zi = 0;
    int i = 0;
    for (; i + kStepsPerTest <= iterations; i += kStepsPerTest) {
        T chunk_r[kStepsPerTest], chunk_i[kStepsPerTest];  // registers: the loops unroll
#pragma unroll
        for (int k = 0; k < kStepsPerTest; ++k) {
            step(zr, zi, cr, half_ci);
            chunk_r[k] = zr, chunk_i[k] = zi;
        }
        if (!inside(zr, zi)) {
#pragma unroll
            for (int k = 0; k < kStepsPerTest - 1; ++k)
                if (!inside(chunk_r[k], chunk_i[k])) return static_cast<uint16_t>(i + k);
            return static_cast<uint16_t>(i + kStepsPerTest - 1);
        }
    }
    for (; i < iterations; ++i) {
        step(zr, zi, cr, half_ci);
        if (!inside(zr, zi)) return static_cast<uint16_t>(i);
    }
    return static_cast<uint16_t>(iterations);
}

template <class T>
__global__ void __launch_bounds__(kBlockX * kBlockY)
    mandelbrot_kernel(mandelbrot::Frame<T> frame, uint16_t *__restrict__ image) {
    const int x = blockIdx.x * kBlockX + threadIdx.x;
    const int y = blockIdx.y * kBlockY + threadIdx.y;
    if (x >= frame.width || y >= frame.height) return;
    image[static_cast<size_t>(y) * frame.width + x] = escape_count_chunked(
        frame.min_x + T(x) * frame.step_x, frame.min_y + T(y) * frame.step_y, frame.iterations);
}

class CudaKernel {
public:
    CudaKernel(const mandelbrot::Geometry &g, const gpubench::Setup &setup)
        : stream_(gpubench::cuda::stream_of(setup)),
          grid_((g.width + kBlockX - 1) / kBlockX, (g.height + kBlockY - 1) / kBlockY) {}

    template <class T>
    void render(const mandelbrot::Frame<T> &frame, uint16_t *image) {
        mandelbrot_kernel<T><<<grid_, dim3(kBlockX, kBlockY), 0, stream_>>>(frame, image);
        gpubench::cuda::check_launch("mandelbrot_kernel");
    }

private:
    cudaStream_t stream_;
    dim3 grid_;
};

using CudaPlugin = gpubench::cuda::DeviceProblem<mandelbrot::DeviceImage<kCuda, CudaKernel>>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, mandelbrot::make_info(kCuda))
