// Joining the results files of one sharded sweep (runner merge) into one results file that
// report, compare and --resume read like any other. Shards of different builds or options,
// of different shard counts, the same shard twice, or entries measured by two shards are
// refused; each shard's host, GPU and options are kept beside the entries it delivered.
#pragma once

#include "results_model.hpp"
#include "shard_plan.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct ShardFile {
    std::string name;         // as given on the command line, for messages
    nlohmann::json document;  // read and checked against the schema (read_results_json)
};

// A shard's part of the merged sweep: the entries it delivered, and its wall time, predicted
// and actual, where its file records them (files written before them do not).
struct ShardTiming {
    uint32_t index = 0;
    size_t entries = 0;
    std::optional<double> predicted_s, actual_s;
};

struct MergedSweep {
    nlohmann::json document;
    size_t shards_given = 0, shard_count = 0;
    StatusTally statuses;                  // the merged entries
    std::vector<uint32_t> missing_shards;  // indices with no file given
    std::vector<PlannedEntry> missing;     // planned entries that no shard delivered
    std::vector<ShardTiming> timings;      // each shard given, in index order
};

// The slowest shard's actual wall time over the fastest's, among those that record one (more
// than 0 s); nullopt with fewer than two.
std::optional<double> actual_spread(const std::vector<ShardTiming> &timings);

// Throws std::runtime_error with one line naming the files and the field that differs, or the
// entry measured twice, when the files are not the shards of one sweep.
MergedSweep merge_shards(const std::vector<ShardFile> &shards, std::vector<std::string> command_line);

}  // namespace gpubench
