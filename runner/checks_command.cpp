// `runner checks`: the table of checks (core/measure/checks/), as text or as the docs' tables.
#include "check.hpp"
#include "cli.hpp"
#include "subcommands.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>

namespace gpubench {

namespace po = boost::program_options;

namespace {

// A cell of a Markdown table: no line breaks, no unescaped bar.
std::string cell(const std::string &text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
    return out;
}

void print_markdown(std::ostream &out, bool flags) {
    out << (flags ? "| flag | meaning | how it is decided |\n" : "| check | outcome | how it is decided |\n")
        << "| --- | --- | --- |\n";
    for (const Check *check : check_table()) {
        if ((check->verdict == CheckVerdict::flag) != flags) continue;
        const std::string name = std::string("`") + check->name + "`";
        if (flags)
            out << "| " << name << " | " << cell(check->meaning) << " | " << cell(check->rule) << " |\n";
        else
            out << "| " << name << ": " << cell(check->meaning) << " | " << to_string(check->verdict) << ": "
                << cell(check->example) << " | " << cell(check->rule) << " |\n";
    }
}

void print_text(std::ostream &out) {
    for (const Check *check : check_table()) {
        std::string name = check->name;
        name.resize(std::max<size_t>(name.size() + 1, 26), ' ');
        std::string verdict = to_string(check->verdict);
        verdict.resize(9, ' ');
        out << name << verdict << check->meaning << '\n';
    }
}

}  // namespace

int checks_command(int argc, const char *const *argv) {
    std::string format = "text", kind;
    po::options_description described(
        "Usage: runner checks [--format text|markdown] [--kind flags|refusals]\n"
        "Lists the checks made on every entry: each flag that marks a valid entry and each\n"
        "refusal that makes it invalid, an error or skipped, with what it means. The docs'\n"
        "tables of flags and checks are its Markdown (scripts/doc-tables.sh).\nOptions");
    described.add_options()
        ("help,h", "show this help")
        ("format", po::value<std::string>(&format), "text (default): one line per check; markdown: a table")
        ("kind", po::value<std::string>(&kind), "with --format markdown: the flags' table, or the refusals'");
    if (parse_subcommand(argc, argv, described)) return exit_ok;
    if (format != "text" && format != "markdown")
        throw std::invalid_argument("--format is text or markdown, not '" + format + "'");
    if (format == "markdown" && kind != "flags" && kind != "refusals")
        throw std::invalid_argument("--format markdown takes --kind flags or --kind refusals");
    if (format == "markdown")
        print_markdown(std::cout, kind == "flags");
    else
        print_text(std::cout);
    return exit_ok;
}

}  // namespace gpubench
