// The results model: every reader checks a file against core/base/results_schema.json and names the
// first offending field in one line (exit 2), whatever the file holds; the recorded studies'
// files validate; what the writer writes reads back the same; and the built-in validator agrees
// with python's jsonschema, where that is installed.
#include "json_schema.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"
#include "worker_main.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <tuple>

using namespace gpubench;
using namespace runner_process;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path schema_file = fs::path(GPUBENCH_SOURCE_DIR) / "core" / "base" / "results_schema.json";
// The recorded studies' results files (docs/studies/README.md), one folder per machine.
const fs::path studies_data = fs::path(GPUBENCH_SOURCE_DIR) / "docs" / "studies" / "data";
// A real results file of a GPU sweep: per-launch headlines, NVML readings, energy, rooflines.
const fs::path recorded = studies_data / "h100" / "harness-cost-n10-2026-11-23.json";

// The recorded file with `change` made at a JSON pointer: a value put there, or (null
// change) the field removed.
json changed(const std::string &pointer, const std::optional<json> &change) {
    json document = read_json(recorded);
    const json::json_pointer at(pointer);
    if (change)
        document[at] = *change;
    else
        document[at.parent_pointer()].erase(at.back());
    return document;
}

// The whole output is one line, the error.
void check_one_line_error(const Outcome &o, const std::string &prefix, const std::string &says) {
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
    CHECK_THAT(o.output, Catch::StartsWith(prefix) && Catch::Contains(says));
}

void check_readers_refuse(const fs::path &file, const std::string &says) {
    check_one_line_error(run_runner("report " + file.string()), "runner report: error: ", says);
    check_one_line_error(run_runner("compare " + recorded.string() + " " + file.string()),
                         "runner compare: error: ", says);
}

}  // namespace

TEST_CASE("report and compare name a timing without run in one line, exit 2", "[results-model]") {
    const fs::path file = temp_results("timing_without_run");
    write(file, changed("/entries/2/timing/run", std::nullopt).dump());
    check_readers_refuse(file, file.string() + ": /entries/2/timing: required field 'run' missing");
    fs::remove(file);
}

TEST_CASE("readers refuse wrong types, values and versions at every level, naming the field",
          "[results-model]") {
    const fs::path file = temp_results("wrong_types");
    const std::vector<std::tuple<std::string, json, std::string>> cases = {
        {"/entries/0/size", "10", "/entries/0/size: expected an integer, got a string"},
        {"/entries/0/size", 2.5, "/entries/0/size: expected an integer, got 2.5"},
        {"/entries/0/size", 1e30, "/entries/0/size: 1e+30 is above the maximum 18446744073709551615"},
        {"/entries/1/status", "fine", "/entries/1/status: expected one of \"ok\""},
        {"/entries/1/timing/unit", "ms", "/entries/1/timing/unit: expected \"s\", got \"ms\""},
        {"/entries/1/timing/run/median", nullptr, "/entries/1/timing/run/median: expected a number, got null"},
        {"/entries/0/timing/samples/run/3", -1, "/entries/0/timing/samples/run/3: -1 is below the minimum 0"},
        {"/entries/0/flags", json::object(), "/entries/0/flags: expected an array, got an object"},
        {"/plugins/0", "copy_cuda", "/plugins/0: expected an object, got a string"},
        {"/gpu/available", 1, "/gpu/available: expected a boolean, got 1"},
        {"/options/cpu_threads", 0, "/options/cpu_threads: 0 is below the minimum 1"},
        {"/entries", json::object(), "/entries: expected an array, got an object"},
        {"/schema_version", 2, "has results schema 2; this runner reads schema 1"},
    };
    for (const auto &[pointer, value, says] : cases) {
        write(file, changed(pointer, value).dump());
        check_readers_refuse(file, says);
    }
    write(file, changed("/gpu/name", std::nullopt).dump());  // a GPU that is available has a name
    check_readers_refuse(file, "/gpu: required field 'name' missing");
    write(file, "[1, 2]");
    check_readers_refuse(file, "is not a gpubench results file");
    fs::remove(file);
}

TEST_CASE("readers refuse files that are not JSON, empty, truncated, out of range or NaN, in one line",
          "[results-model]") {
    const fs::path file = temp_results("not_json");
    const std::string text = slurp(recorded);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "is empty"},
        {"  \n", "is empty"},
        {"this is not JSON", "is not valid JSON (parse error at line 1"},
        {text.substr(0, text.size() / 2), "is not valid JSON"},
        {"{\"schema_version\": 1e999}", "is not valid JSON (number overflow"},
        {"{\"schema_version\": NaN}", "is not valid JSON"},
        {"{\"schema_version\": 1, \"entries\": [Infinity]}", "is not valid JSON"},
        {std::string("{\"a\": \"\0\"}", 10), "is not valid JSON"},
    };
    for (const auto &[content, says] : cases) {
        write(file, content);
        check_readers_refuse(file, says);
    }
    check_readers_refuse(file.string() + ".missing", "cannot read");
    fs::remove(file);
}

