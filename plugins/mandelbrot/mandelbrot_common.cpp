#include "mandelbrot_common.hpp"

#include <gpubench/backend_spec.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace mandelbrot {
namespace {

const gpubench::ParamSpec kIterationsParam = gpubench::whole(
    "iterations", 20, 1, 65535, "steps per pixel at most (20 as in the article; stored as uint16)");
const gpubench::ParamSpec kDtypeParam =
    gpubench::choice("dtype", {"float64", "float32"}, "coordinates' type (float64 as in the article)");
const gpubench::ParamSpec kImageParam =
    gpubench::text("image", "", "PATH.pgm: writes the last image after verify (P5, maxval iterations)");

// The parameters, validated; the size is checked separately.
Geometry parse_params(const gpubench::Params &params) {
    Geometry g;
    g.iterations = static_cast<int>(params.get_int(kIterationsParam));
    g.dtype = params.get_enum<Dtype>(kDtypeParam);
    g.image_path = params.get(kImageParam);
    const std::string suffix = ".pgm";
    if (params.has("image") && (g.image_path.size() <= suffix.size() ||
                                !g.image_path.ends_with(suffix)))
        throw gpubench::InvalidArgument("image='" + g.image_path + "': expected PATH.pgm");
    return g;
}

// Binary PGM (P5), maxval = iterations: one byte per pixel up to 255, else two (big endian).
void write_pgm(const Geometry &g, const uint16_t *image) {
    struct Closer {
        void operator()(std::FILE *f) const { std::fclose(f); }
    };
    std::unique_ptr<std::FILE, Closer> file(std::fopen(g.image_path.c_str(), "wb"));
    if (!file) throw gpubench::Error(GPUBENCH_ERROR, "cannot open image=" + g.image_path);
    std::fprintf(file.get(), "P5\n%d %d\n%d\n", g.width, g.height, g.iterations);
    const bool wide = g.iterations > 255;
    std::vector<unsigned char> row(static_cast<size_t>(g.width) * (wide ? 2 : 1));
    for (size_t y = 0; y < static_cast<size_t>(g.height); ++y) {
        const uint16_t *in = image + y * g.width;
        for (size_t x = 0; x < static_cast<size_t>(g.width); ++x) {
            if (wide) {
                row[2 * x] = static_cast<unsigned char>(in[x] >> 8);
                row[2 * x + 1] = static_cast<unsigned char>(in[x] & 0xFF);
            } else {
                row[x] = static_cast<unsigned char>(in[x]);
            }
        }
        if (std::fwrite(row.data(), 1, row.size(), file.get()) != row.size())
            throw gpubench::Error(GPUBENCH_ERROR, "cannot write image=" + g.image_path);
    }
    if (std::fclose(file.release()) != 0)
        throw gpubench::Error(GPUBENCH_ERROR, "cannot write image=" + g.image_path);
}

// Pixels a GPU result may differ in. Measured by emulating nvcc's contraction (the PTX's
// fma for the coordinates, 2*zr*zi + ci and |z|^2) on the CPU at 256..2048 rows: float64
// differs in 2.5e-6 of the pixels at 256 iterations, 9e-5 at 1000, 2.3e-4 at 4000 (none up
// to 100); float32 in 4e-4 at 100, 1.9e-3 at 256, 3.8e-3 at 4000. The allowance grows with
// the iterations like that, 4x to 40x above it: 16 + pixels x min(cap, rate x iterations).
uint64_t allowed_on_gpu(const Geometry &g) {
    const bool f64 = g.dtype == Dtype::float64;
    const double rate = f64 ? 4e-7 : 4e-5, cap = f64 ? 1e-2 : 5e-2;
    const double fraction = std::min(cap, rate * g.iterations);
    return 16 + static_cast<uint64_t>(fraction * static_cast<double>(g.pixels()));
}

using gpubench::BackendSpec;

}  // namespace

gpubench::Info make_info(const BackendSpec &s) {
    gpubench::Info info{
        s.name, "mandelbrot", s.backend, s.device_kind, s.description,
        "H: image rows; W = round(1.5 H) columns over [-2,1] x [-1,1] (1024 -> 1536 x 1024)",
        "1.0",
        "iterations=1..65535 (default 20, as in the article; pixels x iterations at most "
        "those of max_size at 256); dtype=float64|float32 (default float64, as in the "
        "article); image=PATH.pgm (write the last image after verify, P5, maxval iterations)",
        1, s.max_size, s.default_sizes, "pixels", GPUBENCH_HEADLINE_ITEMS};
    info.params = {kIterationsParam, kDtypeParam, kImageParam};
    return info;
}

gpubench::Work make_work(const BackendSpec &spec, uint64_t height,
                         const gpubench::Params &params) {
    parse_params(params);  // a bad parameter fails here already
    const double pixels = static_cast<double>(width_of(height)) * static_cast<double>(height);
    gpubench::Work w;
    w.flops = 0;
    w.items = pixels;
    w.bytes = 2.0 * pixels;
    w.host_bytes = 2.0 * pixels;
    w.device_bytes = spec.device_kind == GPUBENCH_DEVICE_CUDA ? 2.0 * pixels : 0.0;
    return w;
}

