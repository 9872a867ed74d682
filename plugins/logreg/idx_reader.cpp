#include "idx_reader.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

#ifdef LOGREG_HAVE_ZLIB
#include <zlib.h>
#endif

namespace logreg {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // unsigned bytes, 1 dimension
// Far above any MNIST-like file; bounds what a corrupt header can make us allocate.
constexpr uint64_t kMaxBytes = uint64_t{1} << 32;

#ifndef LOGREG_HAVE_ZLIB
bool ends_with(const std::string &text, const std::string &suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
#endif

// Sequential bytes of a plain or gzip file. zlib's gzread also reads uncompressed files
// unchanged, so with zlib one code path serves both.
class ByteSource {
public:
    explicit ByteSource(const std::string &path) : path_(path) {
#ifdef LOGREG_HAVE_ZLIB
        gz_ = gzopen(path.c_str(), "rb");
        if (!gz_) throw IdxError(path + ": cannot open");
#else
        if (ends_with(path, ".gz"))
            throw IdxError(path + ": .gz files need zlib, which this build lacks");
        file_ = std::fopen(path.c_str(), "rb");
        if (!file_) throw IdxError(path + ": cannot open");
#endif
    }
    ~ByteSource() {
#ifdef LOGREG_HAVE_ZLIB
        gzclose(gz_);
#else
        std::fclose(file_);
#endif
    }
    ByteSource(const ByteSource &) = delete;
    ByteSource &operator=(const ByteSource &) = delete;

    // Reads exactly `count` bytes or throws, naming `what` was being read.
    void read(void *to, size_t count, const char *what) {
        auto *out = static_cast<unsigned char *>(to);
        size_t done = 0;
        while (done < count) {
            const size_t chunk = std::min<size_t>(count - done, size_t{1} << 30);
#ifdef LOGREG_HAVE_ZLIB
            const int got = gzread(gz_, out + done, static_cast<unsigned>(chunk));
            if (got < 0) {
                int code = 0;
                throw IdxError(path_ + ": read error in " + what + ": " + gzerror(gz_, &code));
            }
#else
            const size_t got = std::fread(out + done, 1, chunk, file_);
            if (std::ferror(file_)) throw IdxError(path_ + ": read error in " + what);
#endif
            if (got == 0)
                throw IdxError(path_ + ": truncated in " + what + ": " +
                               std::to_string(count) + " bytes expected, " +
                               std::to_string(done) + " found");
            done += static_cast<size_t>(got);
        }
    }

    // Reads exactly `count` bytes into a vector that grows with the data actually read, so
    // that a header claiming more than the file holds costs no more memory than the file.
    std::vector<uint8_t> read_bytes(uint64_t count, const char *what) {
        constexpr uint64_t step = uint64_t{16} << 20;
        std::vector<uint8_t> bytes;
        while (bytes.size() < count) {
            const size_t before = bytes.size();
            const size_t chunk = static_cast<size_t>(std::min<uint64_t>(count - before, step));
            bytes.resize(before + chunk);
            try {
                read(bytes.data() + before, chunk, what);
            } catch (const IdxError &) {
                throw IdxError(path_ + ": truncated in " + what + ": the header declares " +
                               std::to_string(count) + " bytes, the file holds fewer (" +
                               std::to_string(before) + " to " + std::to_string(before + chunk) +
                               ")");
            }
        }
        return bytes;
    }

    uint32_t read_big_endian(const char *what) {
        std::array<unsigned char, 4> b{};
        read(b.data(), b.size(), what);
        return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
    }

    const std::string &path() const { return path_; }

private:
    std::string path_;
#ifdef LOGREG_HAVE_ZLIB
    gzFile gz_ = nullptr;
#else
    std::FILE *file_ = nullptr;
#endif
};

std::string hex(uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08X", value);
    return text;
}

void expect_magic(ByteSource &source, uint32_t expected, const char *kind) {
    const uint32_t magic = source.read_big_endian("the magic number");
    if (magic != expected)
        throw IdxError(source.path() + ": bad magic " + hex(magic) + ", expected " +
                       hex(expected) + " (" + kind + ")");
}

}  // namespace

IdxImages read_idx_images(const std::string &path) {
    ByteSource source(path);
    expect_magic(source, kImagesMagic, "IDX3 unsigned-byte images");
    IdxImages images;
    images.count = source.read_big_endian("the image count");
    images.rows = source.read_big_endian("the row count");
    images.cols = source.read_big_endian("the column count");
    // Each dimension is below 2^32, so one image's size fits in 64 bits but the total may
    // not: it is bounded by division before it is multiplied (2^22 x 2^22 x 2^20 wraps to 0).
    const uint64_t image_bytes = uint64_t{images.rows} * images.cols;
    if (images.rows == 0 || images.cols == 0 || images.count > kMaxBytes / image_bytes)
        throw IdxError(path + ": implausible dimensions " + std::to_string(images.count) +
                       " x " + std::to_string(images.rows) + " x " +
                       std::to_string(images.cols));
    images.pixels = source.read_bytes(images.count * image_bytes, "the pixels");
    return images;
}

std::vector<uint8_t> read_idx_labels(const std::string &path) {
    ByteSource source(path);
    expect_magic(source, kLabelsMagic, "IDX1 unsigned-byte labels");
    const uint32_t count = source.read_big_endian("the label count");
    return source.read_bytes(count, "the labels");
}

}  // namespace logreg
