// Running the runner executable from a test, as a user would, and reading what it wrote.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

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

// The sharded sweeps' tests: eight entries of a fast plugin, every shard and resume of the
// sweep with the same options.
inline const std::string eight_entry_options = " --seed 5 --warmup 0" + std::string(quick);
inline const std::string eight_entry_sweep = " --plugin fixture_good --sizes 1..8:+1" + eight_entry_options;

// eight_entry_sweep's `count` shards, each run as a launcher would run it: their files in `folder`.
inline std::vector<std::filesystem::path> run_shards(const std::filesystem::path &folder, int count) {
    std::vector<std::filesystem::path> files;
    for (int i = 0; i < count; ++i) {
        files.push_back(folder / ("shard-" + std::to_string(i) + ".json"));
        const Outcome o = run_runner(fixtures() + eight_entry_sweep + " --shard " + std::to_string(i) + "/" +
                                     std::to_string(count) + " -o " + files.back().string());
        INFO(o.output);
        REQUIRE(o.status == 0);
    }
    return files;
}

// The runner started with `arguments`, its table going nowhere; not waited for.
inline pid_t start_runner(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), GPUBENCH_RUNNER);
    std::vector<char *> argv;
    for (std::string &word : arguments) argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&quiet);
    return pid;
}

// Entries recorded at `path` now: while a sweep writes it, its journal's (the first line's
// document, then one line per entry: core/results/results.hpp), else the file's; -1
// while neither can be read.
inline int entries_now(const std::filesystem::path &path) {
    try {
        if (std::ifstream journal(path.string() + ".journal"); journal) {
            int entries = -1;
            for (std::string line; std::getline(journal, line) && !journal.eof();)  // a last line cut short is not one
                if (entries < 0)
                    entries = static_cast<int>(nlohmann::json::parse(line).at("document").at("entries").size());
                else if (line.rfind("{\"entry\":", 0) == 0)
                    ++entries;
            return entries;
        }
        return static_cast<int>(read_json(path)["entries"].size());
    } catch (const std::exception &) {
        return -1;
    }
}

// Runs the runner with `arguments` (split at spaces) until `results` holds `entries` entries
// (a minute at most), then interrupts it with SIGINT: its exit status, -1 when it did not exit.
inline int interrupt_runner(const std::string &arguments, const std::filesystem::path &results, int entries) {
    std::vector<std::string> words;
    std::istringstream split(arguments);
    for (std::string word; split >> word;) words.push_back(word);
    const pid_t pid = start_runner(words);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (entries_now(results) < entries && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace runner_process
