// mandelbrot's verification of a GPU image: the pixels FMA contraction may change are allowed,
// and so is the real axis's row escaping earlier where a GPU's ci is a rounding off 0 (the
// reference's row at ci == 0 exactly lies on the set's antenna, a line); nothing else is.
#include "mandelbrot_common.hpp"

#include <catch2/catch.hpp>

#include <vector>

namespace {

const gpubench::BackendSpec kGpu{"mandelbrot_test_gpu", "test", GPUBENCH_DEVICE_CUDA, "", 16384, {}};
const gpubench::BackendSpec kCpu{"mandelbrot_test_cpu", "test", GPUBENCH_DEVICE_CPU, "", 16384, {}};

// The reference image of 1000 rows (1500 x 1000, its row 500 at ci == 0) at 256 iterations.
struct Image {
    gpubench::Setup setup;
    mandelbrot::Geometry geometry;
    std::vector<uint16_t> pixels;
    Image() {
        setup.size = 1000;
        setup.cpu_threads = 2;
        setup.params = gpubench::Params("iterations=256");
        geometry = mandelbrot::make_geometry(kGpu, setup);
        pixels.resize(geometry.pixels());
        const auto frame = mandelbrot::make_frame<double>(geometry);
        for (int y = 0; y < geometry.height; ++y) mandelbrot::render_row(frame, y, pixels.data());
    }
    uint16_t &at(int x, int y) { return pixels[size_t(y) * geometry.width + x]; }
    // Pixels of row y in the antenna (x < 300: cr < -1.4) lowered to `count`.
    void lower_antenna(int y, uint16_t count) {
        for (int x = 1; x < 300; ++x) at(x, y) = count;
    }
};

gpubench::Verification verify(const gpubench::BackendSpec &spec, Image &image) {
    mandelbrot::Checker checker(spec, image.setup);
    return checker.verify(image.pixels.data());
}

}  // namespace

TEST_CASE("mandelbrot's check: a GPU's real axis escaping earlier passes, and the same elsewhere fails", "[mandelbrot]") {
    Image image;
    REQUIRE(image.geometry.height == 1000);
    REQUIRE(image.at(100, 500) == 256);  // the antenna, on the axis: never escapes
    CHECK(verify(kGpu, image).passed);

    SECTION("the axis row escaping earlier (a ci off 0) passes, and the detail says so") {
        image.lower_antenna(500, 50);
        const gpubench::Verification v = verify(kGpu, image);
        CHECK(v.passed);
        CHECK(v.max_error == 0);
        CHECK_THAT(v.detail, Catch::Contains("299 of the real axis's row escape earlier"));
    }
    SECTION("another row changed as much fails") {
        image.lower_antenna(499, 0);
        CHECK_FALSE(verify(kGpu, image).passed);
    }
    SECTION("the axis row escaping later fails") {
        int later = 0;
        for (int x = 0; x < image.geometry.width; ++x)
            if (image.at(x, 500) < 256) ++image.at(x, 500), ++later;  // cr > 0.25 escapes
        REQUIRE(later > 169);
        const gpubench::Verification v = verify(kGpu, image);
        CHECK(v.max_error == later);
        CHECK_FALSE(v.passed);
    }
    SECTION("a CPU backend's image must equal the reference: the axis too") {
        image.lower_antenna(500, 50);
        CHECK_FALSE(verify(kCpu, image).passed);
    }
}
