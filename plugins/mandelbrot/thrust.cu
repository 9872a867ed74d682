// The library way: thrust::transform maps pixel indices 0 .. W*H-1 (a counting iterator,
// no memory) through the per-pixel function into the image, on the runner's stream.
// par_nosync: no synchronisation at the end; transform allocates nothing.
#include "mandelbrot_gpu.hpp"

#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

namespace {

const gpubench::BackendSpec kThrust{
    "mandelbrot_thrust", "thrust", GPUBENCH_DEVICE_CUDA,
    "Mandelbrot escape counts, thrust::transform over a counting iterator of "
    "pixel indices on the runner's stream; max 16384 rows (24576 x 16384)",
    mandelbrot::kMaxGpuRows, {256, 512, 1024, 2048, 4096}};

// int pixel indices (a 32-bit division is cheaper): kMaxGpuRows guarantees they fit.
template <class T>
struct PixelOfIndex {
    mandelbrot::Frame<T> frame;
    __host__ __device__ uint16_t operator()(int index) const {
        return mandelbrot::pixel_value(frame, index % frame.width, index / frame.width);
    }
};

class ThrustKernel {
public:
    ThrustKernel(const mandelbrot::Geometry &g, const gpubench::Setup &setup)
        : pixels_(static_cast<int>(g.pixels())), stream_(gpubench::cuda::stream_of(setup)) {}

    template <class T>
    void render(const mandelbrot::Frame<T> &frame, uint16_t *image) {
        const thrust::counting_iterator<int> first(0);
        thrust::transform(thrust::cuda::par_nosync.on(stream_), first, first + pixels_, image,
                          PixelOfIndex<T>{frame});
        gpubench::cuda::check_launch("thrust::transform");
    }

private:
    int pixels_;
    cudaStream_t stream_;
};

using ThrustPlugin = gpubench::cuda::DeviceProblem<mandelbrot::DeviceImage<kThrust, ThrustKernel>>;

}  // namespace

GPUBENCH_PLUGIN(ThrustPlugin, mandelbrot::make_info(kThrust))
