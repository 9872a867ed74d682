#include "json_schema.hpp"

#include "results_schema_text.hpp"  // generated from results_schema.json (CMakeLists.txt)
#include "text_format.hpp"

#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

namespace gpubench {

using nlohmann::json;

namespace {

// Keywords that only describe: no effect on validity.
const std::set<std::string> annotations = {"$schema", "$id", "$comment", "title", "description",
                                           "default", "examples"};
// Each type's test. An integer as JSON Schema has it since draft 6: 4096.0 is one too.
const std::map<std::string, bool (*)(const json &)> type_tests = {
    {"null", [](const json &v) { return v.is_null(); }},
    {"boolean", [](const json &v) { return v.is_boolean(); }},
    {"object", [](const json &v) { return v.is_object(); }},
    {"array", [](const json &v) { return v.is_array(); }},
    {"number", [](const json &v) { return v.is_number(); }},
    {"string", [](const json &v) { return v.is_string(); }},
    {"integer", [](const json &v) {
         if (!v.is_number_float()) return v.is_number_integer();
         const double number = v.get<double>();
         return std::isfinite(number) && std::trunc(number) == number;
     }}};

// A value's place in the document, as a chain up to the root (parent nullptr): turned into a
// JSON pointer only when there is a violation to report.
struct Location {
    const Location *parent = nullptr;
    const std::string *field = nullptr;  // an object's field, else an array's item `index`
    size_t index = 0;
};

// One pointer token (RFC 6901: "~" and "/" escaped), control characters shown as \xNN so
// that a message stays on one line.
std::string token(const std::string &text) {
    std::string out;
    for (char c : text)
        if (c == '~' || c == '/')
            out += c == '~' ? "~0" : "~1";
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            out += format_text("\\x%02x", static_cast<unsigned char>(c));
        else
            out += c;
    return out;
}

std::string pointer_of(const Location &at) {
    std::vector<const Location *> chain;
    for (const Location *l = &at; l->parent; l = l->parent) chain.push_back(l);
    std::string pointer;
    for (auto l = chain.rbegin(); l != chain.rend(); ++l)
        pointer += "/" + ((*l)->field ? token(*(*l)->field) : std::to_string((*l)->index));
    return pointer;
}

// A scalar as a message shows it: short, on one line (dump escapes control characters).
std::string shown(const json &value) {
    if (value.is_object()) return "an object";
    if (value.is_array()) return "an array";
    std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
    return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

std::string with_article(const std::string &type) {
    if (type == "null") return type;
    return (type == "integer" || type == "object" || type == "array" ? "an " : "a ") + type;
}

// What a value is, for "expected an integer, got ...": numbers by value, the rest by type.
std::string kind_of(const json &value) {
    if (value.is_number() || value.is_structured()) return shown(value);
    return with_article(value.is_null() ? "null" : value.is_boolean() ? "boolean" : "string");
}

// Numbers compared exactly: a long double holds every int64, uint64 and double.
long double number_of(const json &value) {
    if (value.is_number_unsigned()) return static_cast<long double>(value.get<uint64_t>());
    if (value.is_number_integer()) return static_cast<long double>(value.get<int64_t>());
    return value.get<double>();
}

class Checker {
public:
    explicit Checker(const std::map<std::string, const json *> &refs) : refs_(refs) {}

    std::optional<SchemaViolation> check(const json &schema, const json &value,
                                         const Location &at, int depth) const {
        // A schema that refers to itself could otherwise recurse without end.
        if (depth > 256) return fail(at, "nested too deeply to check");
        if (schema.is_boolean()) return schema.get<bool>() ? std::nullopt : fail(at, "not allowed");
        if (auto ref = schema.find("$ref"); ref != schema.end())
            if (auto v = check(*refs_.at(ref->get<std::string>()), value, at, depth + 1)) return v;
        if (auto v = check_value(schema, value, at)) return v;
        if (value.is_object())
            if (auto v = check_fields(schema, value, at, depth)) return v;
        if (auto items = schema.find("items"); items != schema.end() && value.is_array())
            for (size_t i = 0; i < value.size(); ++i)
                if (auto v = check(*items, value[i], Location{&at, nullptr, i}, depth + 1)) return v;
        if (auto condition = schema.find("if"); condition != schema.end()) {
            const char *branch = check(*condition, value, at, depth + 1) ? "else" : "then";
            if (auto next = schema.find(branch); next != schema.end())
                return check(*next, value, at, depth + 1);
        }
        return std::nullopt;
    }

private:
    static std::optional<SchemaViolation> fail(const Location &at, std::string reason) {
        return SchemaViolation{pointer_of(at), std::move(reason)};
    }

    // type, const, enum, minimum, maximum: the value itself.
    static std::optional<SchemaViolation> check_value(const json &schema, const json &value,
                                                      const Location &at) {
        if (auto type = schema.find("type"); type != schema.end()) {
            const std::vector<std::string> allowed =
                type->is_string() ? std::vector<std::string>{type->get<std::string>()}
                                  : type->get<std::vector<std::string>>();
            bool matched = false;
            std::string expected;
            for (const std::string &t : allowed) {
                matched = matched || type_tests.at(t)(value);
                expected += (expected.empty() ? "" : " or ") + with_article(t);
            }
            if (!matched) return fail(at, "expected " + expected + ", got " + kind_of(value));
        }
        if (auto constant = schema.find("const"); constant != schema.end() && value != *constant)
            return fail(at, "expected " + shown(*constant) + ", got " + shown(value));
        if (auto choices = schema.find("enum"); choices != schema.end()) {
            bool found = false;
            std::string listed;
            for (const json &choice : *choices) {
                found = found || value == choice;
                listed += (listed.empty() ? "" : ", ") + shown(choice);
            }
            if (!found) return fail(at, "expected one of " + listed + ", got " + shown(value));
        }
        if (!value.is_number()) return std::nullopt;
        if (auto low = schema.find("minimum"); low != schema.end() && number_of(value) < number_of(*low))
            return fail(at, shown(value) + " is below the minimum " + shown(*low));
        if (auto high = schema.find("maximum"); high != schema.end() && number_of(value) > number_of(*high))
            return fail(at, shown(value) + " is above the maximum " + shown(*high));
        return std::nullopt;
    }

    // required, properties, additionalProperties.
    std::optional<SchemaViolation> check_fields(const json &schema, const json &object,
                                                const Location &at, int depth) const {
        if (auto required = schema.find("required"); required != schema.end())
            for (const json &name : *required)
                if (!object.contains(name.get<std::string>()))
                    return fail(at, "required field '" + token(name.get<std::string>()) + "' missing");
        const auto properties = schema.find("properties");
        const auto additional = schema.find("additionalProperties");
        for (const auto &[name, field] : object.items()) {
            const json *rule = nullptr;
            if (properties != schema.end() && properties->contains(name))
                rule = &(*properties)[name];
            else if (additional != schema.end())
                rule = &*additional;
            if (!rule) continue;
            if (rule->is_boolean() && !rule->get<bool>())
                return fail(at, "unexpected field '" + token(name) + "'");
            if (auto v = check(*rule, field, Location{&at, &name, 0}, depth + 1)) return v;
        }
        return std::nullopt;
    }

    const std::map<std::string, const json *> &refs_;
};

// Refuses what the Checker would not enforce; records where each $ref leads.
void load(const json &schema, const json &root, const std::string &where,
          std::map<std::string, const json *> &refs) {
    const auto refuse = [&](const std::string &why) {
        throw std::invalid_argument("JSON schema at '" + where + "': " + why);
    };
    if (schema.is_boolean()) return;
    if (!schema.is_object()) refuse("a schema is an object or a boolean");
    for (const auto &[keyword, value] : schema.items()) {
        const std::string inner = where + "/" + token(keyword);
        if (annotations.count(keyword) || keyword == "const") continue;
        if (keyword == "$defs" || keyword == "properties") {
            if (!value.is_object()) refuse(keyword + " must be an object");
            for (const auto &[name, sub] : value.items()) load(sub, root, inner + "/" + token(name), refs);
        } else if (keyword == "additionalProperties" || keyword == "items" || keyword == "if" ||
                   keyword == "then" || keyword == "else") {
            load(value, root, inner, refs);
        } else if (keyword == "$ref") {
            const std::string ref = value.is_string() ? value.get<std::string>() : "";
            if (ref.rfind('#', 0) != 0) refuse("$ref must point within the schema (\"#/...\")");
            try {
                refs[ref] = &root.at(json::json_pointer(ref.substr(1)));
            } catch (const json::exception &) {
                refuse("$ref " + ref + " leads nowhere");
            }
        } else if (keyword == "type") {
            const json names = value.is_string() ? json::array({value}) : value;
            if (!names.is_array() || names.empty()) refuse("type must be a name or a list of names");
            for (const json &name : names)
                if (!name.is_string() || !type_tests.count(name.get<std::string>()))
                    refuse("unknown type " + shown(name));
        } else if (keyword == "enum") {
            if (!value.is_array()) refuse("enum must be an array");
        } else if (keyword == "required") {
            if (!value.is_array()) refuse("required must be an array of names");
            for (const json &name : value)
                if (!name.is_string()) refuse("required must be an array of names");
        } else if (keyword == "minimum" || keyword == "maximum") {
            if (!value.is_number()) refuse(keyword + " must be a number");
        } else {
            refuse("keyword '" + keyword + "' is not supported by this validator");
        }
    }
}

}  // namespace

std::string SchemaViolation::text() const {
    return (pointer.empty() ? std::string("the document") : pointer) + ": " + reason;
}

JsonSchema::JsonSchema(json schema) : schema_(std::move(schema)) {
    load(schema_, schema_, "#", refs_);
}

std::optional<SchemaViolation> JsonSchema::first_violation(const json &document) const {
    return Checker(refs_).check(schema_, document, Location{}, 0);
}

const json &results_schema() {
    static const json schema = json::parse(results_schema_text);
    return schema;
}

std::optional<SchemaViolation> results_schema_violation(const json &document) {
    static const JsonSchema schema(results_schema());
    return schema.first_violation(document);
}

}  // namespace gpubench
