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

// Length of the valid UTF-8 sequence starting at text[at], or 0: RFC 3629's well-formed forms,
// each a range of lead bytes, its length and the range of its second byte (no overlong forms, no
// surrogates, nothing above U+10FFFF); any further byte is 0x80 to 0xBF.
size_t utf8_sequence_length(std::string_view text, size_t at) {
    struct Form {
        unsigned char lead_low, lead_high;
        size_t length;
        unsigned char second_low, second_high;
    };
    static constexpr Form forms[] = {
        {0x00, 0x7F, 1, 0, 0},       {0xC2, 0xDF, 2, 0x80, 0xBF}, {0xE0, 0xE0, 3, 0xA0, 0xBF},
        {0xE1, 0xEC, 3, 0x80, 0xBF}, {0xED, 0xED, 3, 0x80, 0x9F}, {0xEE, 0xEF, 3, 0x80, 0xBF},
        {0xF0, 0xF0, 4, 0x90, 0xBF}, {0xF1, 0xF3, 4, 0x80, 0xBF}, {0xF4, 0xF4, 4, 0x80, 0x8F}};
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    for (const Form &form : forms) {
        if (byte(at) < form.lead_low || byte(at) > form.lead_high) continue;
        if (at + form.length > text.size()) return 0;
        for (size_t i = 1; i < form.length; ++i) {
            const unsigned char low = i == 1 ? form.second_low : 0x80, high = i == 1 ? form.second_high : 0xBF;
            if (byte(at + i) < low || byte(at + i) > high) return 0;
        }
        return form.length;
    }
    return 0;
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
