// The parameters a plugin declares (ABI 1.10, gpubench/param.h) as the runner checks, lists
// and records them. The check of a value is the SDK's own (gpubench/param_spec.hpp), so
// the runner refuses exactly what the plugin would.
#pragma once

#include "plugin_info.hpp"

#include <gpubench/param_spec.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gpubench {

// What is wrong with `info`'s declarations, or "": a key that is not [A-Za-z0-9_]+ or is given
// twice, an unknown kind, a choice with no values, a default that is not allowed, min > max,
// or param_names that lists other keys. (descriptor_check.cpp copies them out of the library.)
std::string declared_params_problem(const PluginInfo &info);

// The declaration of `key`, or nullptr.
const ParamSpec *declared_param(const PluginInfo &info, const std::string &key);

// Its values in short: "float32|float64", "1..100000", "0..100", "text".
std::string declared_values_text(const ParamSpec &p);

// The results file's and the scan cache's form: [{"key", "type", "default", "choices" |
// "min"/"max", "help"}].
nlohmann::json declared_params_json(const std::vector<ParamSpec> &params);
std::vector<ParamSpec> declared_params_from_json(const nlohmann::json &json);

}  // namespace gpubench
