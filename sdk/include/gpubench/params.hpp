// The parameters of a run in C++ form: "key=value,key=value" as passed by the runner's
// --param options, read as text, numbers or one of a fixed set of names; best through the
// plugin's declarations (gpubench/param_spec.hpp), which hold each key's default and values.
#pragma once

#include <gpubench/errors.hpp>
#include <gpubench/param_spec.hpp>

#include <cstddef>
#include <cstdlib>
#include <map>
#include <string>

namespace gpubench {

class Params {
public:
    Params() = default;
    explicit Params(const char *text) : text_(text ? text : "") {
        const std::string &all = text_;
        size_t start = 0;
        while (start <= all.size()) {
            size_t end = all.find(',', start);
            if (end == std::string::npos) end = all.size();
            std::string item = all.substr(start, end - start);
            if (!item.empty()) {
                size_t eq = item.find('=');
                if (eq == std::string::npos || eq == 0)
                    throw InvalidArgument("parameter '" + item + "' is not key=value");
                values_[item.substr(0, eq)] = item.substr(eq + 1);
            }
            start = end + 1;
        }
    }
    bool has(const std::string &key) const { return values_.count(key) != 0; }
    std::string get(const std::string &key, const std::string &fallback) const {
        auto it = values_.find(key);
        return it == values_.end() ? fallback : it->second;
    }
    double get_double(const std::string &key, double fallback) const {
        auto it = values_.find(key);
        if (it == values_.end()) return fallback;
        char *end = nullptr;
        double v = std::strtod(it->second.c_str(), &end);
        if (end == it->second.c_str() || *end != '\0')
            throw InvalidArgument("parameter " + key + "='" + it->second + "' is not a number");
        return v;
    }
    long long get_int(const std::string &key, long long fallback) const {
        auto it = values_.find(key);
        if (it == values_.end()) return fallback;
        char *end = nullptr;
        long long v = std::strtoll(it->second.c_str(), &end, 10);
        if (end == it->second.c_str() || *end != '\0')
            throw InvalidArgument("parameter " + key + "='" + it->second +
                                  "' is not a whole number");
        return v;
    }

    // A parameter whose value is one of a fixed set of names: `names` are Enum's values in
    // order, and the first is the default. Anything else is InvalidArgument, listing them:
    //   enum class Dtype { float32, float64 };
    //   params.get_enum<Dtype>("dtype", {"float32", "float64"})
    //   // dtype=half: "dtype='half': expected float32 or float64"
    template <class Enum, size_t N>
    Enum get_enum(const std::string &key, const char *const (&names)[N]) const {
        static_assert(N > 0, "an enum parameter needs at least its default");
        const std::string value = get(key, names[0]);
        std::string expected;
        for (size_t i = 0; i < N; ++i) {
            if (value == names[i]) return static_cast<Enum>(i);
            expected += (i == 0 ? "" : i + 1 < N ? ", " : " or ") + std::string(names[i]);
        }
        throw InvalidArgument(key + "='" + value + "': expected " + expected);
    }

    // A declared parameter's value, its default when --param does not give it, checked
    // against its declaration: anything else is InvalidArgument naming the allowed values.
    std::string get(const ParamSpec &p) const {
        std::string value = get(p.key, p.default_value);
        if (std::string problem = value_problem(p, value); !problem.empty()) throw InvalidArgument(problem);
        return value;
    }
    long long get_int(const ParamSpec &p) const { return std::strtoll(get(p).c_str(), nullptr, 10); }
    double get_double(const ParamSpec &p) const { return std::strtod(get(p).c_str(), nullptr); }
    // A choice as Enum: the index of its value among p.choices (Enum's values in that order).
    template <class Enum>
    Enum get_enum(const ParamSpec &p) const {
        const std::string value = get(p);
        size_t index = 0;
        while (index < p.choices.size() && p.choices[index] != value) ++index;
        return static_cast<Enum>(index);
    }

    // As the runner passed it ("key=value,key=value"), for code that hands it on.
    const std::string &text() const { return text_; }

private:
    std::string text_;
    std::map<std::string, std::string> values_;
};

}  // namespace gpubench
