// Rows shared among the CPU threads. Dynamic schedule: a row through the set's interior
// runs every iteration while one near the edge of the view escapes at once, so a static
// split would leave the threads with the outer rows idle.
#include "mandelbrot_common.hpp"

namespace {

const gpubench::BackendSpec kOmp{
    "mandelbrot_omp", "omp", GPUBENCH_DEVICE_CPU,
    "Mandelbrot escape counts, OpenMP over rows with a dynamic schedule (rows "
    "inside the set cost far more); max 8192 rows",
    8192, {256, 512, 1024, 2048}};

struct OmpRender {
    static void image(const mandelbrot::Geometry &g, uint16_t *image, int threads) {
        mandelbrot::with_precision(g.dtype, [&](auto zero) {
            const auto frame = mandelbrot::make_frame<decltype(zero)>(g);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
            for (int y = 0; y < g.height; ++y) mandelbrot::render_row(frame, y, image);
        });
    }
};

using OmpPlugin = mandelbrot::HostProblem<kOmp, OmpRender>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, mandelbrot::make_info(kOmp))
