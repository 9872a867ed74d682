// `runner history add|show|regressions`: results across commits, kept in SQLite
// (core/history/history_store.hpp); the manual is docs/history.md.
#include "cli.hpp"
#include "history_store.hpp"
#include "subcommands.hpp"
#include "text_format.hpp"

#include <boost/program_options.hpp>

#include <fnmatch.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

namespace gpubench {

namespace po = boost::program_options;

namespace {

constexpr const char *default_database = "results/history.sqlite";
constexpr const char *usage =
    "Usage: runner history add RESULTS.json... [--db PATH] [--commit REV]\n"
    "       runner history show [--db PATH] [--plugin GLOB] [--size N] [--params P]\n"
    "       runner history regressions [--db PATH] [--threshold FRACTION] [--within N]\n"
    "Keeps results across commits in an SQLite database (default results/history.sqlite):\n"
    "add stores runs, show prints each series' trend with its change points, regressions\n"
    "exits 1 when the newest commits of a series form a slower step, or a plugin's metric's\n"
    "newest commits a step the worse way (docs/history.md).\n";

// A commit as printed: a full hash shortened as git does, names as they are.
std::string short_commit(const std::string &commit) { return commit.substr(0, 12); }

std::string percent(double fraction) { return format_text("%+.0f%%", 100 * fraction); }

// "slower"/"faster" for a time, "worse"/"better" for a metric, "up"/"down" for one of no
// stated direction.
const char *step_word(const HistorySeries &series, const ChangePoint &step) {
    if (series.metric.empty()) return step.after > step.before ? "slower" : "faster";
    if (series.better == GPUBENCH_BETTER_UNSTATED) return step.after > step.before ? "up" : "down";
    return series.worse(step, 0) ? "worse" : "better";
}

std::string series_heading(const HistorySeries &series) {
    return series.label() + " | " + series.machine + (series.gpus.empty() ? "" : " | " + series.gpus) + " | " +
           series.build;
}

// The trend of one series: a row per run, oldest first, its steps marked.
void print_trend(const HistorySeries &series) {
    std::printf("%s\n", series_heading(series).c_str());
    std::printf("  %-20s  %-12s  %12s  %s\n", "date", "commit", "median", "spread (quartiles)");
    size_t next_step = 0;
    for (size_t i = 0; i < series.points.size(); ++i) {
        const HistoryPoint &p = series.points[i];
        std::string note;
        if (next_step < series.change_points.size() && series.change_points[next_step].index == i) {
            const ChangePoint &step = series.change_points[next_step++];
            note = "<- step " + percent(step.relative_step()) + " (" + step_word(series, step) + ")";
        }
        const std::string spread = p.samples > 1 ? series.value_text(p.low) + " .. " + series.value_text(p.high) : "";
        const std::string row = format_text("%-20s  %-12s  %12s  %-27s %s", p.date.c_str(),
                                            short_commit(p.commit).c_str(), series.value_text(p.median).c_str(),
                                            spread.c_str(), note.c_str());
        std::printf("  %s\n", trim(row).c_str());
    }
    std::printf("\n");
}

// The newest step of a series when it is slower (a metric: worse) by more than `threshold`:
// the newest commits regressed. With `within` > 0, only a step that began in the newest
// `within` runs.
std::optional<ChangePoint> newest_regression(const HistorySeries &series, double threshold, size_t within) {
    if (series.change_points.empty()) return std::nullopt;
    const ChangePoint &last = series.change_points.back();
    if (within && last.index + within < series.points.size()) return std::nullopt;
    return series.regressed(last, threshold) ? std::optional(last) : std::nullopt;
}

void print_step(const char *what, const HistorySeries &series, const ChangePoint &step) {
    const HistoryPoint &first = series.points[step.index];
    const size_t runs = series.points.size() - step.index;
    // A step from 0 has no relative size: its word alone.
    const std::string size = step.before != 0 ? percent(std::fabs(step.relative_step())).substr(1) + " " : "";
    std::printf("%s: %s: %s%s from commit %s (%s): %s -> %s", what, series_heading(series).c_str(), size.c_str(),
                step_word(series, step), short_commit(first.commit).c_str(), first.date.c_str(),
                series.value_text(step.before).c_str(), series.value_text(step.after).c_str());
    std::printf(" (%zu run%s since)\n", runs, runs == 1 ? "" : "s");
}

int add(int argc, const char *const *argv) {
    std::vector<std::string> files;
    std::string database = default_database, commit;
    po::options_description described("runner history add RESULTS.json... [options]\nOptions");
    described.add_options()("help,h", "show this help")
        ("db", po::value<std::string>(&database), "the history database (default results/history.sqlite)")
        ("commit", po::value<std::string>(&commit), "the commit the runs measured (default: the file's git revision)");
    if (parse_subcommand(argc, argv, described, &files)) return exit_ok;
    if (files.empty()) throw std::invalid_argument("no results file given");
    for (const std::string &file : files) {
        const HistoryAdded added = history_add_file(database, file, commit);
        if (added.already_stored)
            std::printf("%s: already stored (run %lld); not added again\n", file.c_str(),
                        static_cast<long long>(added.run_id));
        else
            std::printf("%s: added as run %lld: %zu verified entries, commit %s, %s\n", file.c_str(),
                        static_cast<long long>(added.run_id), added.points, added.commit.c_str(), added.date.c_str());
    }
    return exit_ok;
}

int show(int argc, const char *const *argv) {
    std::string database = default_database, plugin = "*";
    std::optional<uint64_t> size;
    std::optional<std::string> params;
    ChangePointOptions options;
    po::options_description described("runner history show [options]\nOptions");
    described.add_options()("help,h", "show this help")
        ("db", po::value<std::string>(&database), "the history database (default results/history.sqlite)")
        ("plugin", po::value<std::string>(&plugin), "only plugins matching this glob ('matmul_*')")
        ("size", po::value<uint64_t>()->notifier([&](uint64_t n) { size = n; }), "only this size")
        ("params", po::value<std::string>()->notifier([&](const std::string &p) { params = p; }),
         "only entries with exactly these params ('' for none)")
        ("threshold", po::value<double>(&options.min_relative_step)->default_value(options.min_relative_step),
         "the smallest step marked (0.05 = 5%)");
    if (parse_subcommand(argc, argv, described)) return exit_ok;
    size_t shown = 0;
    for (const HistorySeries &series : history_series(database, options)) {
        if (fnmatch(plugin.c_str(), series.plugin.c_str(), 0) != 0) continue;
        if ((size && series.size != *size) || (params && series.params != *params)) continue;
        print_trend(series);
        ++shown;
    }
    if (!shown) std::printf("no series in %s matches\n", database.c_str());
    return exit_ok;
}

int regressions(int argc, const char *const *argv) {
    std::string database = default_database;
    ChangePointOptions options;
    size_t within = 0;
    po::options_description described("runner history regressions [options]\nOptions");
    described.add_options()("help,h", "show this help")
        ("db", po::value<std::string>(&database), "the history database (default results/history.sqlite)")
        ("threshold", po::value<double>(&options.min_relative_step)->default_value(options.min_relative_step),
         "steps smaller than this fraction are not changes (0.05 = 5%)")
        ("within", po::value<size_t>(&within)->default_value(0),
         "count only a slower (worse) step that began in the newest N runs of its series (0: any)");
    if (parse_subcommand(argc, argv, described)) return exit_ok;
    if (!(options.min_relative_step >= 0)) throw std::invalid_argument("--threshold must be >= 0");
    const std::vector<HistorySeries> all = history_series(database, options);
    size_t steps = 0, regressed = 0;
    for (const HistorySeries &series : all) {
        const std::optional<ChangePoint> regression = newest_regression(series, options.min_relative_step, within);
        steps += series.change_points.size();
        for (const ChangePoint &step : series.change_points)
            print_step(regression && step.index == regression->index ? "REGRESSION" : "step", series, step);
        regressed += regression ? 1 : 0;
    }
    std::printf("%zu series, %zu change points; %zu regressed at the newest commits (threshold %s)\n",
                all.size(), steps, regressed, percent(options.min_relative_step).substr(1).c_str());
    return regressed ? exit_failed : exit_ok;
}

}  // namespace

int history_command(int argc, const char *const *argv) {
    const std::string action = argc > 1 ? argv[1] : "";
    const std::map<std::string, int (*)(int, const char *const *)> actions = {
        {"add", add}, {"show", show}, {"regressions", regressions}};
    const auto known = actions.find(action);
    try {
        if (known != actions.end()) return known->second(argc - 1, argv + 1);
        if (action == "--help" || action == "-h") {
            std::cout << usage;
            return exit_ok;
        }
        throw std::invalid_argument(action.empty() ? "expected an action: add, show or regressions"
                                                   : "unknown action '" + action + "' (add, show, regressions)");
    } catch (const std::exception &e) {
        std::fflush(stdout);
        std::cerr << "runner history" << (known != actions.end() ? " " + action : "")
                  << ": error: " << e.what() << '\n';
        return exit_usage;
    }
}

}  // namespace gpubench
