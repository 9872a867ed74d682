// What every mandelbrot backend shares: the descriptor data, the work model, the
// escape-time function itself (host and device), and the verification against a CPU
// reference that also writes the optional PGM image and the metrics.
//
// The image: H rows x W = round(1.5 H) columns over the fixed view [-2, 1] x [-1, 1], as in
// the GPU survival toolkit article. Pixel (x, y) is c = (-2 + x * 3/W) + i(-1 + y * 2/H);
// z = z^2 + c from z = 0; the value is the iteration index i at which |z|^2 >= 4, or
// `iterations` if it never escapes. Arithmetic in double like the article (dtype=float32
// optional); values stored as uint16.
#pragma once

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#define MANDELBROT_HOST_DEVICE __host__ __device__
#else
#define MANDELBROT_HOST_DEVICE
#endif

namespace mandelbrot {

enum class Dtype { float64, float32 };  // the default first, as dtype= lists them

// Descriptor data for one backend: its own row (name, device, sizes, description) plus
// what every mandelbrot backend shares.
gpubench::Info make_info(const gpubench::BackendSpec &spec);

// items = W*H pixels, bytes = W*H*2 (the image written), flops = 0: the iterations are data
// dependent, so they are reported as the metric total_iterations instead.
gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t height,
                         const gpubench::Params &params);

// W = round(1.5 H): 1024 rows -> 1536 columns, the article's image.
constexpr uint64_t width_of(uint64_t height) { return (3 * height + 1) / 2; }

// The GPU backends' max_size: 24576 x 16384 pixels, 0.8 GB of uint16. Pixel indices fit an
// int, and the CPU reference stays a few seconds on 16 threads at 256 iterations.
constexpr uint64_t kMaxGpuRows = 16384;
static_assert(width_of(kMaxGpuRows) * kMaxGpuRows < (uint64_t{1} << 31));

// One instance's image and parameters, validated.
struct Geometry {
    int width = 0, height = 0;
    int iterations = 20;  // 1 ..65535: every value fits uint16
    Dtype dtype = Dtype::float64;
    std::string image_path;  // empty: no PGM
    size_t pixels() const { return static_cast<size_t>(width) * static_cast<size_t>(height); }
};

// Size and parameters of `setup` for `backend`: NotSupported outside the size range or when
// pixels x iterations exceeds that of max_size at 256 iterations; InvalidArgument for a bad
// iterations, dtype or image value.
Geometry make_geometry(const gpubench::BackendSpec &spec, const gpubench::Setup &setup);

// The view sampled at the image's pixels, in precision T. Computed once on the host and
// handed to kernels, so every backend uses the same pixel steps.
template <class T>
struct Frame {
    T min_x, min_y, step_x, step_y;
    int width, height, iterations;
};

template <class T>
Frame<T> make_frame(const Geometry &g) {
    return {T(-2), T(-1), T(3) / T(g.width), T(2) / T(g.height), g.width, g.height,
            g.iterations};
}

// The article's mandel(): the index of the first iteration with |z|^2 >= 4, or iterations.
// z*z + c is written out as Python's complex arithmetic does it (2*zr*zi == zr*zi + zi*zr
// exactly), so without FMA contraction the result equals the article's bit for bit.
template <class T>
MANDELBROT_HOST_DEVICE inline uint16_t escape_count(T cr, T ci, int iterations) {
    T zr = 0, zi = 0;
    for (int i = 0; i < iterations; ++i) {
        const T next_r = zr * zr - zi * zi + cr;
        zi = T(2) * zr * zi + ci;
        zr = next_r;
        if (zr * zr + zi * zi >= T(4)) return static_cast<uint16_t>(i);
    }
    return static_cast<uint16_t>(iterations);
}

template <class T>
MANDELBROT_HOST_DEVICE inline uint16_t pixel_value(const Frame<T> &f, int x, int y) {
    return escape_count(f.min_x + T(x) * f.step_x, f.min_y + T(y) * f.step_y, f.iterations);
}

// Row y of the image, left to right (host code).
template <class T>
void render_row(const Frame<T> &f, int y, uint16_t *image) {
    uint16_t *row = image + static_cast<size_t>(y) * static_cast<size_t>(f.width);
    for (int x = 0; x < f.width; ++x) row[x] = pixel_value(f, x, y);
}

// Calls body(T{}) with T = double or float as dtype says.
template <class Body>
void with_precision(Dtype dtype, Body &&body) {
    if (dtype == Dtype::float32)
        body(float{});
    else
        body(double{});
}

// 0xFFFF in every pixel: above any valid value unless iterations is 65535.
void poison(uint16_t *image, size_t pixels);

// verify() and metrics() of every backend. verify recomputes every pixel on the CPU
// (OpenMP over `threads`, compiled without FMA contraction) and counts the pixels that
// differ: none for CPU backends (same function, same arithmetic). GPU backends are compiled
// by nvcc with FMA contraction, and a one-ulp change grows along the chaotic orbits near the
// set's boundary: they may differ in 16 + a small fraction of the pixels that grows with
// the iterations (float64: 1e-4 at 256 iterations; float32: 1e-2; see allowed_on_gpu). A
// value above `iterations` is never accepted. After the check it writes the PGM if image=
// was given.
class Checker {
public:
    Checker(const gpubench::BackendSpec &spec, const gpubench::Setup &setup);
    const Geometry &geometry() const { return geometry_; }

    gpubench::Verification verify(const uint16_t *image);
    // total_iterations (sum of the pixel values) and pixels_differing (from verify).
    std::vector<gpubench::Metric> metrics(const uint16_t *image) const;

private:
    bool on_gpu_;  // the GPU allowance applies
    Geometry geometry_;
    int threads_;
    uint64_t differing_ = 0;
};

// The CPU problem: the image in host memory. Render has static
// image(const Geometry &, uint16_t *image, int threads) computing all of it.
template <const gpubench::BackendSpec &Spec, class Render>
class HostProblem {
public:
    explicit HostProblem(const gpubench::Setup &setup)
        : checker_(Spec, setup),
          threads_(setup.threads()),
          image_(checker_.geometry().pixels()) {
        poison(image_.data(), image_.size());
    }
    static gpubench::Work work(uint64_t height, const gpubench::Params &params) {
        return make_work(Spec, height, params);
    }
    void run() { Render::image(checker_.geometry(), image_.data(), threads_); }
    gpubench::Verification verify() { return checker_.verify(image_.data()); }
    std::vector<gpubench::Metric> metrics() const { return checker_.metrics(image_.data()); }

private:
    Checker checker_;
    int threads_;
    std::vector<uint16_t> image_;
};

}  // namespace mandelbrot
