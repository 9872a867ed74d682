#include "shard.hpp"

#include "text_format.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace gpubench {

namespace {

// More shards than this is a typo, and the partition keeps one load per shard.
constexpr uint64_t max_shards = 65536;

std::optional<uint64_t> whole_number(const std::string &text) {
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

ShardSpec checked(uint64_t index, uint64_t count, std::string source, const std::string &what) {
    if (count == 0) throw std::invalid_argument(what + ": the shard count must be at least 1");
    if (count > max_shards)
        throw std::invalid_argument(what + ": at most " + std::to_string(max_shards) + " shards");
    if (index >= count)
        throw std::invalid_argument(what + ": shard " + std::to_string(index) + " of " +
                                    std::to_string(count) + " does not exist (0-based: 0 to " +
                                    std::to_string(count - 1) + ")");
    return {static_cast<uint32_t>(index), static_cast<uint32_t>(count), std::move(source)};
}

// The variables "auto" reads, as found: each value kept for messages and the source text.
class Variables {
public:
    explicit Variables(const EnvironmentLookup &environment, std::string what = "--shard auto")
        : environment_(environment), what_(std::move(what)) {}
    bool has(const std::string &name) const { return environment_(name).has_value(); }
    uint64_t number(const std::string &name) {
        const std::string value = environment_(name).value_or("");
        const auto parsed = whole_number(value);
        if (!parsed)
            throw std::invalid_argument(what_ + ": " + name + "='" + printable_text(value) +
                                        "' is not a whole number");
        used_ += (used_.empty() ? "" : ", ") + name + "=" + value;
        return *parsed;
    }
    std::string used() const { return used_; }

private:
    const EnvironmentLookup &environment_;
    std::string what_;
    std::string used_;
};

// A Slurm job array's task: its position in the range MIN..MAX by STEP.
ShardSpec from_slurm_array(Variables &v) {
    if (!v.has("SLURM_ARRAY_TASK_MIN"))
        throw std::invalid_argument(
            "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not");
    const uint64_t id = v.number("SLURM_ARRAY_TASK_ID"), min = v.number("SLURM_ARRAY_TASK_MIN");
    const uint64_t step = v.has("SLURM_ARRAY_TASK_STEP") ? v.number("SLURM_ARRAY_TASK_STEP") : 1;
    if (step == 0) throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_STEP is 0");
    if (id < min || (id - min) % step != 0)
        throw std::invalid_argument("--shard auto: task " + std::to_string(id) +
                                    " is not in the array's range from " + std::to_string(min) +
                                    " by " + std::to_string(step) + " (" + v.used() + ")");
    std::optional<uint64_t> count, span;
    if (v.has("SLURM_ARRAY_TASK_COUNT")) count = v.number("SLURM_ARRAY_TASK_COUNT");
    if (v.has("SLURM_ARRAY_TASK_MAX")) {
        const uint64_t max = v.number("SLURM_ARRAY_TASK_MAX");
        if (max < min)
            throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_MAX is below _MIN (" + v.used() + ")");
        span = (max - min) / step + 1;
    }
    if (!count && !span)
        throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_ID is set but neither "
                                    "SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is");
    // An array given as a list (--array=1,3,7) has gaps: a task's place in it is unknown.
    if (count && span && *count != *span)
        throw std::invalid_argument("--shard auto: the job array is not a range (" + v.used() +
                                    "): use --array=A-B[:STEP], or --shard I/N");
    return checked((id - min) / step, count ? *count : *span, v.used(), "--shard auto (" + v.used() + ")");
}

struct RankFamily {
    const char *rank, *size;
};
constexpr RankFamily rank_families[] = {{"SLURM_PROCID", "SLURM_NTASKS"},
                                        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                        {"PMI_RANK", "PMI_SIZE"}};
// The same, the innermost launcher first: an MPI launcher started inside a Slurm job leaves
// the job's SLURM_PROCID in its processes' environment; and Slurm's as a job step's tasks
// (srun's SLURM_STEP_NUM_TASKS), not the job's (a batch script has SLURM_NTASKS as well).
constexpr RankFamily innermost_first[] = {rank_families[1], rank_families[2],
                                          {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"}};

}  // namespace

// With `agree`, a shard must not guess: mpirun started inside a Slurm job inherits the job's
// SLURM_PROCID, which is then not the process's own rank.
std::optional<ShardSpec> launched_rank(const EnvironmentLookup &environment, const std::string &what, bool agree) {
    std::optional<ShardSpec> found;
    for (const RankFamily &family : agree ? rank_families : innermost_first) {
        Variables v(environment, what);
        const bool rank = v.has(family.rank), size = v.has(family.size);
        if (!rank && !size) continue;
        if (rank != size)
            throw std::invalid_argument(what + ": " + (rank ? family.rank : family.size) + " is set but " +
                                        (rank ? family.size : family.rank) + " is not");
        const uint64_t index = v.number(family.rank), count = v.number(family.size);
        ShardSpec spec = checked(index, count, v.used(), what + " (" + v.used() + ")");
        spec.launched_ranks = true;
        if (!found)
            found = spec;
        else if (agree && (found->index != spec.index || found->count != spec.count))
            throw std::invalid_argument(what + ": " + found->source + " but " + spec.source +
                                        ": the launcher's variables disagree; give --shard I/N");
        if (!agree) break;
    }
    return found;
}

bool ranks_on_one_host(const EnvironmentLookup &environment) {
    const auto equal = [&](const char *a, const char *b) { return environment(a) && environment(a) == environment(b); };
    if (environment("OMPI_COMM_WORLD_SIZE")) return equal("OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE");
    if (environment("PMI_SIZE")) return equal("MPI_LOCALNRANKS", "PMI_SIZE");
    return environment("SLURM_STEP_NUM_NODES") == "1";
}

std::string shard_text(uint32_t index, uint32_t count) { return std::to_string(index) + "/" + std::to_string(count); }

EnvironmentLookup process_environment() {
    return [](const std::string &name) -> std::optional<std::string> {
        const char *value = std::getenv(name.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
    };
}

ShardSpec parse_shard_option(const std::string &text, const EnvironmentLookup &environment) {
    if (text == "auto") {
        Variables array(environment);
        if (array.has("SLURM_ARRAY_TASK_ID")) return from_slurm_array(array);
        if (auto spec = launched_rank(environment, "--shard auto", true)) return *spec;
        throw std::invalid_argument(
            "--shard auto: no launcher variables found (looked for SLURM_ARRAY_TASK_ID, "
            "SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, "
            "PMI_RANK/PMI_SIZE); give --shard I/N");
    }
    const std::string what = "--shard '" + printable_text(text) + "'";
    const size_t slash = text.find('/');
    const auto index = whole_number(text.substr(0, slash));
    const auto count = slash == std::string::npos ? std::nullopt : whole_number(text.substr(slash + 1));
    if (!index || !count)
        throw std::invalid_argument(what + ": expected I/N, the 0-based shard I of N (0/4 to 3/4), or auto");
    return checked(*index, *count, "--shard " + text, what);
}

}  // namespace gpubench
