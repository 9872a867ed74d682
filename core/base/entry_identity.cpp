#include "entry_identity.hpp"

#include "fnv_hash.hpp"

namespace gpubench {

std::string EntryIdentity::text() const {
    return plugin + " " + std::to_string(size) + " (params '" + params + "'" +
           (seed ? ", seed " + std::to_string(*seed) : std::string()) + ")";
}

// The fields joined by a byte no plugin name or size holds; params may hold any text, last.
std::string EntryIdentity::hash_hex() const {
    return fnv1a_64_hex(plugin + '\n' + std::to_string(size) + '\n' + (seed ? std::to_string(*seed) : "*") + '\n' +
                        params);
}

void to_json(nlohmann::json &json, const EntryIdentity &identity) {
    json = {{"plugin", identity.plugin}, {"size", identity.size}, {"params", identity.params}};
    if (identity.seed) json["seed"] = *identity.seed;
}

void from_json(const nlohmann::json &json, EntryIdentity &identity) {
    json.at("plugin").get_to(identity.plugin);
    json.at("size").get_to(identity.size);
    json.at("params").get_to(identity.params);
    const auto seed = json.find("seed");
    identity.seed = seed == json.end() ? std::nullopt : std::optional<uint64_t>(seed->get<uint64_t>());
}

}  // namespace gpubench
