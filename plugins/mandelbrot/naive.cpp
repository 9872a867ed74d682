// The baseline: every row, every column, one CPU thread.
#include "mandelbrot_common.hpp"

namespace {

const gpubench::BackendSpec kNaive{
    "mandelbrot_naive", "naive", GPUBENCH_DEVICE_CPU,
    "Mandelbrot escape counts, the obvious row/column loop on one CPU thread; "
    "max 8192 rows (12288 x 8192 at 256 iterations: ~20 s a run, measured)",
    8192, {256, 512, 1024, 2048}};

struct NaiveRender {
    static void image(const mandelbrot::Geometry &g, uint16_t *image, int /*threads*/) {
        mandelbrot::with_precision(g.dtype, [&](auto zero) {
            const auto frame = mandelbrot::make_frame<decltype(zero)>(g);
            for (int y = 0; y < g.height; ++y) mandelbrot::render_row(frame, y, image);
        });
    }
};

using NaivePlugin = mandelbrot::HostProblem<kNaive, NaiveRender>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, mandelbrot::make_info(kNaive))
