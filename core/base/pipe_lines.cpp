#include "pipe_lines.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace gpubench {

bool PipeLines::read_from(int fd) {
    const bool blocking = (fcntl(fd, F_GETFL) & O_NONBLOCK) == 0;
    char buffer[65536];
    for (;;) {
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK;  // nothing more for now
        if (got == 0) return false;
        if (taken_ > 0) {  // lines handed out leave the buffer here, not one by one
            pending_.erase(0, taken_);
            taken_ = 0;
        }
        pending_.append(buffer, static_cast<size_t>(got));
        const size_t last_newline = pending_.rfind('\n');
        const size_t unended = last_newline == std::string::npos ? pending_.size() : pending_.size() - last_newline - 1;
        if (unended > max_line_bytes_)
            throw std::length_error("a line longer than " + std::to_string(max_line_bytes_) + " bytes");
        if (blocking) return true;
    }
}

std::optional<std::string> PipeLines::next_line() {
    const size_t end = pending_.find('\n', taken_);
    if (end == std::string::npos) return std::nullopt;
    std::string line = pending_.substr(taken_, end - taken_);
    taken_ = end + 1;
    return line;
}

std::string PipeLines::rest() {
    std::string rest = pending_.substr(taken_);
    pending_.clear();
    taken_ = 0;
    return rest;
}

}  // namespace gpubench
