#include "declared_params.hpp"

#include "text_format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <set>

namespace gpubench {

namespace {

bool is_key(const std::string &key) {
    return !key.empty() && key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// Each kind's name, by its value (GPUBENCH_PARAM_CHOICE 0 to GPUBENCH_PARAM_TEXT 3).
constexpr const char *kind_names[] = {"choice", "int", "real", "text"};

const char *kind_name(gpubench_param_kind kind) {
    return kind >= 0 && kind < static_cast<int>(std::size(kind_names)) ? kind_names[kind] : nullptr;
}

std::string one_problem(const ParamSpec &p) {
    if (!is_key(p.key)) return "declared parameter '" + p.key + "': a key has 1 to 64 letters, digits and '_'";
    const std::string where = "declared parameter " + p.key + ": ";
    if (!kind_name(p.kind)) return where + "unknown kind " + std::to_string(p.kind);
    if (p.kind == GPUBENCH_PARAM_CHOICE) {
        if (p.choices.empty()) return where + "a choice with no values";
        for (const std::string &c : p.choices)
            if (c.empty() || c.find('=') != std::string::npos || c == "*")
                return where + "choice '" + c + "' is empty, '*' or has '='";
    }
    if ((p.kind == GPUBENCH_PARAM_INT || p.kind == GPUBENCH_PARAM_REAL) &&
        !(std::isfinite(p.min) && std::isfinite(p.max) && p.min <= p.max))
        return where + "range " + param_number_text(p.min) + ".." + param_number_text(p.max) + " is empty";
    if (std::string problem = value_problem(p, p.default_value); !problem.empty())
        return where + "its default " + problem;
    return "";
}

}  // namespace

std::string declared_params_problem(const PluginInfo &info) {
    std::set<std::string> keys;
    for (const ParamSpec &p : info.params) {
        if (std::string problem = one_problem(p); !problem.empty()) return problem;
        if (!keys.insert(p.key).second) return "declared parameter " + p.key + " is declared twice";
    }
    if (info.params.empty() || !info.param_names) return "";
    const std::set<std::string> named(info.param_names->begin(), info.param_names->end());
    if (named != keys)
        return "param_names (" + join(*info.param_names, ",") + ") and the declared parameters (" +
               join(std::vector<std::string>(keys.begin(), keys.end()), ",") + ") name other keys";
    return "";
}

const ParamSpec *declared_param(const PluginInfo &info, const std::string &key) {
    for (const ParamSpec &p : info.params)
        if (p.key == key) return &p;
    return nullptr;
}

std::string declared_values_text(const ParamSpec &p) {
    if (p.kind == GPUBENCH_PARAM_CHOICE) return join(p.choices, "|");
    if (p.kind == GPUBENCH_PARAM_INT || p.kind == GPUBENCH_PARAM_REAL)
        return param_number_text(p.min) + ".." + param_number_text(p.max);
    return "text";
}

nlohmann::json declared_params_json(const std::vector<ParamSpec> &params) {
    nlohmann::json list = nlohmann::json::array();
    for (const ParamSpec &p : params) {
        nlohmann::json j = {{"key", p.key}, {"type", kind_name(p.kind)}, {"default", p.default_value}};
        if (p.kind == GPUBENCH_PARAM_CHOICE) j["choices"] = p.choices;
        if (p.kind == GPUBENCH_PARAM_INT || p.kind == GPUBENCH_PARAM_REAL) j.update({{"min", p.min}, {"max", p.max}});
        j["help"] = p.help;
        list.push_back(std::move(j));
    }
    return list;
}

std::vector<ParamSpec> declared_params_from_json(const nlohmann::json &json) {
    std::vector<ParamSpec> params;
    for (const nlohmann::json &j : json) {
        ParamSpec p;
        j.at("key").get_to(p.key);
        const auto named = std::find(std::begin(kind_names), std::end(kind_names), j.at("type").get<std::string>());
        p.kind = named == std::end(kind_names) ? -1 : static_cast<int>(named - std::begin(kind_names));
        j.at("default").get_to(p.default_value);
        p.choices = j.value("choices", std::vector<std::string>());
        p.min = j.value("min", 0.0);
        p.max = j.value("max", 0.0);
        p.help = j.value("help", "");
        params.push_back(std::move(p));
    }
    return params;
}

}  // namespace gpubench
