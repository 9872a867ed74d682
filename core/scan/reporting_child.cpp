#include "reporting_child.hpp"

#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace gpubench {

ReportingChild::ReportingChild(std::vector<std::string> words, int stdout_target) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("no pipe");
    fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
    fd_ = pipe_fds[0];
    try {
        pid_ = spawn_child(std::move(words), {{pipe_fds[1], 3}}, stdout_target);
    } catch (...) {
        close(pipe_fds[1]);
        close(fd_);
        throw;
    }
    close(pipe_fds[1]);
}

ReportingChild::~ReportingChild() {
    stop();
    if (fd_ >= 0) close(fd_);
}

double ReportingChild::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::vector<std::string> ReportingChild::take_lines() {
    lines_.read_from(fd_);  // non-blocking: what has arrived
    std::vector<std::string> lines;
    while (std::optional<std::string> line = lines_.next_line()) lines.push_back(std::move(*line));
    return lines;
}

std::optional<int> ReportingChild::ended() {
    if (status_ || pid_ <= 0) return status_;
    siginfo_t info{};
    if (waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != pid_)
        return std::nullopt;
    // Unreaped, it still holds its group's id: what it started dies with it.
    kill(-pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status_ = status;
}

NullOutput::NullOutput() : fd_(open("/dev/null", O_WRONLY | O_CLOEXEC)) {}

NullOutput::~NullOutput() {
    if (fd_ >= 0) close(fd_);
}

int NullOutput::fd() const { return fd_ >= 0 ? fd_ : STDERR_FILENO; }

void ReportingChild::stop() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGKILL);  // its process group: whatever it started too
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
}

}  // namespace gpubench
