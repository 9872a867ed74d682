#include "shard_merge.hpp"

#include "results_model.hpp"
#include "system_info.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

namespace {

struct Shard {
    const ShardFile *file;
    ShardRecord record;
};

[[noreturn]] void refuse(const std::string &why) { throw std::runtime_error(why); }

// The first field of two objects that differs, as "build.git_revision is "a" in A, "b" in B".
std::string first_difference(const json &a, const json &b, const std::string &section,
                             const std::string &a_name, const std::string &b_name) {
    std::set<std::string> keys;
    for (const auto &[key, value] : a.items()) keys.insert(key);
    for (const auto &[key, value] : b.items()) keys.insert(key);
    for (const std::string &key : keys) {
        const std::string in_a = a.contains(key) ? a[key].dump() : "absent";
        const std::string in_b = b.contains(key) ? b[key].dump() : "absent";
        if (in_a != in_b)
            return section + "." + key + " is " + in_a + " in " + a_name + ", " + in_b + " in " + b_name;
    }
    return "";
}

// The options, less those that may differ between the shards of one sweep: each machine's own.
json shared_options(json options) {
    for (const char *key : {"cpu_threads", "cuda_device", "cuda_devices"}) options.erase(key);
    return options;
}

std::map<EntryIdentity, uint32_t> shard_by_entry(const ShardRecord &record) {
    std::map<EntryIdentity, uint32_t> by_entry;
    for (const PlannedEntry &p : record.planned) by_entry.emplace(p.key, p.shard);
    return by_entry;
}

// Everything that must hold between two shards of one sweep, `b` checked against `a`.
void check_same_sweep(const Shard &a, const Shard &b) {
    const std::string &an = a.file->name, &bn = b.file->name;
    const json &ad = a.file->document, &bd = b.file->document;
    if (std::string d = first_difference(ad.at("build"), bd.at("build"), "build", an, bn); !d.empty())
        refuse(an + " and " + bn + " are of different builds: " + d);
    if (std::string d = first_difference(shared_options(ad.at("options")), shared_options(bd.at("options")),
                                         "options", an, bn);
        !d.empty())
        refuse(an + " and " + bn + " were measured with different options: " + d);
    const ShardRecord &ar = a.record, &br = b.record;
    if (ar.count != br.count)
        refuse(an + " is shard " + shard_text(ar.index, ar.count) + " and " + bn + " is shard " +
               shard_text(br.index, br.count) + ": different shard counts");
    if (ar.index == br.index) refuse(an + " and " + bn + " are both shard " + shard_text(ar.index, ar.count));
    const auto plan_a = shard_by_entry(a.record), plan_b = shard_by_entry(b.record);
    for (const auto &[one, other, one_name, other_name] :
         {std::tuple{&plan_a, &plan_b, an, bn}, std::tuple{&plan_b, &plan_a, bn, an}})
        for (const auto &[key, shard] : *one) {
            const auto there = other->find(key);
            if (there == other->end())
                refuse(one_name + " and " + other_name + " planned different sweeps: " + key.text() +
                       " is planned in " + one_name + " only");
            if (there->second != shard)
                refuse(one_name + " and " + other_name + " planned different sweeps: " + key.text() +
                       " is shard " + std::to_string(shard) + "'s in " + one_name + ", shard " +
                       std::to_string(there->second) + "'s in " + other_name);
        }
}

json shard_context(const Shard &shard, const ShardTiming &timing) {
    const json &d = shard.file->document;
    json context = {{"index", shard.record.index},
                    {"entries", timing.entries},
                    {"file", shard.file->name},
                    {"source", shard.record.source},
                    {"costs", shard.record.costs}};
    for (const char *key : {"created", "command_line", "host", "gpu", "gpus", "options", "resumed", "energy"})
        if (d.contains(key)) context[key] = d.at(key);  // each but gpus, resumed and energy is in every file
    if (timing.predicted_s) context["predicted_s"] = *timing.predicted_s;
    if (timing.actual_s) context["actual_s"] = *timing.actual_s;
    return context;
}

// The shards given, checked to be of one sweep and not merged before, in index order.
std::vector<Shard> read_shards(const std::vector<ShardFile> &files) {
    if (files.empty()) refuse("no shard files given");
    std::vector<Shard> shards;
    for (const ShardFile &file : files) {
        if (file.document.contains("merged"))
            refuse(file.name + " is a merged file: merge the shards' own files");
        auto record = shard_record(file.document);
        if (!record)
            refuse(file.name + " is not a shard of a sweep (no \"shard\": it was not run with --shard)");
        if (record->index >= record->count)
            refuse(file.name + " says it is shard " + std::to_string(record->index) + " of " +
                   std::to_string(record->count) + ", which does not exist");
        shards.push_back({&file, std::move(*record)});
    }
    for (size_t i = 1; i < shards.size(); ++i)
        for (size_t j = 0; j < i; ++j) check_same_sweep(shards[j], shards[i]);
    std::sort(shards.begin(), shards.end(),
              [](const Shard &a, const Shard &b) { return a.record.index < b.record.index; });
    return shards;
}

// Who delivered each entry (the shard, and the entry's place in its file's entries); an entry
// measured by two shards is refused.
using Delivered = std::map<EntryIdentity, std::pair<const Shard *, size_t>>;
Delivered delivered_entries(const std::vector<Shard> &shards) {
    Delivered delivered;
    for (const Shard &shard : shards)
        for (size_t index = 0; const json &entry : shard.file->document.at("entries")) {
            const auto [at, fresh] = delivered.emplace(entry.get<EntryIdentity>(), std::pair{&shard, index++});
            if (!fresh && at->second.first != &shard)
                refuse("entry " + at->first.text() + " is in both " + at->second.first->file->name +
                       " and " + shard.file->name);
        }
    return delivered;
}

// The first shard's header (schema_version, host, build, gpu, options) and every shard's
// plugins, once each; no entries yet.
json merged_header(const std::vector<Shard> &shards, std::vector<std::string> command_line) {
    json d = shards.front().file->document;
    d.erase("shard");
    d.erase("resumed");
    d["created"] = utc_timestamp();
    d["command_line"] = std::move(command_line);
    d["plugins"] = json::array();
    d["entries"] = json::array();
    std::set<std::string> plugins;
    for (const Shard &shard : shards)
        for (const json &plugin : shard.file->document.at("plugins"))
            if (plugins.insert(plugin.at("name").get<std::string>()).second) d["plugins"].push_back(plugin);
    return d;
}

// Entry `index` of `shard`'s file, copied as written with the shard that delivered it, and
// counted by its decoded status.
void add_entry(MergedSweep &merged, const Shard &shard, size_t index) {
    const json &entry = shard.file->document.at("entries").at(index);
    merged.statuses.count(typed_entry(entry, index, shard.file->name).status);
    merged.document["entries"].emplace_back(entry)["shard"] = shard.record.index;
}

// Entries in the sweep's order, then any a shard holds beyond its plan (lose nothing).
void add_entries(MergedSweep &merged, const std::vector<Shard> &shards, Delivered delivered) {
    for (const PlannedEntry &planned : shards.front().record.planned) {
        const auto found = delivered.find(planned.key);
        if (found == delivered.end()) {
            merged.missing.push_back(planned);
            continue;
        }
        add_entry(merged, *found->second.first, found->second.second);
        delivered.erase(found);
    }
    // In shard order (`shards` is sorted), then as each file has them.
    std::vector<std::pair<const Shard *, size_t>> beyond_plan;
    for (const auto &[key, at] : delivered) beyond_plan.push_back(at);
    std::sort(beyond_plan.begin(), beyond_plan.end());
    for (const auto &[shard, index] : beyond_plan) add_entry(merged, *shard, index);
}

}  // namespace

