// Writing a results file safely: where it really goes (symlinks followed to their target,
// anything but a regular file refused), an exclusive lock for the whole sweep (a second
// runner on the same file is refused, naming the holder), and each rewrite through a fresh
// temporary file in the same folder (O_EXCL, O_NOFOLLOW: nothing planted there is followed),
// fsynced, then renamed over the target. A failed write (a full disk) throws one line and
// leaves the last complete file as it was, with no temporary behind.
#pragma once

#include <filesystem>
#include <string>

namespace gpubench {

// The file a results path names: symlinks resolved. Throws std::runtime_error, one line, when
// it exists and is not a regular file (a device node, a directory, a FIFO).
std::filesystem::path results_target(const std::filesystem::path &path);

// Throws std::runtime_error "<what> <file>: <strerror(error)>".
[[noreturn]] void throw_file_error(const std::string &what, const std::filesystem::path &file, int error);

// Replaces `target` with `text`. Throws std::runtime_error naming the file and the cause.
void replace_file_atomically(const std::filesystem::path &target, const std::string &text);

// Held for a sweep: an exclusive lock on <target>.lock, which holds the holder's pid.
class OutputLock {
public:
    explicit OutputLock(const std::filesystem::path &target);  // throws, naming the holder
    ~OutputLock();
    OutputLock(const OutputLock &) = delete;
    OutputLock &operator=(const OutputLock &) = delete;

private:
    std::filesystem::path file_;
    int fd_ = -1;
};

}  // namespace gpubench
