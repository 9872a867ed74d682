// `runner check`: an author's conformance test of plugins against the rules of what a plugin must
// do, each finding naming its rule and the doc section that states it. Each selected plugin is
// checked as a third party would run it: its descriptor and work() by the scanner and work
// queries, its entries by a short sweep of this runner at odd and tiny sizes over every declared
// parameter value, in workers, with every audit on.
#include "check.hpp"
#include "cli.hpp"
#include "plugin_catalog.hpp"
#include "plugin_list.hpp"
#include "results_model.hpp"
#include "subcommands.hpp"
#include "sweep_plan.hpp"
#include "text_format.hpp"
#include "work_query.hpp"

#include <gpubench/child_process.hpp>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/program_options.hpp>

#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <tuple>
#include <utility>

namespace gpubench {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

const char *const see_descriptor = "writing-a-plugin.md#descriptor-and-symbol";
const char *const see_params = "writing-a-plugin.md#declared-parameters-abi-110";
const char *const see_work = "writing-a-plugin.md#lifecycle-and-timing";
const char *const see_checks = "measurement.md#checks-on-every-entry";
const char *const see_errors = "writing-a-plugin.md#errors";

struct Finding {
    std::string plugin;
    std::string rule;  // a check's name (check_table) or a rule of the descriptor: "naming"...
    std::string what;  // one line
    std::string see;   // the doc section: "writing-a-plugin.md#declared-parameters-abi-110"
    bool fails = true;  // false: a note, which does not fail the check
};

auto work_fields(const Work &w) {
    return std::tie(w.flops, w.bytes, w.host_bytes, w.device_bytes, w.items, w.math, w.flags, w.launches);
}

void check_params(const PluginInfo &plugin, std::vector<Finding> &out) {
    if (!plugin.param_names)
        out.push_back({plugin.name, "params_declared",
                       "declares no parameter keys (param_names): a mistyped --param cannot be caught", see_params});
    else if (!plugin.param_names->empty() && plugin.params.empty())
        out.push_back({plugin.name, "params_declared",
                       "reads " + join(*plugin.param_names, ",") +
                           " but declares no values for them (ABI 1.10): a wrong value is found only as an error entry",
                       see_params, false});
}

// work() at each size: an answer, and some work declared.
void check_work(const PluginInfo &plugin, const std::vector<uint64_t> &sizes, const std::vector<WorkAnswer> &plain,
                std::vector<Finding> &out) {
    for (size_t i = 0; i < sizes.size() && i < plain.size(); ++i) {
        const std::string at = "work() at size " + std::to_string(sizes[i]);
        if (const auto *failed = std::get_if<std::string>(&plain[i]))
            out.push_back({plugin.name, "work_declared", at + " failed: " + *failed, see_work});
        else if (const Work &w = std::get<Work>(plain[i]); w.flops + w.bytes + w.items <= 0)
            out.push_back({plugin.name, "work_declared", at + " declares no flops, bytes or items", see_work});
    }
}

// The sizes a plugin is checked at: 1, 7, 33 and 1000 where its range allows, else its least.
std::vector<uint64_t> conformance_sizes(const PluginInfo &plugin) {
    std::vector<uint64_t> sizes;
    for (uint64_t size : {1, 7, 33, 1000})
        if (size >= plugin.min_size && size <= plugin.max_size) sizes.push_back(size);
    if (sizes.empty()) sizes.push_back(plugin.min_size);
    return sizes;
}

// The --param axes of its check sweep ("key=v1,v2"): every value of each choice. A number or
// text is left at its default: a value in its range may rightly fail to verify (logreg's
// lr=1e-6 learns nothing, and says so), which is no fault of the plugin.
std::vector<std::string> conformance_param_axes(const PluginInfo &plugin) {
    std::vector<std::string> axes;
    for (const ParamSpec &p : plugin.params)
        if (p.kind == GPUBENCH_PARAM_CHOICE) axes.push_back(p.key + "=" + join(p.choices, ","));
    return axes;
}

// The settings whose work() must equal work(size, ""): each declared key at its declared
// default ("dtype=float32"), text keys with an empty default left out.
std::vector<std::string> default_settings(const PluginInfo &plugin) {
    std::vector<std::string> settings;
    for (const ParamSpec &p : plugin.params)
        if (!p.default_value.empty()) settings.push_back(p.key + "=" + p.default_value);
    return settings;
}

// What a measured entry of its check sweep shows: a refusal or an error as its check's name, a
// flag that the plugin caused; a size or setting it does not support as a note.
std::vector<Finding> entry_findings(const Measurement &e) {
    const std::string at = " (size " + std::to_string(e.size) + (e.settings.params.empty() ? "" : ", " + e.settings.params) + ")";
    std::vector<Finding> out;
    // A check's finding is named by it; a failure the plugin reported itself is an "error".
    const std::string rule = e.refused_by.empty() ? "error" : e.refused_by;
    if (e.status == EntryStatus::skipped)
        out.push_back({e.plugin, e.refused_by.empty() ? "skipped" : rule, e.message + at, see_errors, false});
    else if (e.status != EntryStatus::ok)
        out.push_back({e.plugin, rule, e.message + at, e.refused_by.empty() ? see_errors : see_checks});
    else if (e.verification.checked == 0)  // "verified", with nothing compared
        out.push_back({e.plugin, "verified_nothing", "verify() passed without checking an element of the result" + at,
                       see_work});
    for (const std::string &flag : entry_flags(e))
        if (flag == "persisting_l2_left" || flag == "work_mismatch" || flag == "unoptimized")
            out.push_back({e.plugin, flag, check_named(flag).meaning + at, see_checks, flag != "unoptimized"});
    return out;
}

struct CheckOptions {
    std::vector<std::string> plugin_dirs, patterns;
    std::string sizes;
    bool allow_insecure = false;
    fs::path runner;
    fs::path folder;  // scratch: each plugin's results file and log
};

// A refused file named like a pattern: its descriptor is the finding.
std::vector<Finding> refusal_findings(const PluginCatalog &catalog, const std::vector<std::string> &patterns) {
    std::vector<Finding> out;
    for (const Refusal &r : catalog.refused) {
        const std::string stem = r.file.stem().string();
        if (std::ranges::any_of(patterns, [&](const std::string &p) { return fnmatch(p.c_str(), stem.c_str(), 0) == 0; }))
            out.push_back({printable_text(r.file.filename().string()), "descriptor", printable_text(r.reason),
                           see_descriptor});
    }
    return out;
}

// What the descriptor and work() say: the name, the declared keys and values, work() at each
// size, and work() with each declared default (default_settings) against work() without params.
std::vector<Finding> declared(const PluginInfo &plugin, const std::vector<uint64_t> &sizes, const fs::path &runner) {
    const int devices = std::min<int>(plugin.max_devices, 2);  // across GPUs: the least it takes
    const std::vector<std::string> settings = default_settings(plugin);
    std::vector<WorkQuery> queries{{plugin.file, "", devices, sizes}};
    for (const std::string &setting : settings) queries.push_back({plugin.file, setting, devices, sizes});
    const std::vector<std::vector<WorkAnswer>> answers = query_declared_work(queries, runner, 60);
    const std::vector<WorkAnswer> &plain = answers.front();
    std::vector<Finding> out;
    if (plugin.name != plugin.workload + "_" + plugin.backend)
        out.push_back({plugin.name, "naming",
                       "the name is not <workload>_<backend> (" + plugin.workload + "_" + plugin.backend + ")",
                       see_descriptor});
    check_params(plugin, out);
    check_work(plugin, sizes, plain, out);
    for (size_t s = 0; s < settings.size() && s + 1 < answers.size(); ++s)
        for (size_t i = 0; i < sizes.size() && i < plain.size() && i < answers[s + 1].size(); ++i) {
            const auto *without = std::get_if<Work>(&plain[i]);
            const auto *with = std::get_if<Work>(&answers[s + 1][i]);
            if (without && with && work_fields(*without) != work_fields(*with)) {
                out.push_back({plugin.name, "param_default",
                               "work() at size " + std::to_string(sizes[i]) + " differs with " + settings[s] +
                                   ", the declared default, from without it",
                               see_params});
                break;
            }
        }
    return out;
}

// A sweep of `plugin` by this runner over its declared values, with `words` (sizes, samples)
// added, into the scratch folder as NAME.json and NAME.log: its entries, or why it has none.
// A stop (Ctrl-C, SIGTERM) is passed on to it, which keeps what it has measured.
std::vector<EntryResult> run_sweep(const PluginInfo &plugin, const std::string &name, const std::vector<std::string> &words,
                                   const CheckOptions &o, std::vector<Finding> &findings) {
    const fs::path results = o.folder / (name + ".json"), log = o.folder / (name + ".log");
    ChildStart how{{o.runner.string(), "--plugin-dir", plugin.file.parent_path().string(), "--plugin", plugin.name,
                    "--min-time", "0", "--max-time", "60", "--output", results.string()}};
    how.words.insert(how.words.end(), words.begin(), words.end());
    if (o.allow_insecure) how.words.push_back("--allow-insecure-plugins");
    for (const std::string &axis : conformance_param_axes(plugin)) how.words.insert(how.words.end(), {"--param", axis});
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    how.descriptors = {{out, 1}, {out, 2}};
    ChildProcess sweep;
    const int error = sweep.start(how);
    std::optional<int> status = error ? 0 : sweep.try_wait();
    for (bool passed_on = false; !status; status = sweep.try_wait()) {  // ten looks a second, no load
        if (stop_was_requested() && !std::exchange(passed_on, true)) sweep.signal(SIGTERM);
        usleep(100000);
    }
    ::close(out);
    try {
        return read_results_file(results).entries;
    } catch (const std::exception &e) {
        const std::string why = error ? std::string("could not start the runner: ") + std::strerror(error)
                                      : "the sweep ended with status " + std::to_string(WEXITSTATUS(*status)) +
                                            " and no results (" + log.string() + ")";
        findings.push_back({plugin.name, "sweep", why, "user-guide.md#bad-input"});
        return {};
    }
}

// A CUDA plugin's declared work held to the GPU's counters (--counters), the one check that sees
// less done than claimed: at the largest size alone, where the counts are above their floor and
// a counting pass per series keeps the check short.
void count_work(const PluginInfo &plugin, const std::vector<uint64_t> &sizes, const CheckOptions &o,
                std::vector<Finding> &findings) {
    const std::string largest = std::to_string(*std::max_element(sizes.begin(), sizes.end()));
    for (const EntryResult &e : run_sweep(plugin, plugin.name + ".counted", {"--sizes", largest, "--min-samples", "1",
                                                                              "--max-samples", "1", "--counters"}, o, findings)) {
        for (Finding &f : entry_findings(e))
            if (f.rule == "work_mismatch") findings.push_back(std::move(f));
        if (e.counters.rfind("not read: ", 0) == 0)  // the check passed without its counters: say so
            findings.push_back({plugin.name, "not_counted", "work not held to the counters, " + e.counters,
                                "profiling.md#hardware-counters---counters", false});
    }
}

// One line per rule and plugin, "plugin: rule: what (see doc)": its first finding, with how
// many entries showed it.
size_t print_findings(const std::vector<Finding> &findings) {
    std::vector<std::pair<const Finding *, size_t>> firsts;
    for (const Finding &f : findings) {
        auto same = std::find_if(firsts.begin(), firsts.end(), [&](const auto &first) {
            return first.first->plugin == f.plugin && first.first->rule == f.rule;
        });
        if (same == firsts.end()) firsts.push_back({&f, 1});
        else ++same->second;
    }
    size_t failing = 0;
    for (const auto &[f, count] : firsts) {
        std::cout << f->plugin << ": " << (f->fails ? "" : "note: ") << f->rule << ": " << f->what << " (see " << f->see
                  << ")" << (count > 1 ? " [" + std::to_string(count) + " times]" : "") << '\n';
        failing += f->fails;
    }
    std::cout << std::flush;
    return failing;
}

// The checks of one plugin at `sizes`: its declarations always; its entries where it can run here.
std::vector<Finding> check_plugin(const PluginInfo &plugin, const std::vector<uint64_t> &sizes, const GpuInfo &gpu,
                                  const CheckOptions &o) {
    std::vector<Finding> findings = declared(plugin, sizes, o.runner);
    const std::string unavailable = unavailable_reason(plugin, gpu);
    if (!unavailable.empty()) {
        findings.push_back({plugin.name, "not_measured", "unavailable here: " + unavailable, "user-guide.md#listing-plugins", false});
        return findings;
    }
    // Its entries at `sizes` with every check on: eight runs at least, as the leak check needs
    // 16 MiB of growth over several of them.
    for (const EntryResult &e : run_sweep(plugin, plugin.name, {"--sizes", sizes_text(sizes), "--min-samples", "8",
                                                                 "--max-samples", "10"}, o, findings))
        for (Finding &f : entry_findings(e)) findings.push_back(std::move(f));
    if (plugin.is_cuda() && !stop_was_requested()) count_work(plugin, sizes, o, findings);
    return findings;
}

// Each plugin's findings are printed as soon as it is checked: a long check stopped early
// still says what it found.
int check_all(const CheckOptions &o) {
    PluginCatalog catalog =
        discover_plugins(runner_plugin_search(o.runner, o.plugin_dirs, o.allow_insecure, "runner check"), o.patterns);
    const std::vector<Finding> refused = refusal_findings(catalog, o.patterns);
    std::vector<const PluginInfo *> plugins;
    try {
        plugins = select_plugins(catalog, o.patterns);
    } catch (const std::invalid_argument &e) {
        if (refused.empty()) throw;  // nothing named like the patterns: bad input
    }
    size_t failing = print_findings(refused);
    const GpuInfo gpu = probe_runner_gpu(0, false);
    size_t checked = 0;
    for (; checked < plugins.size() && !stop_was_requested(); ++checked) {
        // What it is swept over, so that a clean check says what it passed.
        const PluginInfo &plugin = *plugins[checked];
        const std::vector<uint64_t> sizes = o.sizes.empty() ? conformance_sizes(plugin) : parse_sizes(o.sizes);
        std::cout << "checking " << plugin.name << " at sizes " << sizes_text(sizes);
        for (const std::string &axis : conformance_param_axes(plugin)) std::cout << ", " << axis;
        std::cout << "...\n" << std::flush;
        failing += print_findings(check_plugin(plugin, sizes, gpu, o));
    }
    const bool stopped = checked < plugins.size() || stop_was_requested();
    std::cout << "runner check: " << (stopped ? "stopped, " : "") << checked << (checked == 1 ? " plugin" : " plugins")
              << (stopped ? " of " + std::to_string(plugins.size()) : "") << ", " << failing
              << (failing == 1 ? " finding" : " findings") << " (notes do not fail it)\n";
    return stopped ? exit_interrupted : failing ? exit_failed : exit_ok;
}

}  // namespace

