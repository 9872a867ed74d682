#include "cli.hpp"
#include "results.hpp"
#include "shard_merge.hpp"
#include "subcommands.hpp"
#include "text_format.hpp"

#include <boost/program_options.hpp>

#include <iostream>

namespace gpubench {

namespace po = boost::program_options;

namespace {

void print_missing(const MergedSweep &merged, const std::string &output) {
    std::cout << "missing: " << merged.missing.size()
              << (merged.missing.size() == 1 ? " planned entry" : " planned entries") << " no shard delivered";
    for (size_t i = 0; i < merged.missing_shards.size(); ++i)
        std::cout << (i ? ", " : " (no file given for shard ") << merged.missing_shards[i];
    if (!merged.missing_shards.empty()) std::cout << ")";
    std::cout << ":\n";
    for (const PlannedEntry &entry : merged.missing)
        std::cout << "  " << entry.key.text() << ", shard " << entry.shard << '\n';
    std::cout << "runner --resume " << output << " (with the sweep's options) measures them\n";
}

// Three significant digits (one decimal at least): 0.042 s, 4.21 s, 42.1 s, 421 s.
std::string seconds_or_na(const std::optional<double> &seconds) {
    if (!seconds) return "n/a";
    const int decimals = *seconds >= 100 ? 0 : *seconds >= 10 ? 1 : *seconds >= 1 ? 2 : 3;
    return format_text("%.*f s", decimals, *seconds);
}

// One line per shard given: its entries, its predicted and actual wall time (n/a where its
// file records none: files written before them), and how far apart the shards finished.
void print_shard_timings(const MergedSweep &merged) {
    std::cout << format_text("%5s %8s %10s %10s %17s", "SHARD", "ENTRIES", "PREDICTED", "ACTUAL",
                             "ACTUAL/PREDICTED")
              << '\n';
    for (const ShardTiming &t : merged.timings) {
        std::string ratio = "n/a";
        if (t.predicted_s && t.actual_s && *t.predicted_s > 0)
            ratio = format_text("%.2f", *t.actual_s / *t.predicted_s);
        std::cout << format_text("%5u %8zu %10s %10s %17s", t.index, t.entries,
                                 seconds_or_na(t.predicted_s).c_str(), seconds_or_na(t.actual_s).c_str(),
                                 ratio.c_str())
                  << '\n';
    }
    std::cout << "spread of the shards' actual wall times (slowest/fastest): ";
    const std::optional<double> spread = actual_spread(merged.timings);
    std::cout << (spread ? format_text("%.2f", *spread) : "n/a (fewer than two shards record one)") << '\n';
}

}  // namespace

int merge_command(int argc, const char *const *argv) {
    std::vector<std::string> files;
    std::string output;
    po::options_description described(
        "Usage: runner merge SHARD.json... --output MERGED.json\n"
        "Joins the results files of one sharded sweep (runner --shard I/N) into one, which\n"
        "report, compare and --resume read like any other. Refuses files of different builds or\n"
        "measurement options, of different shard counts, the same shard twice, or an entry in\n"
        "two files, naming them; nothing is written then. Lists the planned entries that no\n"
        "shard delivered (a shard's file may be missing): runner --resume MERGED.json measures\n"
        "them. Exit status, that of the whole sweep: 1 when a merged entry failed verification\n"
        "or reported an error (or the merged file could not be written), else 3 when entries\n"
        "were skipped or planned entries are missing, else 0 (every planned entry there and\n"
        "verified); 2 on bad input. Prints each shard's entries and its predicted and actual\n"
        "wall time (n/a where its file records none), and the spread of the actual ones\n"
        "(slowest/fastest).\nOptions");
    described.add_options()
        ("help,h", "show this help")
        ("output,o", po::value<std::string>(&output), "the merged results file (required)");
    if (parse_subcommand(argc, argv, described, &files)) return exit_ok;
    if (files.empty()) throw std::invalid_argument("no shard files given");
    if (output.empty()) throw std::invalid_argument("--output names the merged file: it is required");
    // Each file checked against core/base/results_schema.json before anything is read from it.
    std::vector<ShardFile> shards;
    for (const std::string &file : files) shards.push_back({file, read_results_json(file)});
    std::vector<std::string> command_line{"runner"};
    command_line.insert(command_line.end(), argv, argv + argc);
    const MergedSweep merged = merge_shards(shards, command_line);
    try {
        ResultsFile::write_whole(output, merged.document);
    } catch (const std::exception &e) {
        throw CommandFailure{e.what(), exit_failed};
    }
    std::cout << "merged " << merged.shards_given << " of " << merged.shard_count << " shards, "
              << merged.statuses.entries() << " entries, into " << output << '\n';
    print_shard_timings(merged);
    if (const StatusTally &statuses = merged.statuses; statuses.entries() > statuses.ok)
        std::cout << "of them: " << statuses.not_ok_text() << '\n';
    if (!merged.missing.empty()) print_missing(merged, output);
    // The whole sweep's status, as the runner's for one process: entries no shard delivered count
    // as skipped.
    return sweep_exit_status(merged.statuses, merged.statuses.skipped || !merged.missing.empty());
}

}  // namespace gpubench
