#include "file_text.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace gpubench {
namespace {

bool is_gzip(const std::string &bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Every gzip member of `compressed` (`cat a.gz b.gz` is one file), inflated.
std::string inflated(const std::string &compressed, const std::string &name) {
    z_stream stream{};
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("cannot inflate " + name);
    const std::unique_ptr<z_stream, decltype(&inflateEnd)> end_stream(&stream, inflateEnd);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed.data()));
    stream.avail_in = static_cast<uInt>(compressed.size());
    std::string text;
    char chunk[1 << 16];
    int status = Z_OK;
    while (status != Z_STREAM_END || stream.avail_in > 0) {
        if (status == Z_STREAM_END) inflateReset(&stream);  // the next member
        stream.next_out = reinterpret_cast<Bytef *>(chunk);
        stream.avail_out = sizeof chunk;
        status = inflate(&stream, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END)
            throw std::runtime_error(name + " is not valid gzip data (" + (stream.msg ? stream.msg : "truncated") + ")");
        text.append(chunk, sizeof chunk - stream.avail_out);
        if (text.size() > max_inflated_bytes)
            throw std::runtime_error(name + " inflates to more than 1 GiB: not a results file");
        if (status == Z_OK && stream.avail_in == 0 && stream.avail_out != 0)
            throw std::runtime_error(name + " is not valid gzip data (truncated)");
    }
    return text;
}

}  // namespace

std::string read_file_text(const std::filesystem::path &path) {
    const std::string name = path.string();
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + name + ": " + std::strerror(errno));
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw std::runtime_error("cannot read " + name);
    return is_gzip(bytes) ? inflated(bytes, name) : bytes;
}

}  // namespace gpubench
