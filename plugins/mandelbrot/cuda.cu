// One thread per pixel on a 2-D grid, like the article's Numba kernel but without its
// grid-stride loops: the grid covers the image exactly once. Blocks are 32 x 8, so a warp
// is 32 consecutive pixels of one row: its 2-byte stores coalesce, and neighbouring
// pixels, which tend to escape at similar iterations, share a warp (less divergence).
//
// The FP64 pipe is the limit (about 70 iterations per pixel on average at 256, 8 DP
// instructions each in the plain loop). The loop here takes 4 per iteration: each step is
// three FMAs and an add, and the escape test (3 more) runs once per chunk of 8 steps. That
// is exact: once |z| > 2 the orbit only grows, so an escape inside a chunk still shows at
// its end (as inf or NaN at worst, which the test also catches); the chunk is then redone
// step by step from its start to find the iteration. The FMAs round differently from the
// CPU reference's separate operations, within the pixels the check allows GPUs.
#include "mandelbrot_gpu.hpp"

namespace {

const gpubench::BackendSpec kCuda{
    "mandelbrot_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "Mandelbrot escape counts, CUDA kernel with one thread per pixel on a 2-D grid of "
    "32x8 blocks; each step three FMAs and an add, the escape tested once per 8 steps (a "
    "chunk in which a pixel escaped is redone step by step: the same counts, 4 FP64 "
    "instructions a step instead of 8); max 16384 rows (24576 x 16384)",
    mandelbrot::kMaxGpuRows, {256, 512, 1024, 2048, 4096}};

constexpr int kBlockX = 32, kBlockY = 8;
// gridDim.y is limited to 65535 blocks: 16384 rows need 2048.
static_assert((mandelbrot::kMaxGpuRows + kBlockY - 1) / kBlockY <= 65535);

constexpr int kStepsPerTest = 8;

// z = z^2 + c in three FMAs and an add (2 zr is exact).
template <class T>
__device__ __forceinline__ void step(T &zr, T &zi, T cr, T ci) {
    const T next_r = fma(zr, zr, fma(-zi, zi, cr));
    zi = fma(zr + zr, zi, ci);
    zr = next_r;
}

template <class T>
__device__ __forceinline__ bool inside(T zr, T zi) {
    return fma(zr, zr, zi * zi) < T(4);  // false for inf and NaN too
}

// mandelbrot::escape_count's result: the iteration at which |z|^2 >= 4, or `iterations`.
template <class T>
__device__ uint16_t escape_count_chunked(T cr, T ci, int iterations) {
    T zr = 0, zi = 0;
    int i = 0;
    for (; i + kStepsPerTest <= iterations; i += kStepsPerTest) {
        const T start_r = zr, start_i = zi;
#pragma unroll
        for (int k = 0; k < kStepsPerTest; ++k) step(zr, zi, cr, ci);
        if (!inside(zr, zi)) {  // escaped in this chunk: redo it below, one test per step
            zr = start_r, zi = start_i;
            break;
        }
    }
    for (; i < iterations; ++i) {
        step(zr, zi, cr, ci);
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
