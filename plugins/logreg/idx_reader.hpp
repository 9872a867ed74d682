// A reader for the IDX format of MNIST and Fashion-MNIST: a big-endian header (magic
// 0x00000803 + three dimensions for images, 0x00000801 + one for labels), then the bytes.
// Files ending in .gz are read through zlib when gpubench was built with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace logreg {

// Thrown for a file that cannot be opened, has a bad magic, is truncated or is otherwise
// malformed; what() names the file and the problem on one line.
struct IdxError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct IdxImages {
    size_t count = 0, rows = 0, cols = 0;
    std::vector<uint8_t> pixels;  // count x rows x cols, row-major
};

IdxImages read_idx_images(const std::string &path);
std::vector<uint8_t> read_idx_labels(const std::string &path);

}  // namespace logreg
