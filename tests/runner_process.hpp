// Running the runner executable from a test, as a user would, and reading what it wrote.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace runner_process {

struct Outcome {
    int status = -1;
    std::string output;  // stdout and stderr
};

// Runs a shell command, stdout and stderr together.
inline Outcome run_command(const std::string &command) {
    Outcome outcome;
    FILE *pipe = popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe);
    std::array<char, 4096> buffer{};
    while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) outcome.output.append(buffer.data(), n);
    int raw = pclose(pipe);
    outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return outcome;
}

inline Outcome run_runner(const std::string &arguments) {
    return run_command(std::string(GPUBENCH_RUNNER) + " " + arguments);
}

// A shell script (for ulimit and the like), run by sh.
inline Outcome run_runner_shell(const std::string &script) { return run_command("sh -c '" + script + "'"); }

// The interpreter sdk/python/find-python.sh chooses for `modules` (space-separated), the one
// the scripts and the Python bridge use; else its one-line reason (status 1).
inline Outcome find_python(const std::string &modules, const std::string &environment = "") {
    Outcome found = run_command(environment + " " GPUBENCH_SOURCE_DIR "/sdk/python/find-python.sh " + modules);
    while (!found.output.empty() && found.output.back() == '\n') found.output.pop_back();
    return found;
}

inline std::string fixtures() { return std::string("--plugin-dir ") + GPUBENCH_FIXTURE_DIR; }

// Unique per test process, so that test runs side by side (two build folders) never share one.
inline std::filesystem::path temp_results(const std::string &name) {
    return std::filesystem::temp_directory_path() /
           ("gpubench_cli_" + name + "_" + std::to_string(getpid()) + ".json");
}

inline std::string slurp(const std::filesystem::path &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write(const std::filesystem::path &path, const std::string &text) {
    std::ofstream(path, std::ios::binary) << text;
}

inline nlohmann::json read_json(const std::filesystem::path &path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

inline const char *quick = " --min-samples 2 --max-samples 3 --min-time 0 ";

}  // namespace runner_process