TEST_CASE("a gzip-compressed results file is read as it is, and corrupt, truncated or huge ones are refused",
          "[results-model]") {
    const fs::path gz = temp_results("compressed").replace_extension(".json.gz");
    REQUIRE(run_command("gzip -c " + recorded.string() + " > " + gz.string()).status == 0);
    CHECK(read_results_json(gz) == read_results_json(recorded));
    const Outcome report = run_runner("report " + gz.string());
    INFO(report.output);
    CHECK(report.status == 0);
    const std::string compressed = slurp(gz);
    write(gz, compressed.substr(0, compressed.size() / 2));
    check_readers_refuse(gz, "is not valid gzip data (truncated)");
    std::string corrupt = compressed;
    corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);  // in the data
    write(gz, corrupt);
    check_readers_refuse(gz, "is not valid gzip data");
    // 2 GiB of zeros in 2 MB: refused at 1 GiB, without holding the rest.
    REQUIRE(run_command("head -c 2147483648 /dev/zero | gzip -1 -c > " + gz.string()).status == 0);
    check_readers_refuse(gz, "inflates to more than 1 GiB: not a results file");
    fs::remove(gz);
}

TEST_CASE("a 100000-deep nesting is refused before it is built, not followed down the stack",
          "[results-model]") {
    const fs::path file = temp_results("deep");
    const int deep = 100000;
    write(file, std::string(deep, '['));
    check_readers_refuse(file, "nests objects or arrays more than 64 deep");
    // Well formed, and hidden in a field nobody reads.
    std::string text = slurp(recorded);
    text.insert(1, "\"junk\": " + std::string(deep, '[') + std::string(deep, ']') + ", ");
    write(file, text);
    check_readers_refuse(file, "nests objects or arrays more than 64 deep");
    CHECK_THROWS_WITH(read_results_json(file), Catch::Contains("more than 64 deep"));
    fs::remove(file);
}

TEST_CASE("resuming a file with wrong field types: one line, exit 2, the file untouched, nothing beside it",
          "[results-model]") {
    const fs::path dir = temp_results("resume_dir");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path file = dir / "sweep.json";
    const std::string sweep = fixtures() + " --plugin fixture_good --sizes 5,6" + quick;
    REQUIRE(run_runner(sweep + "-o " + file.string()).status == 0);
    const json good = read_json(file);
    const std::vector<std::pair<std::string, json>> cases = {
        {"/entries/0/seed", "42"},       {"/entries/0/size", -5},
        {"/entries/1/plugin", nullptr},  {"/plugins/0/name", 7},
        {"/resumed", "yesterday"},       {"/options", json::array()},
        {"/entries/0/timing/samples/run", "fast"}, {"/entries/0", 1},
    };
    for (const auto &[pointer, value] : cases) {
        json bad = good;
        bad[json::json_pointer(pointer)] = value;
        const std::string text = bad.dump(1);
        write(file, text);
        Outcome o = run_runner(sweep + "--resume " + file.string());
        INFO(pointer << ": " << o.output);
        check_one_line_error(o, "runner: error: cannot resume: ", file.string() + ": " + pointer + ": ");
        CHECK(slurp(file) == text);
        CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
    }
    fs::remove_all(dir);
}

TEST_CASE("every recorded results file validates", "[results-model]") {
    // Files beside them that are no results files: a bench summary (bench/sweep_cost.sh), and
    // PyTorch's all-reduce (bench/torch_allreduce.py).
    const std::set<std::string> others = {"harness-cost-summary-2026-11-23.json", "torch-allreduce-2-gpus-2026-11-29.json"};
    size_t checked = 0;
    for (const auto &item : fs::recursive_directory_iterator(studies_data)) {
        const fs::path path = item.path();
        if (path.extension() != ".json" || others.count(path.filename().string())) continue;
        INFO(path);
        CHECK_NOTHROW(read_results_file(path));
        ++checked;
    }
    CHECK(checked >= 30);  // the folder is there and read
}