int check_command(int argc, const char *const *argv) {
    CheckOptions o;
    po::options_description described(
        "Usage: runner check [--plugin-dir DIR]... [--sizes LIST] PATTERN...\n"
        "An author's conformance test: checks each plugin named like a PATTERN (a file refused as a\n"
        "plugin included) against the rules of docs/writing-a-plugin.md: its descriptor, its declared\n"
        "parameters and work(), and a short sweep at sizes 1, 7, 33 and 1000 over every value of each\n"
        "declared choice with every check on (verification after runs with reset(), the stream and\n"
        "thread audits, the roofline, leaks; a CUDA plugin's work against the GPU's counters). One\n"
        "line per finding, naming the rule and the doc section; exit 0 when no plugin has one, 1 when\n"
        "some do, 2 on bad input. A CPU plugin needs no GPU; a CUDA plugin where none can be used is\n"
        "checked but for its entries.\nOptions");
    described.add_options()("help,h", "show this help")
        ("plugin-dir", po::value<std::vector<std::string>>(&o.plugin_dirs), "a folder of plugins (repeatable)")
        ("sizes", po::value<std::string>(&o.sizes), "the sizes instead of 1, 7, 33, 1000")
        ("allow-insecure-plugins", po::bool_switch(&o.allow_insecure), "as the runner's option");
    if (parse_subcommand(argc, argv, described, &o.patterns)) return exit_ok;
    if (o.patterns.empty()) throw std::invalid_argument("name the plugins to check (PATTERN...)");
    if (!o.sizes.empty()) parse_sizes(o.sizes);  // bad sizes: refused before anything runs
    std::error_code ec;
    o.runner = boost::dll::program_location(ec);
    o.folder = fs::temp_directory_path() / ("gpubench-check-" + std::to_string(::getpid()));
    fs::create_directories(o.folder);
    catch_stop_signals();
    const int status = check_all(o);
    if (status == exit_ok)
        fs::remove_all(o.folder, ec);
    else
        std::cout << "the sweeps' results and logs: " << o.folder.string() << '\n';
    return status;
}

}  // namespace gpubench
