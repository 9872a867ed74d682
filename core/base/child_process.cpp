#include "child_process.hpp"

#include "json_fields.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace gpubench {

void start_child(ChildProcess &child, std::vector<std::string> words, std::vector<std::pair<int, int>> descriptors,
                 int stdout_target, std::vector<std::pair<std::string, std::string>> environment) {
    const std::string program = words.at(0);
    descriptors.emplace_back(stdout_target, STDOUT_FILENO);
    if (const int error = child.start({std::move(words), std::move(descriptors), std::move(environment)}))
        throw std::runtime_error("cannot start " + program + ": " + std::strerror(error));
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

bool start_helper() {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return false;  // orphaned before prctl took effect
    std::signal(SIGINT, SIG_IGN);
    return true;
}

void report_or_exit(int fd, const nlohmann::json &message) {
    if (!write_all(fd, json_fields::text(message))) std::_Exit(0);
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