TEST_CASE("the built-in schema is core/base/results_schema.json, and refuses what it cannot enforce",
          "[results-model]") {
    CHECK(results_schema() == json::parse(slurp(schema_file)));
    CHECK_THROWS_WITH(JsonSchema(json{{"type", "string"}, {"pattern", "^a"}}),
                      Catch::Contains("keyword 'pattern' is not supported"));
    CHECK_THROWS_WITH(JsonSchema(json{{"$ref", "#/$defs/nowhere"}}), Catch::Contains("leads nowhere"));
    CHECK_THROWS_WITH(JsonSchema(json{{"type", "text"}}), Catch::Contains("unknown type"));
    // Pointer tokens are escaped, and a message stays on one line.
    const JsonSchema strings(json{{"additionalProperties", {{"type", "string"}}}});
    CHECK(strings.first_violation(json{{"a/b~\n", 1}})->text() ==
          "/a~1b~0\\x0a: expected a string, got 1");
}

TEST_CASE("what the writer writes reads back the same through the typed model", "[results-model]") {
    MeasureOptions options;
    options.seed = 7;
    options.cpu_threads = 3;
    options.params = "input=descending";
    options.min_samples = 4;
    options.max_noise = 0.01;
    options.cold = true;
    options.audit_streams = false;
    EntryResult e;
    e.plugin = "sort_cuda";
    e.size = 1ull << 40;
    e.status = EntryStatus::ok;
    e.timing.clock = "cuda_event";
    e.timing.samples.run = {3e-6, 4e-6, 5e-6};
    e.timing.samples.upload = {1e-6, 1e-6, 1e-6};
    e.timing.samples.download = {2e-6, 2e-6, 2e-6};
    e.timing.per_launch = {"graph", 1000, {1e-6, 1.5e-6, 2e-6}};
    e.timing.cache = "cold";
    e.verification.max_error = std::nan("");  // written as null
    e.settings = entry_settings(options);
    EntryResult skipped = e;
    skipped.size = 5;
    skipped.status = EntryStatus::skipped;
    skipped.message = "unavailable";
    skipped.timing.samples.run.clear();
    json document = results_header({"runner", "--seed", "7"}, GpuInfo{}, options, std::nullopt);
    document["plugins"] = json::array({json{{"name", "sort_cuda"}, {"workload", "sort"},
                                            {"backend", "cuda"}, {"device_kind", "cuda"},
                                            {"description", ""}, {"size_meaning", "n"},
                                            {"version", "1"}, {"abi", "1.3"},
                                            {"build_info", ""}, {"file", "x.so"}}});
    document["entries"] = json::array({nlohmann::json(e), nlohmann::json(skipped)});
    const fs::path file = temp_results("round_trip");
    write(file, document.dump());
    const json back = read_results_json(file);
    const MeasureOptions read = back["options"].get<MeasureOptions>();
    CHECK(json(read) == json(options));
    const ResultsDocument typed = read_results_file(file);
    CHECK_FALSE(typed.gpu_name);
    REQUIRE(typed.entries.size() == 2);
    const EntryResult &timed = typed.entries[0];
    CHECK(timed.identity() == EntryIdentity{"sort_cuda", 1ull << 40, "input=descending", 7});
    CHECK(timed.identity().any_seed().text() == "sort_cuda 1099511627776 (params 'input=descending')");
    CHECK(timed.status == EntryStatus::ok);
    CHECK(timed.timing.samples.run == e.timing.samples.run);
    CHECK(timed.timing.samples.download == e.timing.samples.download);
    CHECK(headline_run_samples(timed) == e.timing.per_launch.samples);
    CHECK(timed.timing.per_launch.launches_per_sample == 1000);
    const EntryFigures figures = entry_figures(timed, typed.header.basis());
    CHECK(figures.flags == std::vector<std::string>{"noisy", "cold"});
    CHECK(figures.run.median == Approx(4e-6));
    CHECK(figures.end_to_end.median == Approx(7e-6));
    CHECK(figures.compute.median == Approx(1.5e-6));
    CHECK(typed.entries[1].message == "unavailable");
    CHECK(typed.entries[1].timing.samples.run.empty());
    // The worker's request carries the same options.
    CHECK(json(request_from_wire(request_to_wire({5, options, {}})).options) == json(options));
    fs::remove(file);
}

