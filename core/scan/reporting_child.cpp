#include "reporting_child.hpp"

#include "child_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>

namespace gpubench {

ReportingChild::ReportingChild(std::vector<std::string> words, int stdout_target) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("no pipe");
    fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
    fd_ = pipe_fds[0];
    try {
        start_child(child_, std::move(words), {{pipe_fds[1], 3}}, stdout_target);
    } catch (...) {
        close(pipe_fds[1]);
        close(fd_);
        throw;
    }
    close(pipe_fds[1]);
}

ReportingChild::~ReportingChild() {
    if (fd_ >= 0) close(fd_);  // then child_ kills and reaps it
}

std::vector<std::string> ReportingChild::take_lines() {
    lines_.read_from(fd_);  // non-blocking: what has arrived
    std::vector<std::string> lines;
    while (std::optional<std::string> line = lines_.next_line()) lines.push_back(std::move(*line));
    return lines;
}

}  // namespace gpubench
