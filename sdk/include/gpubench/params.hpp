// The parameters of a run in C++ form: "key=value,key=value" as passed by the runner's
// --param options, read as text or numbers.
#pragma once

#include <gpubench/errors.hpp>

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

    // As the runner passed it ("key=value,key=value"), for code that hands it on.
    const std::string &text() const { return text_; }

private:
    std::string text_;
    std::map<std::string, std::string> values_;
};

}  // namespace gpubench
