// The baseline: every row, every column, one CPU thread.
#include "mandelbrot_common.hpp"

namespace {

struct NaiveRender {
    static void image(const mandelbrot::Geometry &g, uint16_t *image, int /*threads*/) {
        mandelbrot::with_precision(g.dtype, [&](auto zero) {
            const auto frame = mandelbrot::make_frame<decltype(zero)>(g);
            for (int y = 0; y < g.height; ++y) mandelbrot::render_row(frame, y, image);
        });
    }
};

using NaivePlugin = mandelbrot::HostProblem<mandelbrot::Backend::naive, NaiveRender>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, mandelbrot::make_info(mandelbrot::Backend::naive))
