// Declared parameters (ABI 1.10): the SDK's declarations and their check of a value, the
// descriptor that carries them and the runner's reading of it, and what the runner does with
// them: --list shows them, a value outside them is refused before anything is measured,
// KEY=* sweeps a choice, and the results file records them.
#include "declared_params.hpp"
#include "descriptor_check.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <gpubench/plugin.hpp>

#include <catch2/catch.hpp>

#include <sstream>
#include <variant>

using namespace gpubench;
using namespace runner_process;

namespace {

const ParamSpec kind = choice("kind", {"fast", "exact"}, "how");
const ParamSpec steps = whole("steps", 10, 1, 1000, "iterations");
const ParamSpec rate = real("rate", 0.5, 0.25, 2, "learning rate");
const ParamSpec path = text("path", "", "where to write");

// A plugin class for make_descriptor, which takes its adapter's function addresses.
struct Declaring {
    explicit Declaring(const Setup &) {}
    static Work work(uint64_t, const Params &) { return {}; }
    void run() {}
    Verification verify() { return {}; }
};

// The descriptor of a plugin that declares `params` (and `names`, where given), read back by
// the runner's descriptor check: its PluginInfo, or why it was refused.
std::variant<PluginInfo, std::string> read_back(std::vector<ParamSpec> params, const char *names = nullptr) {
    static const uint64_t sizes[] = {10};
    Info info{"p_cpu", "p", "cpu", GPUBENCH_DEVICE_CPU, "d", "n", "1.0", "", 1, 100, {10}};
    info.param_names = names;
    info.params = std::move(params);
    const detail::DeclaredParams declared(info);
    gpubench_plugin d = detail::make_descriptor<Declaring>(info, "optimized", &declared);
    d.default_sizes = sizes;
    const ProcessAddressSpace memory;
    return read_descriptor(&d, memory);
}

}  // namespace

TEST_CASE("declared parameters: each kind allows its values and names them when it refuses", "[params]") {
    CHECK(value_problem(kind, "exact").empty());
    CHECK(value_problem(kind, "half") == "kind='half': expected fast or exact");
    CHECK(value_problem(steps, "1000").empty());
    CHECK(value_problem(steps, "1001") == "steps='1001': expected a whole number from 1 to 1000");
    CHECK_FALSE(value_problem(steps, "2.5").empty());
    CHECK_FALSE(value_problem(steps, "").empty());
    CHECK(value_problem(rate, "0.25").empty());
    CHECK(value_problem(rate, "2e0").empty());
    CHECK(value_problem(rate, "0.2") == "rate='0.2': expected a number from 0.25 to 2");
    CHECK_FALSE(value_problem(rate, "nan").empty());
    CHECK(value_problem(path, "/tmp/x").empty());
    CHECK(rate.default_value == "0.5");
    CHECK(steps.default_value == "10");
    CHECK(kind.default_value == "fast");
}

TEST_CASE("declared parameters: Params reads a declared key, its default when absent", "[params]") {
    enum class Kind { fast, exact };
    CHECK(Params("").get_int(steps) == 10);
    CHECK(Params("steps=7").get_int(steps) == 7);
    CHECK(Params("").get_enum<Kind>(kind) == Kind::fast);
    CHECK(Params("kind=exact").get_enum<Kind>(kind) == Kind::exact);
    CHECK(Params("rate=1.5").get_double(rate) == 1.5);
    CHECK_THROWS_WITH(Params("kind=half").get(kind), "kind='half': expected fast or exact");
    CHECK_THROWS_AS(Params("steps=0").get_int(steps), InvalidArgument);
}

TEST_CASE("declared parameters: the descriptor carries them to the runner, keys in param_names", "[params]") {
    const auto read = read_back({kind, steps, rate, path});
    REQUIRE(std::holds_alternative<PluginInfo>(read));
    const PluginInfo &info = std::get<PluginInfo>(read);
    REQUIRE(info.params.size() == 4);
    CHECK(info.params[0].choices == std::vector<std::string>{"fast", "exact"});
    CHECK(info.params[1].kind == GPUBENCH_PARAM_INT);
    CHECK(info.params[2].min == 0.25);
    CHECK(info.params[3].help == "where to write");
    REQUIRE(info.param_names);
    CHECK(*info.param_names == std::vector<std::string>{"kind", "steps", "rate", "path"});
    // The results file's and the scan cache's form reads back the same.
    const std::vector<ParamSpec> again = declared_params_from_json(declared_params_json(info.params));
    CHECK(declared_params_json(again) == declared_params_json(info.params));
}

TEST_CASE("declared parameters: a wrong declaration refuses the plugin, saying what is wrong", "[params]") {
    const auto refused = [](std::vector<ParamSpec> params, const char *names = nullptr) {
        const auto read = read_back(std::move(params), names);
        return std::holds_alternative<std::string>(read) ? std::get<std::string>(read) : std::string();
    };
    ParamSpec bad_default = steps;
    bad_default.default_value = "0";
    CHECK_THAT(refused({bad_default}), Catch::Contains("its default steps='0'"));
    CHECK_THAT(refused({choice("kind", {}, "")}), Catch::Contains("choices' is empty"));
    CHECK_THAT(refused({whole("steps", 5, 10, 1, "")}), Catch::Contains("is empty"));
    CHECK_THAT(refused({kind, kind}), Catch::Contains("declared twice"));
    CHECK_THAT(refused({text("no-dash", "", "")}), Catch::Contains("letters, digits and '_'"));
    CHECK_THAT(refused({kind}, "kind,steps"), Catch::Contains("name other keys"));
    CHECK(refused({kind}, "kind").empty());
}