TEST_CASE("a resumed file's entries are found decoded, tallied by their typed status", "[results-model]") {
    const MeasureOptions options;
    json document = results_header({"runner"}, GpuInfo{}, options, std::nullopt);
    document["plugins"] = json::array({json{{"name", "p"}, {"workload", "w"}, {"backend", "b"},
                                            {"device_kind", "cpu"}, {"description", ""}, {"size_meaning", "n"},
                                            {"version", "1"}, {"abi", "1.3"}, {"build_info", ""}, {"file", "p.so"}}});
    document["entries"] = json::array();
    const std::vector<EntryStatus> statuses = {EntryStatus::ok, EntryStatus::verification_failed, EntryStatus::error,
                                               EntryStatus::skipped, EntryStatus::skipped};
    for (size_t i = 0; i < statuses.size(); ++i) {
        EntryResult e;
        e.plugin = "p";
        e.size = i + 1;
        e.status = statuses[i];
        e.settings = entry_settings(options);
        document["entries"].push_back(e);
    }
    const fs::path file = temp_results("typed_resume");
    write(file, document.dump());
    StatusTally tally;
    {
        const ResultsFile resumed = ResultsFile::resume(file, file, {{"created", "now"}});
        for (size_t size = 1; size <= statuses.size(); ++size) {
            const std::optional<EntryResult> found = resumed.find_entry({"p", size, "", options.seed});
            REQUIRE(found);
            CHECK(found->size == size);
            tally.count(found->status);
        }
        CHECK_FALSE(resumed.find_entry({"p", 1, "", options.seed + 1}));  // another seed: another measurement
    }
    CHECK(tally.entries() == 5);
    CHECK(tally.ok == 1);
    CHECK(tally.any_failed());
    CHECK(tally.not_ok_text() == "1 failed verification, 1 errors, 2 skipped");
    CHECK_FALSE(StatusTally{2, 0, 0, 1}.any_failed());
    // What the schema cannot say is named with the entry's place in its file.
    json odd = document["entries"][3];
    odd["status"] = "lost";
    CHECK_THROWS_WITH(typed_entry(odd, 3, "run.json"), Catch::StartsWith("run.json: /entries/3: ") &&
                                                            Catch::Contains("lost"));
    fs::remove(file);
}

TEST_CASE("python's jsonschema accepts the schema and agrees with the built-in validator",
          "[results-model]") {
    const Outcome python = find_python("jsonschema");
    if (python.status != 0) test_support::skip_test(python.output);
    const fs::path dir = temp_results("agreement");
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::vector<json> documents = {
        read_json(recorded),
        changed("/future_field", json{{"x", {1, 2}}}),     // unknown fields are allowed
        changed("/entries/0/size", 10.0),                   // an integer, written as a float
        changed("/entries/0/verification/max_error", nullptr),  // NaN
        changed("/entries/0/timing", std::nullopt),         // skipped entries have none
        changed("/gpu", json{{"available", false}, {"reason", "none"}, {"driver_version", 0},
                             {"runtime_version", 0}}),
        changed("/schema_version", 1.0),
        changed("/entries/0/timing/run", std::nullopt),
        changed("/entries/0/size", true),
        changed("/entries/0/size", 18446744073709551616.0),  // 2^64: one past uint64
        changed("/entries/0/status", "fine"),
        changed("/gpu/roofline/flops/fp32", -1),
        changed("/gpu", json{{"available", false}, {"driver_version", 0}, {"runtime_version", 0}}),
        changed("/entries/0/resources/gpu_after/utilization_percent", 101),
        changed("/entries/0/timing/per_launch/samples/0", "1e-6"),
        changed("/options/max_noise", 1.5),
        changed("/command_line/0", nullptr),
        json::array(),
    };
    std::string files, expected;
    size_t invalid = 0;
    for (size_t i = 0; i < documents.size(); ++i) {
        const fs::path path = dir / (std::to_string(i) + ".json");
        write(path, documents[i].dump());
        files += " " + path.string();
        const bool refused = results_schema_violation(documents[i]).has_value();
        expected += refused ? "invalid\n" : "valid\n";
        invalid += refused;
    }
    const std::string script =
        "import json, sys, jsonschema\n"
        "schema = json.load(open(sys.argv[1]))\n"
        "jsonschema.Draft202012Validator.check_schema(schema)\n"
        "check = jsonschema.Draft202012Validator(schema)\n"
        "for path in sys.argv[2:]:\n"
        "    print('valid' if check.is_valid(json.load(open(path))) else 'invalid')\n";
    write(dir / "agree.py", script);
    const Outcome agreed = run_command(python.output + " " + (dir / "agree.py").string() + " " +
                                       schema_file.string() + files);
    INFO(agreed.output);
    CHECK(agreed.status == 0);
    CHECK(agreed.output == expected);
    CHECK(invalid == 11);  // the last 11 (the first 7 are valid)
    fs::remove_all(dir);
}
