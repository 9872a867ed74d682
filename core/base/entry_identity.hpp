// What makes two entries the same measurement: the plugin, the size, the params and the seed of
// its input data. Within one sweep (resume, the shards' plan, merge, the ranks' rendezvous)
// all four count. Across runs (compare, report, history, recorded costs) two files may measure
// the same thing with other seeds: any_seed() leaves the seed out, and the type says so.
#pragma once

#include <nlohmann/json.hpp>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace gpubench {

struct EntryIdentity {
    std::string plugin;
    uint64_t size = 0;
    std::string params;
    std::optional<uint64_t> seed;  // nullopt: any seed (any_seed)

    auto operator<=>(const EntryIdentity &) const = default;
    bool operator==(const EntryIdentity &) const = default;

    // The same measurement in any run, whatever seed made its input.
    EntryIdentity any_seed() const { return {plugin, size, params, std::nullopt}; }
    // Every size of one plugin at one setting (params), in any run: a plugin's series of
    // sizes, as the sweep predicts the next from the last. Sizes are >= 1: size 0 is none.
    EntryIdentity series() const { return {plugin, 0, params, std::nullopt}; }

    // "matmul_naive 128 (params 'dtype=float64', seed 42)"; "... (params '')" for any seed.
    std::string text() const;
    // The identity's hash as 16 hex digits: a name for its folders.
    std::string hash_hex() const;
};

// {"plugin", "size", "params", "seed"} (seed absent for any seed): an entry of a results file
// and a planned entry of a shard's plan hold these fields; reading one takes the seed where
// it is there.
void to_json(nlohmann::json &json, const EntryIdentity &identity);
void from_json(const nlohmann::json &json, EntryIdentity &identity);

}  // namespace gpubench
