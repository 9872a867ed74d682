// A declared parameter in C++ form (ABI 1.10, gpubench/param.h): its key, type, allowed values
// or range, default and help. A plugin lists them in Info::params and reads each with
// Params::get(spec) and its typed forms, so that a key's default and its allowed values are
// written once; the runner checks --param values with the same value_problem().
//
//   const gpubench::ParamSpec kDtype = gpubench::choice("dtype", {"float32", "float64"},
//                                                       "element type");  // default: the first
//   const gpubench::ParamSpec kIterations = gpubench::whole("iterations", 100, 1, 100000,
//                                                           "gradient steps");
#pragma once

#include <gpubench/param.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace gpubench {

struct ParamSpec {
    std::string key;
    gpubench_param_kind kind = GPUBENCH_PARAM_TEXT;
    std::string default_value;         // as text, one of the allowed values
    std::vector<std::string> choices;  // GPUBENCH_PARAM_CHOICE
    double min = 0, max = 0;           // GPUBENCH_PARAM_INT, GPUBENCH_PARAM_REAL
    std::string help;
};

// A number as the shortest text that reads back the same ("0.1", "1e-06"), a whole one in
// digits ("100000", never "1e+05").
inline std::string param_number_text(double value) {
    if (value == std::floor(value) && std::fabs(value) < 1e15) return std::to_string(static_cast<long long>(value));
    char text[32];
    const auto written = std::to_chars(text, text + sizeof text, value);
    return std::string(text, written.ptr);
}

// One of `choices`; the first is the default.
inline ParamSpec choice(std::string key, std::vector<std::string> choices, std::string help) {
    ParamSpec p{std::move(key), GPUBENCH_PARAM_CHOICE, "", std::move(choices), 0, 0, std::move(help)};
    if (!p.choices.empty()) p.default_value = p.choices.front();
    return p;
}
// A whole number from min to max.
inline ParamSpec whole(std::string key, long long fallback, long long min, long long max, std::string help) {
    return {std::move(key), GPUBENCH_PARAM_INT, std::to_string(fallback), {}, double(min), double(max),
            std::move(help)};
}
// A number from min to max.
inline ParamSpec real(std::string key, double fallback, double min, double max, std::string help) {
    return {std::move(key), GPUBENCH_PARAM_REAL, param_number_text(fallback), {}, min, max, std::move(help)};
}
// Any text (a path...), which the plugin checks itself.
inline ParamSpec text(std::string key, std::string fallback, std::string help) {
    return {std::move(key), GPUBENCH_PARAM_TEXT, std::move(fallback), {}, 0, 0, std::move(help)};
}

// The declarations of a Python script's PARAMETERS line, ';'-separated items of the forms
// "key: a|b [= b]", "key: int LO..HI = D", "key: real LO..HI = D", "key: text [= D]" (the
// build checked the forms: gpubenchPython.cmake). Throws std::invalid_argument naming an item
// of another form.
inline std::vector<ParamSpec> parse_param_specs(const std::string &line) {
    const auto trimmed = [](std::string t) {
        t.erase(0, t.find_first_not_of(' '));
        t.erase(t.find_last_not_of(' ') + 1);
        return t;
    };
    std::vector<ParamSpec> specs;
    for (size_t begin = 0; begin <= line.size();) {
        const size_t end = std::min(line.find(';', begin), line.size());
        const std::string item = trimmed(line.substr(begin, end - begin));
        begin = end + 1;
        if (item.empty()) continue;
        const size_t colon = item.find(':'), equals = item.find('=');
        if (colon == std::string::npos) throw std::invalid_argument("PARAMETERS item '" + item + "' has no 'key:'");
        std::string spec = trimmed(item.substr(colon + 1, equals == std::string::npos ? std::string::npos : equals - colon - 1));
        const std::string key = trimmed(item.substr(0, colon));
        const std::string fallback = equals == std::string::npos ? "" : trimmed(item.substr(equals + 1));
        const size_t dots = spec.find("..");
        if ((spec.rfind("int ", 0) == 0 || spec.rfind("real ", 0) == 0) && dots != std::string::npos) {
            const size_t space = spec.find(' ');
            const double lo = std::strtod(spec.substr(space + 1, dots - space - 1).c_str(), nullptr);
            const double hi = std::strtod(spec.substr(dots + 2).c_str(), nullptr);
            specs.push_back({key, spec[0] == 'i' ? GPUBENCH_PARAM_INT : GPUBENCH_PARAM_REAL, fallback, {}, lo, hi, ""});
        } else if (spec == "text") {
            specs.push_back(text(key, fallback, ""));
        } else {
            std::vector<std::string> values;
            for (size_t at = 0; at <= spec.size();) {
                const size_t bar = std::min(spec.find('|', at), spec.size());
                values.push_back(trimmed(spec.substr(at, bar - at)));
                at = bar + 1;
            }
            specs.push_back(choice(key, values, ""));
            if (!fallback.empty()) specs.back().default_value = fallback;
        }
    }
    return specs;
}

// The allowed values in words: "float32 or float64", "a whole number from 1 to 100000".
inline std::string allowed_text(const ParamSpec &p) {
    switch (p.kind) {
    case GPUBENCH_PARAM_CHOICE: {
        std::string names;
        for (size_t i = 0; i < p.choices.size(); ++i)
            names += (i == 0 ? "" : i + 1 < p.choices.size() ? ", " : " or ") + p.choices[i];
        return names;
    }
    case GPUBENCH_PARAM_INT:
        return "a whole number from " + param_number_text(p.min) + " to " + param_number_text(p.max);
    case GPUBENCH_PARAM_REAL:
        return "a number from " + param_number_text(p.min) + " to " + param_number_text(p.max);
    default:
        return "any text without ','";
    }
}

// "" when `value` is allowed, else why not: "dtype='float16': expected float32 or float64".
inline std::string value_problem(const ParamSpec &p, const std::string &value) {
    bool allowed = value.find(',') == std::string::npos;
    if (p.kind == GPUBENCH_PARAM_CHOICE) {
        allowed = false;
        for (const std::string &c : p.choices) allowed = allowed || c == value;
    } else if (p.kind == GPUBENCH_PARAM_INT || p.kind == GPUBENCH_PARAM_REAL) {
        char *end = nullptr;
        const double number = p.kind == GPUBENCH_PARAM_INT ? double(std::strtoll(value.c_str(), &end, 10))
                                                           : std::strtod(value.c_str(), &end);
        allowed = !value.empty() && end && *end == '\0' && std::isfinite(number) && number >= p.min &&
                  number <= p.max;
    }
    return allowed ? "" : p.key + "='" + value + "': expected " + allowed_text(p);
}

}  // namespace gpubench
