#include "text_format.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <optional>
#include <stdexcept>

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


constexpr uint64_t max_exact = 1ull << 53;  // sizes are parsed through double

[[noreturn]] void fail(const std::string &item, const std::string &why) {
    throw std::invalid_argument("invalid size '" + item + "': " + why);
}

// A plain whole number, exactly (any 64-bit value); nullopt when `text` is not only digits.
std::optional<uint64_t> parse_integer(const std::string &text, const std::string &item) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range) fail(item, "too large (limit 2^64-1)");
    if (error != std::errc() || end != text.data() + text.size()) fail(item, "'" + text + "' is not a number");
    return value;
}

// "1e6", "2.5e3": decimal digits, an optional fraction and an optional exponent; no sign,
// hex, "inf" or "nan", which std::stod would take.
double parse_decimal(const std::string &text, const std::string &item) {
    size_t i = 0;
    const auto digits = [&] {
        const size_t from = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        return i > from;
    };
    bool ok = digits();
    if (ok && i < text.size() && text[i] == '.') {
        ++i;
        ok = digits();
    }
    if (ok && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && text[i] == '+') ++i;
        ok = digits();
    }
    if (!ok || i != text.size())
        fail(item, text.rfind('-', 0) == 0 ? std::string("sizes must be whole numbers >= 1")
                                           : "'" + text + "' is not a number (digits, or forms "
                                             "such as 1e6 and 2.5e3)");
    errno = 0;
    const double value = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE && value != 0) fail(item, "too large (limit 2^64-1)");  // 1e999
    return value;
}

// A whole number: "1000", "1e6" or "b^e" (whole b and e).
uint64_t parse_number(const std::string &text, const std::string &item) {
    if (const size_t caret = text.find('^'); caret != std::string::npos) {
        const auto base = parse_integer(text.substr(0, caret), item);
        const auto exponent = parse_integer(text.substr(caret + 1), item);
        if (!base || !exponent) fail(item, "b^e takes whole numbers, e.g. 2^20");
        uint64_t value = 1;
        for (uint64_t i = 0; i < *exponent; ++i) {
            if (*base != 0 && value > UINT64_MAX / *base) fail(item, "too large (limit 2^64-1)");
            value *= *base;
            if (value == 0 || value == 1) break;  // 0^e and 1^e stay so
        }
        if (value < 1) fail(item, "sizes must be whole numbers >= 1");
        return value;
    }
    if (const auto exact = parse_integer(text, item)) {
        if (*exact < 1) fail(item, "sizes must be whole numbers >= 1");
        return *exact;
    }
    const double value = parse_decimal(text, item);
    if (!std::isfinite(value) || value < 1) fail(item, "sizes must be whole numbers >= 1");
    // From 2^53 on a double no longer holds every whole number: the size may have been
    // rounded on the way (9.007199254740993e15 reads as 2^53).
    if (value >= static_cast<double>(max_exact))
        fail(item, "too large for this form: from 2^53 on it may be rounded, write it in digits");
    if (value != std::floor(value)) fail(item, "not a whole number");
    return static_cast<uint64_t>(value);
}

void append_range(const std::string &item, std::vector<uint64_t> &out) {
    size_t dots = item.find("..");
    std::string step_text = "*2";
    std::string rest = item.substr(dots + 2);
    size_t colon = rest.find(':');
    if (colon != std::string::npos) {
        step_text = trim(rest.substr(colon + 1));
        rest = rest.substr(0, colon);
    }
    uint64_t lo = parse_number(trim(item.substr(0, dots)), item);
    uint64_t hi = parse_number(trim(rest), item);
    if (lo > hi) fail(item, "range start is above its end");
    if (step_text.size() < 2 || (step_text[0] != '*' && step_text[0] != '+'))
        fail(item, "range step must be *F or +S, e.g. 1..1e6:*10 or 100..1000:+100");
    uint64_t step = parse_number(step_text.substr(1), item);
    bool geometric = step_text[0] == '*';
    if (geometric && step < 2) fail(item, "a geometric step must be at least *2");
    for (uint64_t v = lo; v <= hi;) {
        out.push_back(v);
        if (out.size() > 100000) fail(item, "range yields more than 100000 sizes");
        uint64_t next = geometric ? v * step : v + step;
        if (next <= v || (geometric && next / step != v)) break;  // overflow
        v = next;
    }
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

std::string shell_word(const std::string &word) {
    const char *plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%";
    if (!word.empty() && word.find_first_not_of(plain) == std::string::npos) return word;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string shell_command(const std::vector<std::string> &words) {
    std::vector<std::string> typed;
    for (const std::string &word : words) typed.push_back(shell_word(word));
    return join(typed, " ");
}

std::vector<uint64_t> parse_sizes(std::string_view text) {
    std::vector<uint64_t> sizes;
    for (const std::string &item : split_list(std::string(text), ',', true)) {
        if (item.empty()) fail(std::string(text), "empty item in the list");
        if (item.find("..") != std::string::npos)
            append_range(item, sizes);
        else
            sizes.push_back(parse_number(item, item));
    }
    return sizes;
}

}  // namespace gpubench
