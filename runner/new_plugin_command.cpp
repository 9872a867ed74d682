// `runner new-plugin DIR --workload NAME`: a new plugin repository, written from the SDK's
// template (sdk/template/, installed as <prefix>/share/gpubench/template/): a workload with a
// CPU, a CUDA and a Python backend, its README and a test that runs `runner check`.
#include "cli.hpp"
#include "file_text.hpp"
#include "subcommands.hpp"
#include "text_format.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {

namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

// The one placeholder of the template's files: the workload's name. File names have none.
const std::string placeholder = "@WORKLOAD@";

struct TemplateFile {
    fs::path relative;  // its path in the template, and in the new folder
    std::string text;   // the placeholder replaced
};

// Where the template was found, and the runner (this one) that the next commands name.
struct TemplateSource {
    fs::path folder;
    fs::path prefix;  // the installed gpubench's; empty for the source tree's template
    fs::path runner;
};

// One folder and a good name; the folder new or empty. Throws std::invalid_argument.
void check_arguments(const std::vector<std::string> &folders, const std::string &workload) {
    if (folders.size() != 1)
        throw std::invalid_argument(folders.empty() ? "the folder to write into is missing"
                                                    : "unexpected argument '" + folders[1] + "'");
    if (workload.empty()) throw std::invalid_argument("--workload NAME is required");
    // Usable as it is in CMake target names, C++ strings and Python names.
    if (!std::regex_match(workload, std::regex("[a-z][a-z0-9_]{0,30}")))
        throw std::invalid_argument("--workload '" + workload +
                                    "': expected a lower-case letter, then up to 30 of a-z, 0-9 and _");
    const fs::path folder = folders.front();
    std::error_code ec;
    const fs::file_status status = fs::status(folder, ec);
    if (!fs::exists(status)) return;
    if (!fs::is_directory(status)) throw std::invalid_argument(folder.string() + " exists and is not a folder");
    if (!fs::is_empty(folder, ec) || ec)
        throw std::invalid_argument(folder.string() + " is not empty: new-plugin writes only into a new or empty folder");
}

// The installed template (<runner's folder>/../share/gpubench/template), else the source
// tree's, for a runner run from its build folder.
TemplateSource find_template() {
    std::error_code ec;
    const fs::path runner = boost::dll::program_location(ec);
    if (!ec) {
        const fs::path prefix = runner.parent_path().parent_path();
        const fs::path installed = prefix / "share" / "gpubench" / "template";
        if (fs::is_regular_file(installed / "CMakeLists.txt", ec)) return {installed, prefix, runner};
    }
    const fs::path source = GPUBENCH_TEMPLATE_DIR;
    if (fs::is_regular_file(source / "CMakeLists.txt", ec)) return {source, {}, runner};
    throw std::runtime_error("no plugin template found: neither " + runner.parent_path().string() +
                             "/../share/gpubench/template nor " + source.string() + " holds one");
}

std::string replaced(std::string text, const std::string &workload) {
    for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + workload.size()))
        text.replace(at, placeholder.size(), workload);
    return text;
}

// Every file of the template, read before anything is written.
std::vector<TemplateFile> read_template(const fs::path &folder, const std::string &workload) {
    std::vector<TemplateFile> files;
    for (const fs::directory_entry &entry : fs::recursive_directory_iterator(folder))
        if (entry.is_regular_file())
            files.push_back({entry.path().lexically_relative(folder), replaced(read_file_text(entry.path()), workload)});
    std::ranges::sort(files, {}, &TemplateFile::relative);
    return files;
}

void write_files(const fs::path &folder, const std::vector<TemplateFile> &files) {
    for (const TemplateFile &file : files) {
        const fs::path path = folder / file.relative;
        fs::create_directories(path.parent_path());
        std::ofstream out(path, std::ios::binary);
        out << file.text;
        out.close();
        if (!out) throw std::runtime_error("cannot write " + path.string());
    }
}

void print_next_steps(std::ostream &out, const fs::path &folder, const std::vector<TemplateFile> &files,
                      const std::string &workload, const TemplateSource &source) {
    out << "wrote the workload " << workload << " into " << folder.string() << ":\n";
    for (const TemplateFile &file : files) out << "  " << (folder / file.relative).string() << '\n';
    const std::string dir = shell_word(folder.string()), build = shell_word((folder / "build").string());
    const std::string prefix = source.prefix.empty() ? "<prefix>" : shell_word(source.prefix.string());
    out << "next:\n";
    if (source.prefix.empty())
        out << "  cmake --install <this gpubench's build> --prefix <prefix>   # the SDK, installed\n";
    out << "  cmake -S " << dir << " -B " << build << " -DCMAKE_PREFIX_PATH=" << prefix << '\n'
        << "  cmake --build " << build << '\n'
        << "  ctest --test-dir " << build << " --output-on-failure   # runner check on every backend\n"
        << "  " << shell_word(source.runner.string()) << " --plugin-dir " << build << " --plugin '" << workload
        << "_*'\n";
}

}  // namespace

int new_plugin_command(int argc, const char *const *argv) {
    std::vector<std::string> folders;
    std::string workload;
    po::options_description described(
        "Usage: runner new-plugin DIR --workload NAME\n"
        "Writes a new plugin repository into DIR (new, or an empty folder) from gpubench's template:\n"
        "the workload NAME (y = a*x over n float32 values) with an OpenMP, a CUDA and a NumPy backend\n"
        "(NAME_omp, NAME_cuda, NAME_numpy), a README, and a CTest test that runs `runner check` on\n"
        "them. It builds against an installed gpubench (find_package(gpubench)).\nOptions");
    described.add_options()
        ("help,h", "show this help")
        ("workload", po::value<std::string>(&workload), "the workload's name, [a-z][a-z0-9_]{0,30}: its plugins are NAME_<backend>");
    if (parse_subcommand(argc, argv, described, &folders)) return exit_ok;
    check_arguments(folders, workload);
    try {
        const TemplateSource source = find_template();
        const std::vector<TemplateFile> files = read_template(source.folder, workload);
        write_files(folders.front(), files);
        print_next_steps(std::cout, folders.front(), files, workload, source);
    } catch (const std::exception &e) {
        throw CommandFailure{e.what(), exit_failed};
    }
    return exit_ok;
}

}  // namespace gpubench
