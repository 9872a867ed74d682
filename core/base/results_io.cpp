#include "results_io.hpp"

#include "child_process.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <utility>

namespace gpubench {

namespace fs = std::filesystem;

void throw_file_error(const std::string &what, const fs::path &file, int error) {
    throw std::runtime_error(what + " " + file.string() + ": " + std::strerror(error));
}

fs::path results_target(const fs::path &path) {
    std::error_code ec;
    fs::path target = fs::weakly_canonical(path, ec);
    if (ec) target = fs::absolute(path);
    struct stat info {};
    if (lstat(target.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
        throw std::runtime_error("results file " + path.string() +
                                 " exists and is not a regular file (a device, a folder, a "
                                 "FIFO?): name another");
    return target;
}

void replace_file_atomically(const fs::path &target, const std::string &text) {
    // A fresh name each time, created exclusively: a file or link planted at any fixed name
    // (<target>.partial) is never opened, let alone followed.
    std::random_device entropy;
    fs::path temporary;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
        temporary = target;
        temporary += ".partial-" + std::to_string(getpid()) + "-" + std::to_string(entropy());
        fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) throw_file_error("cannot create a temporary file beside", target, errno);
    }
    if (fd < 0) throw_file_error("cannot create a temporary file beside", target, EEXIST);
    const auto abandon = [&](const char *what) {
        const int error = errno;
        if (fd >= 0) close(fd);
        unlink(temporary.c_str());
        throw_file_error(what, target, error);
    };
    if (!write_all(fd, text) || fsync(fd) != 0) abandon("cannot write results file");  // ENOSPC, EIO...
    if (close(std::exchange(fd, -1)) != 0) abandon("cannot write results file");
    if (rename(temporary.c_str(), target.c_str()) != 0) abandon("cannot replace results file");
}

OutputLock::OutputLock(const fs::path &target) : file_(target) {
    file_ += ".lock";
    fd_ = open(file_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0) throw_file_error("cannot lock results file: cannot open", file_, errno);
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        char holder[32] = {};
        const ssize_t got = pread(fd_, holder, sizeof holder - 1, 0);
        close(fd_);
        fd_ = -1;
        throw std::runtime_error("results file " + target.string() +
                                 " is being written by another runner (pid " +
                                 (got > 0 ? std::string(holder, static_cast<size_t>(got)) : "?") +
                                 "): wait for it, or name another --output");
    }
    const std::string pid = std::to_string(getpid());
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
        // The lock holds without the pid in it: a second runner says "pid ?".
    }
}

OutputLock::~OutputLock() {
    if (fd_ < 0) return;
    unlink(file_.c_str());  // while still holding it: a later runner takes a fresh one
    close(fd_);
}

}  // namespace gpubench
