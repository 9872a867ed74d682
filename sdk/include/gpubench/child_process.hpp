// One child process and its one owner: started with posix_spawn, waited for with or without a
// time limit, killed (with the process group it leads, where it leads one) and reaped once;
// killed and reaped when its owner is dropped. Header-only, so that the Python bridge (whose
// sources a plugin's own project builds, sdk/python/) and the runner's core share it.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

extern char **environ;

namespace gpubench {

// How a child starts.
struct ChildStart {
    std::vector<std::string> words;  // words[0] is the program
    // Each pair makes the parent's first descriptor the child's second (the parent's stays open).
    std::vector<std::pair<int, int>> descriptors = {};
    // (name, value) set in the child's copy of this process's environment.
    std::vector<std::pair<std::string, std::string>> environment = {};
    // The leader of a process group of its own, so that kill() ends whatever it started too
    // (and Ctrl-C at the terminal does not reach it: its owner stops it).
    bool own_group = true;
    bool search_path = false;  // words[0] looked up on PATH
};

namespace detail {

// This process's environment with `changes` set, as posix_spawn takes it.
inline std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>> &changes) {
    std::vector<std::string> variables;
    for (char **variable = environ; *variable; ++variable) {
        const std::string text = *variable;
        const std::string name = text.substr(0, text.find('='));
        if (std::none_of(changes.begin(), changes.end(), [&](const auto &change) { return change.first == name; }))
            variables.push_back(text);
    }
    for (const auto &change : changes) variables.push_back(change.first + "=" + change.second);
    return variables;
}

}  // namespace detail

class ChildProcess {
public:
    ChildProcess() = default;
    ~ChildProcess() {
        kill();
        wait();
    }
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    // Starts `how` (once); 0, or the error number (as errno) that kept it from starting.
    int start(ChildStart how) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        for (const auto &[parent_fd, child_fd] : how.descriptors)
            posix_spawn_file_actions_adddup2(&actions, parent_fd, child_fd);
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        if (how.own_group) {
            posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
            posix_spawnattr_setpgroup(&attributes, 0);
        }
        std::vector<char *> argv;
        for (std::string &word : how.words) argv.push_back(word.data());
        argv.push_back(nullptr);
        std::vector<std::string> variables = detail::environment_with(how.environment);
        std::vector<char *> envp;
        for (std::string &variable : variables) envp.push_back(variable.data());
        envp.push_back(nullptr);
        const auto spawn = how.search_path ? posix_spawnp : posix_spawn;
        const int error = spawn(&pid_, argv[0], &actions, &attributes, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
        if (error != 0) pid_ = -1;
        own_group_ = how.own_group;
        return error;
    }

    // SIGKILL to it, and to its group where it leads one; a wait then reaps it.
    void kill() const {
        if (pid_ > 0) ::kill(own_group_ ? -pid_ : pid_, SIGKILL);
    }

    // `number` to it alone, not its group: a child that handles the signal ends in its own way.
    void signal(int number) const {
        if (pid_ > 0) ::kill(pid_, number);
    }

    // Kills it and leaves it unreaped (init reaps it once this process has exited): for an
    // exit that must not wait for it.
    void abandon() {
        kill();
        pid_ = -1;
    }

    // Its wait status once it has ended, else nullopt. Once ended it is reaped (once: later
    // calls give the same status), its group killed first: what it started dies with it.
    std::optional<int> try_wait() {
        if (pid_ <= 0) return status_;
        siginfo_t info{};
        if (waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) == 0)
            return info.si_pid == pid_ ? std::optional<int>(reap()) : std::nullopt;
        return errno == EINTR ? std::nullopt : std::optional<int>(forget());
    }

    // Waits until it has ended; its wait status (0 where there was nothing to wait for).
    int wait() {
        if (pid_ <= 0) return status_.value_or(0);
        siginfo_t info{};
        while (waitid(P_PID, pid_, &info, WEXITED | WNOWAIT) != 0)
            if (errno != EINTR) return forget();
        return reap();
    }

    // Waits up to `seconds`; its wait status, or nullopt while it still runs.
    std::optional<int> wait_for(double seconds) {
        const auto began = std::chrono::steady_clock::now();
        for (;;) {
            if (const std::optional<int> status = try_wait()) return status;
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() > seconds)
                return std::nullopt;
            usleep(1000);
        }
    }

private:
    // Ended but unreaped, it still holds its group's id: the group is killed, then it is reaped.
    int reap() {
        if (own_group_) ::kill(-pid_, SIGKILL);
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        return *(status_ = status);
    }
    // Not this process's child to wait for (already reaped elsewhere): gone, status 0.
    int forget() {
        pid_ = -1;
        return *(status_ = 0);
    }

    pid_t pid_ = -1;
    bool own_group_ = true;
    std::optional<int> status_;
};

}  // namespace gpubench
