#include "sizes.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

constexpr uint64_t max_exact = 1ull << 53;  // sizes are parsed through double

std::string trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t");
    return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

[[noreturn]] void fail(const std::string &item, const std::string &why) {
    throw std::invalid_argument("invalid size '" + item + "': " + why);
}

double parse_real(const std::string &text, const std::string &item) {
    if (text.empty()) fail(item, "empty number");
    size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception &) {
        fail(item, "'" + text + "' is not a number");
    }
    if (used != text.size()) fail(item, "'" + text + "' is not a number");
    return value;
}

// A whole number, "1e6" or "b^e".
uint64_t parse_number(const std::string &text, const std::string &item) {
    double value;
    size_t caret = text.find('^');
    if (caret != std::string::npos) {
        double base = parse_real(text.substr(0, caret), item);
        double exponent = parse_real(text.substr(caret + 1), item);
        value = std::pow(base, exponent);
    } else {
        value = parse_real(text, item);
    }
    if (!std::isfinite(value) || value < 1) fail(item, "sizes must be whole numbers >= 1");
    if (value > static_cast<double>(max_exact)) fail(item, "too large (limit 2^53)");
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
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string_view::npos) end = text.size();
        std::string item = trim(text.substr(start, end - start));
        if (item.empty()) fail(std::string(text), "empty item in the list");
        if (item.find("..") != std::string::npos)
            append_range(item, sizes);
        else
            sizes.push_back(parse_number(item, item));
        start = end + 1;
    }
    return sizes;
}

}  // namespace gpubench
