// The C++ half of mandelbrot's Python backends: the same check (and metrics, and image=
// output) as the C++ backends. The script writes ctx.outputs["image"], H x W uint16, and
// reads the frame every backend samples from ctx.constants, so it computes exactly the
// C++ image: pixel (x, y) is c = (min_x + x * step_x) + i (min_y + y * step_y), with the
// four values as dtype= rounds them (exact as doubles), iterations the escape-count limit,
// all arithmetic in float_bits (64, or 32 for dtype=float32).
#include "mandelbrot_common.hpp"

#include <gpubench/python_workload.hpp>

#include <memory>
#include <utility>
#include <vector>

namespace {

class MandelbrotData : public gpubench::python::Data {
public:
    MandelbrotData(const gpubench::BackendSpec &backend, const gpubench::Setup &setup)
        : checker_(backend, setup), image_(checker_.geometry().pixels()) {
        mandelbrot::poison(image_.data(), image_.size());
    }
    std::vector<gpubench::python::Array> arrays() override {
        const auto &g = checker_.geometry();
        return {{"image", "uint16", {size_t(g.height), size_t(g.width)}, image_.data(),
                 image_.size() * sizeof(uint16_t), true}};
    }
    std::vector<std::pair<std::string, double>> constants() override {
        std::vector<std::pair<std::string, double>> list;
        mandelbrot::with_precision(checker_.geometry().dtype, [&](auto zero) {
            const auto f = mandelbrot::make_frame<decltype(zero)>(checker_.geometry());
            list = {{"min_x", f.min_x},   {"min_y", f.min_y},     {"step_x", f.step_x},
                    {"step_y", f.step_y}, {"width", f.width},     {"height", f.height},
                    {"iterations", f.iterations}, {"float_bits", 8 * sizeof(zero)}};
        });
        return list;
    }
    gpubench::Verification verify() override { return checker_.verify(image_.data()); }
    std::vector<gpubench::Metric> metrics() override { return checker_.metrics(image_.data()); }

private:
    mandelbrot::Checker checker_;
    std::vector<uint16_t> image_;
};

std::unique_ptr<gpubench::python::Data> create(const gpubench::BackendSpec &backend,
                                               const gpubench::Setup &setup) {
    return std::make_unique<MandelbrotData>(backend, setup);
}

gpubench::Info info(const gpubench::BackendSpec &backend) { return mandelbrot::make_info(backend); }

gpubench::Work work(const gpubench::BackendSpec &backend, uint64_t height,
                    const gpubench::Params &params) {
    return mandelbrot::make_work(backend, height, params);
}

}  // namespace

extern const gpubench::python::Workload gpubench_python_workload{info, work, create};
