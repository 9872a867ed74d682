#include "file_text.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

namespace {

constexpr uint64_t max_inflated_bytes = uint64_t(1) << 30;

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
    return bytes.starts_with("\x1f\x8b") ? inflated(bytes, name) : bytes;  // gzip's magic bytes
}

std::string without_exception_id(const std::string &what) {
    const auto end = what.find("] ");
    return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

json parse_bounded(const std::string &text, const std::string &name) {
    struct TooDeep {};
    const json::parser_callback_t refuse_deep = [](int depth, json::parse_event_t event, json &) {
        if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
            depth >= max_results_depth)
            throw TooDeep{};
        return true;
    };
    try {
        return json::parse(text, refuse_deep);
    } catch (const TooDeep &) {
        throw std::runtime_error(name + " nests objects or arrays more than " +
                                 std::to_string(max_results_depth) + " deep: not a results file");
    } catch (const json::exception &e) {
        throw std::runtime_error(name + " is not valid JSON (" + without_exception_id(e.what()) + ")");
    }
}

}  // namespace gpubench
