#include "sizes.hpp"

#include "text_format.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

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
