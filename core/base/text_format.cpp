#include "text_format.hpp"

#include <cstdarg>
#include <cstdio>

namespace gpubench {

std::string format_seconds(double s) {
    if (s < 1e-3) return format_text("%.2f us", s * 1e6);
    if (s < 1) return format_text("%.3f ms", s * 1e3);
    return format_text("%.3f s", s);
}

std::string format_size(uint64_t size) {
    if (size < 100000) return std::to_string(size);
    return format_text("%.3g", static_cast<double>(size));
}

std::string format_memory(double bytes) {
    if (bytes >= (1ull << 30)) return format_text("%.3g GiB", bytes / double(1ull << 30));
    if (bytes >= (1ull << 20)) return format_text("%.3g MiB", bytes / double(1ull << 20));
    return format_text("%.3g KiB", bytes / 1024.0);
}

std::string trim(std::string_view text) {
    const size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
    return b == std::string_view::npos ? std::string() : std::string(text.substr(b, e - b + 1));
}

std::string format_text(const char *format, ...) {
    va_list arguments, measured;
    va_start(arguments, format);
    va_copy(measured, arguments);
    const int length = std::vsnprintf(nullptr, 0, format, measured);
    va_end(measured);
    std::string text(length > 0 ? static_cast<size_t>(length) : 0, '\0');
    if (length > 0) std::vsnprintf(text.data(), text.size() + 1, format, arguments);
    va_end(arguments);
    return text;
}

namespace {

// Length of the valid UTF-8 sequence starting at text[at], or 0 (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(std::string_view text, size_t at) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80) return 1;
    size_t length;
    unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) length = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (at + length > text.size()) return 0;
    if (byte(at + 1) < low || byte(at + 1) > high) return 0;
    for (size_t i = 2; i < length; ++i)
        if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
    return length;
}

}  // namespace

std::string printable_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t at = 0; at < text.size();) {
        const unsigned char byte = static_cast<unsigned char>(text[at]);
        const bool control = byte < 0x20 || byte == 0x7F;
        if (const size_t length = control ? 0 : utf8_sequence_length(text, at)) {
            out.append(text.substr(at, length));
            at += length;
        } else {
            out += format_text("\\x%02X", byte);
            ++at;
        }
    }
    return out;
}

std::vector<std::string> split_list(const std::string &text, char separator, bool keep_empty) {
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(separator, start);
        if (end == std::string::npos) end = text.size();
        std::string item = trim(std::string_view(text).substr(start, end - start));
        if (keep_empty || !item.empty()) items.push_back(std::move(item));
        start = end + 1;
    }
    return items;
}

std::string join(const std::vector<std::string> &items, const std::string &separator) {
    std::string joined;
    for (size_t i = 0; i < items.size(); ++i) joined += (i ? separator : "") + items[i];
    return joined;
}

}  // namespace gpubench
