// One thread per pixel on a 2-D grid, like the article's Numba kernel but without its
// grid-stride loops: the grid covers the image exactly once. Blocks are 32 x 8, so a warp
// is 32 consecutive pixels of one row: its 2-byte stores coalesce, and neighbouring
// pixels, which tend to escape at similar iterations, share a warp (less divergence).
#include "mandelbrot_gpu.hpp"

namespace {

const gpubench::BackendSpec kCuda{
    "mandelbrot_cuda", "cuda", GPUBENCH_DEVICE_CUDA,
    "Mandelbrot escape counts, CUDA kernel with one thread per pixel on a 2-D "
    "grid of 32x8 blocks; max 16384 rows (24576 x 16384)",
    mandelbrot::kMaxGpuRows, {256, 512, 1024, 2048, 4096}};

constexpr int kBlockX = 32, kBlockY = 8;
// gridDim.y is limited to 65535 blocks: 16384 rows need 2048.
static_assert((mandelbrot::kMaxGpuRows + kBlockY - 1) / kBlockY <= 65535);

template <class T>
__global__ void __launch_bounds__(kBlockX * kBlockY)
    mandelbrot_kernel(mandelbrot::Frame<T> frame, uint16_t *__restrict__ image) {
    const int x = blockIdx.x * kBlockX + threadIdx.x;
    const int y = blockIdx.y * kBlockY + threadIdx.y;
    if (x >= frame.width || y >= frame.height) return;
    image[static_cast<size_t>(y) * frame.width + x] = mandelbrot::pixel_value(frame, x, y);
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

using CudaPlugin = mandelbrot::DeviceProblem<kCuda, CudaKernel>;

}  // namespace

GPUBENCH_PLUGIN(CudaPlugin, mandelbrot::make_info(kCuda))
