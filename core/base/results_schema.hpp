// The results document's schema (results_schema.json, compiled in), here at the bottom so
// that every part that reads or writes a piece of the format can check it.
#pragma once

#include "json_schema.hpp"

#include <nlohmann/json.hpp>

#include <optional>

namespace gpubench {

const nlohmann::json &results_schema();
// The first place where `document` breaks results_schema.json (built into the binary), or
// nullopt.
std::optional<SchemaViolation> results_schema_violation(const nlohmann::json &document);

}  // namespace gpubench
