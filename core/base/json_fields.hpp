// GPUBENCH_JSON_FIELDS(Type, fields...): a record's one JSON encoding, each field named as its
// member, like nlohmann's NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT but in the results
// file's conventions, which nlohmann 3.11 lacks:
//  - a std::optional member is left out when absent (the schema has no nulls for them), and
//    read back as absent when missing or null;
//  - a double is read as NaN from null (JSON has no NaN: nlohmann writes it as null, and a
//    plugin may report a NaN error);
//  - a missing field keeps the member's default (files written before it existed).
#pragma once

#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <string>

namespace gpubench::json_fields {

template <typename T>
void put(nlohmann::json &object, const char *key, const T &value) {
    object[key] = value;
}
template <typename T>
void put(nlohmann::json &object, const char *key, const std::optional<T> &value) {
    if (value) object[key] = *value;
}

template <typename T>
void get(const nlohmann::json &object, const char *key, T &value) {
    if (const auto found = object.find(key); found != object.end()) found->get_to(value);
}
inline void get(const nlohmann::json &object, const char *key, double &value) {
    if (const auto found = object.find(key); found != object.end())
        value = found->is_null() ? std::numeric_limits<double>::quiet_NaN() : found->get<double>();
}
template <typename T>
void get(const nlohmann::json &object, const char *key, std::optional<T> &value) {
    const auto found = object.find(key);
    value = found == object.end() || found->is_null() ? std::nullopt : std::optional<T>(found->get<T>());
}

// `value` as gpubench writes JSON to its files and pipes, with a newline: text from plugins and
// paths may be invalid UTF-8, escaped, never thrown. Compact (`indent` < 0), it is one line.
inline std::string text(const nlohmann::json &value, int indent = -1) {
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

}  // namespace gpubench::json_fields

#define GPUBENCH_JSON_PUT_FIELD(field) gpubench::json_fields::put(json_, #field, record_.field);
#define GPUBENCH_JSON_GET_FIELD(field) gpubench::json_fields::get(json_, #field, record_.field);

// Defines put_fields(json &, const Type &), which adds the fields to an object (making one of
// a null), and get_fields(const json &, Type &), which fills the record it is given (fields
// missing from the JSON keep its values): for a record whose encoding also holds figures
// derived from it, or fields written only in some cases.
#define GPUBENCH_JSON_FIELDS_AS(Type, put_fields, get_fields, ...)                             \
    inline void put_fields(nlohmann::json &json_, const Type &record_) {                       \
        if (!json_.is_object()) json_ = nlohmann::json::object();                              \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(GPUBENCH_JSON_PUT_FIELD, __VA_ARGS__))        \
    }                                                                                          \
    inline void get_fields(const nlohmann::json &json_, Type &record_) {                       \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(GPUBENCH_JSON_GET_FIELD, __VA_ARGS__))        \
    }

// Defines to_json and from_json for Type, the record's whole encoding (place it in Type's
// namespace, so that nlohmann finds them).
#define GPUBENCH_JSON_FIELDS(Type, ...) GPUBENCH_JSON_FIELDS_AS(Type, to_json, from_json, __VA_ARGS__)