std::optional<double> actual_spread(const std::vector<ShardTiming> &timings) {
    std::vector<double> actual;
    for (const ShardTiming &timing : timings)
        if (timing.actual_s && *timing.actual_s > 0) actual.push_back(*timing.actual_s);
    if (actual.size() < 2) return std::nullopt;
    return *std::max_element(actual.begin(), actual.end()) / *std::min_element(actual.begin(), actual.end());
}

MergedSweep merge_shards(const std::vector<ShardFile> &files, std::vector<std::string> command_line) {
    const std::vector<Shard> shards = read_shards(files);
    const Shard &first = shards.front();
    MergedSweep merged;
    merged.shards_given = shards.size();
    merged.shard_count = first.record.count;
    merged.document = merged_header(shards, std::move(command_line));
    add_entries(merged, shards, delivered_entries(shards));
    json contexts = json::array();
    std::set<uint32_t> given;
    for (const Shard &shard : shards) {
        const ShardTiming timing{shard.record.index, shard.file->document.at("entries").size(),
                                 shard.record.predicted_s, shard.record.actual_s};
        contexts.push_back(shard_context(shard, timing));
        merged.timings.push_back(timing);
        given.insert(shard.record.index);
    }
    for (uint32_t index = 0; index < merged.shard_count; ++index)
        if (!given.count(index)) merged.missing_shards.push_back(index);
    merged.document["merged"] = {{"count", merged.shard_count},
                                 {"shards", std::move(contexts)},
                                 {"missing_shards", merged.missing_shards},
                                 {"planned", first.record.planned},
                                 {"missing", merged.missing}};
    return merged;
}

}  // namespace gpubench
