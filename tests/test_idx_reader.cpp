// The IDX reader (logreg's data) trusts no header: a count that claims more than the file
// holds fails naming it, after allocating no more than the file's size.
#include "host_resources.hpp"
#include "idx_reader.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace {

std::filesystem::path write_idx(const std::string &name, const std::vector<uint32_t> &header,
                                size_t body_bytes) {
    const auto path = std::filesystem::temp_directory_path() /
                      (name + "_" + std::to_string(getpid()) + ".idx");
    std::ofstream out(path, std::ios::binary);
    for (uint32_t word : header)
        for (int shift = 24; shift >= 0; shift -= 8) out.put(static_cast<char>(word >> shift));
    out << std::string(body_bytes, '\x7f');
    return path;
}

}  // namespace

TEST_CASE("an IDX header claiming more than the file holds fails without allocating it", "[idx]") {
    // 5 million 28x28 images declared (3.9 GB), 1000 bytes present.
    const auto images = write_idx("idx_images", {0x00000803, 5'000'000, 28, 28}, 1000);
    gpubench::reset_peak_rss();
    const uint64_t before = gpubench::peak_rss_bytes();
    CHECK_THROWS_WITH(logreg::read_idx_images(images.string()),
                      Catch::Contains("truncated in the pixels: the header declares 3920000000 bytes"));
    CHECK(gpubench::peak_rss_bytes() - before < (64u << 20));
    // 0xFFFFFFFF labels declared (4.3 GB), 10 present.
    const auto labels = write_idx("idx_labels", {0x00000801, 0xFFFFFFFFu}, 10);
    CHECK_THROWS_WITH(logreg::read_idx_labels(labels.string()),
                      Catch::Contains("the header declares 4294967295 bytes"));
    CHECK(gpubench::peak_rss_bytes() - before < (64u << 20));
    // An honest file reads back whole.
    const auto small = write_idx("idx_small", {0x00000803, 2, 3, 4}, 24);
    const logreg::IdxImages read = logreg::read_idx_images(small.string());
    CHECK(read.pixels.size() == 24);
    for (const auto &path : {images, labels, small}) std::filesystem::remove(path);
}
