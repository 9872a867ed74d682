// The option table (runner_options.hpp) against the runner's code: every key a results file
// records has a row that explains it, and --help declares every flag of the table.
#include "cli.hpp"
#include "sweep_results.hpp"
#include "runner_options.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gpubench;

namespace {

CommandLine parse(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), "runner");
    std::vector<const char *> argv;
    for (const std::string &argument : arguments) argv.push_back(argument.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

// What a sweep of this command line records, planned as plan_sweep plans it from the command
// line alone (no machine is asked); `ranks`: as one of that many ranks launched together.
nlohmann::json recorded_by_sweep(const CommandLine &cli, uint32_t ranks = 1) {
    SweepPlan plan;
    plan.measure = cli.measure;
    plan.measure.world.ranks = ranks;
    plan.default_sweep = cli.plugin_patterns.empty() && !cli.sizes;
    plan.budget_s = cli.budget_s.value_or(plan.default_sweep ? 150 : 0);
    return recorded_options(cli, plan);
}

}  // namespace

TEST_CASE("every option a results file records is a row of the option table that explains it", "[options]") {
    const std::vector<std::vector<std::string>> command_lines = {
        {},
        {"--plugin", "matmul_*", "--sizes", "10", "--counters", "--cold", "--no-nvtx", "--no-stream-hold",
         "--no-device-trace", "--no-thread-audit", "--seed", "7", "--warmup", "2"},
        {"--plugin", "vecadd_naive", "--profile", "--runs", "3", "--param", "variant=increment"},
        {"--plugin", "sort_std", "--budget", "20", "--param", "dtype=float32,float64", "--param", "n=3",
         "--timeout", "30", "--sanitize", "memcheck", "--max-noise", "0.01"},
        {"--rank-dir", "/tmp", "--rank-timeout", "5", "--worker-per-entry", "--devices", "0,1"},
        {"--in-process", "--device", "1", "--min-time", "0.1", "--max-time", "2", "--min-samples", "3"},
    };
    std::set<std::string> keys;
    for (const std::vector<std::string> &arguments : command_lines) {
        const CommandLine cli = parse(arguments);
        std::string command_line = "runner";
        for (const std::string &argument : arguments) command_line += " " + argument;
        for (const uint32_t ranks : {1u, 2u}) {
            const nlohmann::json options = recorded_by_sweep(cli, ranks);
            for (const auto &[key, value] : options.items()) {
                INFO("options." << key << " of " << command_line << " (" << ranks << " ranks)");
                keys.insert(key);
                const RunnerOption *row = runner_option_by_key(key);
                REQUIRE(row != nullptr);
                CHECK(std::string(row->explanation).size() > 10);
                const std::string meaning = recorded_option_meaning(key);
                // Plain text for the HTML page, led by the flag that sets it.
                CHECK_THAT(meaning, !Catch::Contains("`") && !Catch::Contains("]("));
                if (*row->flag) CHECK_THAT(meaning, Catch::StartsWith("--" + long_flag(*row) + ": "));
            }
        }
    }
    // The keys the HTML page once left unexplained are among those checked.
    for (const char *key : {"trace_device", "hold_stream", "nvtx", "counters", "profile_runs", "world",
                            "param_axes", "budget_s", "sanitize", "default_sweep", "isolation", "params"})
        CHECK(keys.count(key) == 1);
    CHECK(recorded_option_meaning("no_such_option").empty());
}

TEST_CASE("runner --help declares every flag of the option table, with its value's name", "[options]") {
    const CommandLine cli = parse({"--help"});
    CHECK(cli.help);
    std::set<std::string> flags, keys;
    for (const RunnerOption &row : runner_options()) {
        CHECK((*row.flag || *row.key));
        if (*row.key) CHECK(keys.insert(row.key).second);  // each key once
        if (!*row.flag) continue;
        const std::string flag = row.flag, name = long_flag(row);
        INFO("--" << name);
        CHECK(flags.insert(name).second);  // each flag once
        CHECK(std::string(row.help).size() > 10);
        CHECK(std::string(row.explanation).size() > 10);
        const std::string declared = flag.find(',') == std::string::npos
                                         ? "--" + name
                                         : "-" + flag.substr(flag.find(',') + 1) + " [ --" + name + " ]";
        CHECK_THAT(cli.usage, Catch::Contains("  " + declared + (*row.value_name ? " " : "") + row.value_name));
        CHECK_THAT(runner_options_markdown(), Catch::Contains("`--" + name));
    }
    // The Markdown table: a header, then one row per flag, none for a key only recorded.
    const std::string table = runner_options_markdown();
    CHECK_THAT(table, Catch::StartsWith("| option | default | meaning |\n| --- | --- | --- |\n"));
    CHECK(static_cast<size_t>(std::count(table.begin(), table.end(), '\n')) == flags.size() + 2);
    CHECK_THAT(table, Catch::Contains("| `-q`, `--quiet` |  | ") && Catch::Contains("| `--min-time S` | `0.5` | "));
}

TEST_CASE("runner --format chooses the form of --help or --list, and nothing else", "[options]") {
    CHECK(parse({"--help", "--format", "markdown"}).list_format == "markdown");
    CHECK(parse({"--list", "--format", "markdown"}).list_format == "markdown");
    CHECK_THROWS_WITH(parse({"--format", "markdown"}),
                      "--format chooses the form of --list or --help: it needs one of them");
    CHECK_THROWS_AS(parse({"--help", "--format", "html"}), std::invalid_argument);
}

TEST_CASE("the option table's defaults are the command line's", "[options]") {
    const CommandLine cli = parse({});  // the binder checks each default against its member
    const MeasureOptions defaults;
    CHECK(cli.measure.seed == defaults.seed);
    CHECK(cli.measure.min_time_s == defaults.min_time_s);
    CHECK(cli.measure.max_noise == defaults.max_noise);
    CHECK(cli.measure.max_samples == defaults.max_samples);
    CHECK(cli.timeout_s == 600);
    CHECK(cli.list_format == "text");
    CHECK_FALSE(cli.budget_s);  // no default: a budget given is told from none
    for (const RunnerOption &row : runner_options())
        if (*row.default_text) CHECK(*row.flag);  // only a flag has a default to print
}
