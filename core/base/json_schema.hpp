// A JSON Schema validator for the subset of draft 2020-12 that core/base/results_schema.json uses
// (Debian has no C++ one): type, enum, const, required, properties, additionalProperties,
// items, minimum, maximum, if/then/else, and $ref to a pointer within the schema ($defs).
// A schema with any other keyword is refused when loaded, so the subset can never quietly
// accept what the schema forbids.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

namespace gpubench {

struct SchemaViolation {
    std::string pointer;  // JSON pointer of the offending value: "/entries/0/size"; "" = the whole
    std::string reason;   // "expected an integer, got a string", "required field 'run' missing"
    std::string text() const;  // "/entries/0/size: expected an integer, got a string", one line
};

class JsonSchema {
public:
    // Throws std::invalid_argument naming the first keyword outside the subset, a malformed
    // keyword or a $ref that leads nowhere.
    explicit JsonSchema(nlohmann::json schema);
    JsonSchema(const JsonSchema &) = delete;  // refs_ points into schema_
    JsonSchema &operator=(const JsonSchema &) = delete;

    // The first violation (keywords in the order above, object fields by name, array items
    // in order), or nullopt when `document` is valid. Never throws.
    std::optional<SchemaViolation> first_violation(const nlohmann::json &document) const;

private:
    nlohmann::json schema_;
    std::map<std::string, const nlohmann::json *> refs_;  // each $ref, resolved once
};

// The results document's schema (results_schema.json, compiled in), here at the bottom so
// that every part that reads or writes a piece of the format can check it.
const nlohmann::json &results_schema();
// The first place where `document` breaks it, or nullopt.
std::optional<SchemaViolation> results_schema_violation(const nlohmann::json &document);

}  // namespace gpubench