TEST_CASE("declared parameters: a 1.9 descriptor, without them, still loads", "[params]") {
    static const uint64_t sizes[] = {10};
    Info info{"old_cpu", "old", "cpu", GPUBENCH_DEVICE_CPU, "d", "n", "1.0", "", 1, 100, {10}};
    info.param_names = "steps";
    gpubench_plugin d = detail::make_descriptor<Declaring>(info, "optimized");
    d.default_sizes = sizes;
    d.abi_minor = 9;
    d.struct_size = offsetof(gpubench_plugin, params);
    const ProcessAddressSpace memory;
    const auto read = read_descriptor(&d, memory);
    REQUIRE(std::holds_alternative<PluginInfo>(read));
    CHECK(std::get<PluginInfo>(read).params.empty());
    CHECK(*std::get<PluginInfo>(read).param_names == std::vector<std::string>{"steps"});
}

TEST_CASE("param values: one outside the declaration is refused before anything is measured", "[params][cli]") {
    const auto results = temp_results("declared_refused");
    std::filesystem::remove(results);
    const Outcome o = run_runner("--plugin matmul_naive --sizes 8 --param dtype=float16 --output " + results.string());
    CHECK(o.status == 2);
    CHECK(o.output == "runner: error: --param dtype=float16: matmul_naive's dtype is float32 or float64\n");
    CHECK_FALSE(std::filesystem::exists(results));
    const Outcome range = run_runner("--plugin logreg_naive --sizes 10 --param iterations=0");
    CHECK(range.status == 2);
    CHECK_THAT(range.output, Catch::Contains("logreg_naive's iterations is a whole number from 1 to 100000"));
    const Outcome every = run_runner("--plugin logreg_naive --sizes 10 --param 'iterations=*'");
    CHECK(every.status == 2);
    CHECK_THAT(every.output, Catch::Contains("(* stands for a choice's values)"));
}

TEST_CASE("param values: KEY=* sweeps every declared value, and the results record the declarations", "[params][cli]") {
    const auto results = temp_results("declared_every");
    std::filesystem::remove(results);
    const Outcome o = run_runner(std::string("--plugin matmul_naive --sizes 8 --param 'dtype=*'") + quick + "--output " +
                                 results.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const nlohmann::json written = read_json(results);
    std::filesystem::remove(results);
    REQUIRE(written.at("entries").size() == 2);
    CHECK(written.at("entries").at(0).at("params") == "dtype=float32");
    CHECK(written.at("entries").at(1).at("params") == "dtype=float64");
    const nlohmann::json &declared = written.at("plugins").at(0).at("params");
    CHECK(declared.at(0).at("key") == "dtype");
    CHECK(declared.at(0).at("choices") == nlohmann::json{"float32", "float64"});
    CHECK(declared.at(0).at("default") == "float32");
}

TEST_CASE("runner --list shows declared parameters, and --list --plugin describes within 100 columns",
          "[params][cli]") {
    const Outcome list = run_runner("--list");
    CHECK_THAT(list.output, Catch::Contains("dtype=float32|float64") &&
                                Catch::Contains("iterations=1..100000 lr=1e-06..100 data=text"));
    const Outcome described = run_runner("--list --plugin 'logreg_naive,sort_omp'");
    INFO(described.output);
    CHECK(described.status == 0);
    CHECK_THAT(described.output, Catch::Contains("param:    iterations = 1..100000 (default 100): full-batch") &&
                                     Catch::Contains("param:    keys = float32|uint32|uint64|pairs (default "
                                                     "float32)"));
    std::istringstream lines(described.output);
    for (std::string line; std::getline(lines, line);) {
        if (line.find('/') != std::string::npos && line.find(' ', 14) == std::string::npos) continue;  // a path
        CHECK(line.size() <= 100);
    }
    CHECK(run_runner("--list --plugin no_such_plugin").status == 2);
}

TEST_CASE("a Python script declares its parameters in one PARAMETERS line", "[params][python]") {
    const std::vector<ParamSpec> parsed =
        parse_param_specs("dtype: float32|float64; steps: int 1..1000 = 10 ; rate: real 0.25..2 = 0.5; path: text; "
                          "mode: a|b = b");
    REQUIRE(parsed.size() == 5);
    CHECK(declared_params_json(parsed) ==
          declared_params_json({choice("dtype", {"float32", "float64"}, ""), whole("steps", 10, 1, 1000, ""),
                                real("rate", 0.5, 0.25, 2, ""), text("path", "", ""), ParamSpec{"mode", GPUBENCH_PARAM_CHOICE, "b", {"a", "b"}, 0, 0, ""}}));
    const std::string plugins = std::string(" --plugin-dir ") + GPUBENCH_PYTHON_FIXTURE_DIR;
    const Outcome described = run_runner("--list --plugin pyfixture_standalone" + plugins);
    INFO(described.output);
    CHECK_THAT(described.output, Catch::Contains("param:    mode = plain|typo|math|flags|long|metric_direction|"));
    const Outcome refused = run_runner("--plugin pyfixture_standalone --sizes 16 --param mode=nope" + plugins);
    CHECK(refused.status == 2);
    CHECK_THAT(refused.output, Catch::Contains("pyfixture_standalone's mode is plain, typo, math"));
}
