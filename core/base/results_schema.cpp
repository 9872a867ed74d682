#include "results_schema.hpp"

#include "results_schema_text.hpp"  // generated from results_schema.json (CMakeLists.txt)

namespace gpubench {

using nlohmann::json;

const json &results_schema() {
    static const json schema = json::parse(results_schema_text);
    return schema;
}

std::optional<SchemaViolation> results_schema_violation(const json &document) {
    static const JsonSchema schema(results_schema());
    return schema.first_violation(document);
}

}  // namespace gpubench
