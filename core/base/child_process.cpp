#include "child_process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char **environ;

namespace gpubench {

namespace {

// This process's environment with `changes` set, as posix_spawn takes it.
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>> &changes) {
    std::vector<std::string> variables;
    for (char **variable = environ; *variable; ++variable) {
        const std::string text = *variable;
        const std::string name = text.substr(0, text.find('='));
        if (std::none_of(changes.begin(), changes.end(), [&](const auto &change) { return change.first == name; }))
            variables.push_back(text);
    }
    for (const auto &[name, value] : changes) variables.push_back(name + "=" + value);
    return variables;
}

}  // namespace

pid_t spawn_child(std::vector<std::string> words, const std::vector<std::pair<int, int>> &descriptors,
                  int stdout_target, const std::vector<std::pair<std::string, std::string>> &environment) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (const auto &[parent_fd, child_fd] : descriptors)
        posix_spawn_file_actions_adddup2(&actions, parent_fd, child_fd);
    posix_spawn_file_actions_adddup2(&actions, stdout_target, STDOUT_FILENO);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);  // killed as a group
    posix_spawnattr_setpgroup(&attributes, 0);
    std::vector<char *> argv;
    for (std::string &word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    std::vector<std::string> variables = environment_with(environment);
    std::vector<char *> envp;
    for (std::string &variable : variables) envp.push_back(variable.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int status = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (status != 0)
        throw std::runtime_error("cannot start " + words[0] + ": " + std::strerror(status));
    return pid;
}

bool write_all(int fd, const std::string &text) {
    for (size_t done = 0; done < text.size();) {
        const ssize_t wrote = write(fd, text.data() + done, text.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return false;
        done += static_cast<size_t>(wrote);
    }
    return true;
}

bool write_json_line(int fd, const nlohmann::json &message) {
    return write_all(fd, message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n');
}

bool start_helper() {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return false;  // orphaned before prctl took effect
    std::signal(SIGINT, SIG_IGN);
    return true;
}

void report_or_exit(int fd, const nlohmann::json &message) {
    if (!write_json_line(fd, message)) std::_Exit(0);
}

bool parse_small_int(const char *text, int &out) {
    char *end = nullptr;
    errno = 0;
    const long value = std::strtol(text, &end, 10);
    if (errno || end == text || *end || value < 0 || value > 1 << 20) return false;
    out = static_cast<int>(value);
    return true;
}

std::string describe_signal(int signal_number) {
    const char *abbreviation = sigabbrev_np(signal_number);
    std::string text = abbreviation ? std::string("SIG") + abbreviation
                                    : "signal " + std::to_string(signal_number);
    return text + " (" + strsignal(signal_number) + ")";
}

}  // namespace gpubench