Geometry make_geometry(const BackendSpec &spec, const gpubench::Setup &setup) {
    const size_t height = gpubench::checked_size(make_info(spec), setup.size);
    Geometry g = parse_params(setup.params);
    g.height = static_cast<int>(height);
    g.width = static_cast<int>(width_of(height));
    // max_size holds at 256 iterations; more iterations shrink it (a naive run and the CPU
    // reference must stay around a minute).
    const uint64_t max_rows = spec.max_size;
    const double budget = static_cast<double>(width_of(max_rows) * max_rows) * 256.0;
    if (static_cast<double>(g.pixels()) * g.iterations > budget)
        throw gpubench::NotSupported(
            std::to_string(g.width) + " x " + std::to_string(g.height) + " x iterations=" +
            std::to_string(g.iterations) + " exceeds the budget of " +
            std::to_string(width_of(max_rows)) + " x " + std::to_string(max_rows) + " x 256");
    return g;
}

void poison(uint16_t *image, size_t pixels) { std::fill(image, image + pixels, uint16_t{0xFFFF}); }

Checker::Checker(const BackendSpec &spec, const gpubench::Setup &setup)
    : on_gpu_(spec.device_kind == GPUBENCH_DEVICE_CUDA),
      geometry_(make_geometry(spec, setup)),
      threads_(setup.threads()) {}

gpubench::Verification Checker::verify(const uint16_t *image) {
    const Geometry &g = geometry_;
    uint64_t differing = 0, invalid = 0, off_axis = 0;
    int64_t first = INT64_MAX;  // pixel index of the first difference
    with_precision(g.dtype, [&](auto zero) {
        using T = decltype(zero);
        const Frame<T> frame = make_frame<T>(g);
#pragma omp parallel for schedule(dynamic) num_threads(threads_) \
    reduction(+ : differing, invalid, off_axis) reduction(min : first)
        for (int y = 0; y < g.height; ++y) {
            // A real c keeps every z real: the set's antenna on [-2, -1.4] is a line, and the
            // reference's row at ci == 0 exactly (y = H/2 of an even H) lies on it. A GPU that
            // contracts min_y + y * step_y to an FMA gets a ci a rounding off 0, which escapes
            // there, earlier (H = 1000: 250 pixels of that row): a right answer for its ci.
            const bool on_axis = on_gpu_ && frame.min_y + T(y) * frame.step_y == T(0);
            for (int x = 0; x < g.width; ++x) {
                const int64_t at = int64_t{y} * g.width + x;
                const uint16_t expected = pixel_value(frame, x, y);
                if (image[at] == expected) continue;
                if (on_axis && image[at] < expected) {
                    ++off_axis;
                    continue;
                }
                ++differing;
                if (image[at] > g.iterations) ++invalid;
                first = std::min(first, at);
            }
        }
    });
    differing_ = differing;

    const uint64_t allowed = on_gpu_ ? allowed_on_gpu(g) : 0;
    gpubench::Verification v;
    v.checked = g.pixels();
    v.max_error = static_cast<double>(differing);  // pixels that differ
    v.tolerance = static_cast<double>(allowed);
    v.passed = differing <= allowed && invalid == 0;
    v.detail = "escape counts of all " + std::to_string(v.checked) + " pixels vs the CPU " +
               (g.dtype == Dtype::float64 ? "float64" : "float32") + " reference: " +
               std::to_string(differing) + " differ (allowed " + std::to_string(allowed) +
               (on_gpu_ ? ", FMA contraction" : ", same arithmetic") + ")";
    if (off_axis)
        v.detail += ", and " + std::to_string(off_axis) + " of the real axis's row escape earlier (ci rounded off 0)";
    if (invalid) v.detail += ", " + std::to_string(invalid) + " above iterations";
    if (differing) {
        const int64_t x = first % g.width, y = first / g.width;
        v.detail += "; first at (" + std::to_string(x) + "," + std::to_string(y) + "): " +
                    std::to_string(image[first]);
        with_precision(g.dtype, [&](auto zero) {
            v.detail += " vs " + std::to_string(pixel_value(make_frame<decltype(zero)>(g),
                                                            int(x), int(y)));
        });
    }
    if (!g.image_path.empty()) write_pgm(g, image);
    return v;
}

std::vector<gpubench::Metric> Checker::metrics(const uint16_t *image) const {
    const int64_t pixels = static_cast<int64_t>(geometry_.pixels());
    uint64_t total = 0;
#pragma omp parallel for schedule(static) num_threads(threads_) reduction(+ : total)
    for (int64_t i = 0; i < pixels; ++i) total += image[i];
    return {
        {"total_iterations", static_cast<double>(total), "",
         "sum of the escape counts (~ the z = z^2 + c steps)"},
        {"pixels_differing", static_cast<double>(differing_), "pixels",
         "vs the CPU reference"},
    };
}

}  // namespace mandelbrot
