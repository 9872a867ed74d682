// Bytes shared among the ranks that measure an entry together (ABI 1.7), through files in the
// folder the runner gives them (Setup::rendezvous): one rank publishes (an NCCL unique id, say),
// the others wait for it. Files, not MPI: the runner's worker processes are children of the
// launched rank, and a launched process's children cannot join its MPI job (docs/scale-out.md).
//
// The runner makes the folder fresh for each entry (its job's id and the entry's key in its
// name), so a name is published once. What an earlier run of the same job left there (no job
// id from the launcher, or a run that failed before it cleaned up) is told apart by its time: a
// file counts only when it was written at most `timeout_s` before the reader began to wait,
// as ranks that wait at most that long for one another write no earlier than that. A reader
// gives up after `timeout_s` with a one-line reason (gpubench::Error), never hangs.
//
// Header-only, C++17, POSIX.
#pragma once

#include <gpubench/errors.hpp>
#include <gpubench/plugin.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gpubench::rendezvous {

// Where one rank of several meets the others: Setup's rendezvous, rank, ranks, rank_timeout_s.
struct Place {
    std::string folder;
    int rank = 0, ranks = 1;
    double timeout_s = 60;
};

namespace detail {

inline int64_t unix_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

inline std::string path_of(const Place &place, const std::string &name) {
    if (place.folder.empty())
        throw Error(GPUBENCH_ERROR, "no rendezvous folder for '" + name +
                                        "' (the runner gives one only to ranks launched together)");
    return place.folder + "/" + name;
}

inline std::string who(const Place &place) {
    return "rank " + std::to_string(place.rank) + " of " + std::to_string(place.ranks);
}

// "gpubench-rendezvous 1 RANKS WRITTEN_UNIX_MS SIZE HEX"
inline std::string encode(const Place &place, const std::vector<unsigned char> &bytes, int64_t written_ms) {
    std::string text = "gpubench-rendezvous 1 " + std::to_string(place.ranks) + " " +
                       std::to_string(written_ms) + " " + std::to_string(bytes.size()) + " ";
    static const char digits[] = "0123456789abcdef";
    for (unsigned char byte : bytes) text += {digits[byte >> 4], digits[byte & 15]};
    return text + "\n";
}

struct Decoded {
    int ranks = 0;
    int64_t written_ms = 0;
    std::vector<unsigned char> bytes;
};

inline bool decode(const std::string &text, size_t size, Decoded &out) {
    std::istringstream in(text);
    std::string magic, hex;
    int version = 0;
    size_t count = 0;
    if (!(in >> magic >> version >> out.ranks >> out.written_ms >> count >> hex) ||
        magic != "gpubench-rendezvous" || version != 1 || count != size || hex.size() != 2 * size)
        return false;
    const auto nibble = [](char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    out.bytes.resize(size);
    for (size_t i = 0; i < size; ++i) {
        const int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
        if (high < 0 || low < 0) return false;
        out.bytes[i] = static_cast<unsigned char>(high << 4 | low);
    }
    return true;
}

inline bool read_whole(const std::string &path, std::string &text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

}  // namespace detail

// Writes `bytes` under `name` for the other ranks, whole (through a rename), stamped with the
// time and the number of ranks. Throws gpubench::Error when the folder cannot be written.
inline void publish(const Place &place, const std::string &name, const std::vector<unsigned char> &bytes) {
    const std::string path = detail::path_of(place, name), temporary = path + ".tmp";
    const std::string text = detail::encode(place, bytes, detail::unix_ms_now());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool written = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
    const int error = errno;
    if (fd >= 0) written = ::close(fd) == 0 && written;
    if (!written || std::rename(temporary.c_str(), path.c_str()) != 0)
        throw Error(GPUBENCH_ERROR, detail::who(place) + " cannot write " + path + " for the other ranks: " +
                                        std::strerror(written ? errno : error));
}

// The `size` bytes another rank published under `name`: waits for them at most
// place.timeout_s, then throws gpubench::Error saying what it waited for, where, and what it
// found instead (nothing, a stale file, one for another number of ranks).
inline std::vector<unsigned char> await(const Place &place, const std::string &name, size_t size) {
    const std::string path = detail::path_of(place, name);
    const auto began = std::chrono::steady_clock::now();
    const int64_t began_ms = detail::unix_ms_now();
    const int64_t window_ms = static_cast<int64_t>(place.timeout_s * 1000);
    std::string seen = "nothing there";
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(2 * pause, std::chrono::milliseconds(100))) {
        std::string text;
        detail::Decoded found;
        if (detail::read_whole(path, text)) {
            if (!detail::decode(text, size, found))
                seen = "a file that is not " + std::to_string(size) + " bytes of gpubench-rendezvous 1";
            else if (found.written_ms < began_ms - window_ms)
                seen = "only a stale one, written " + std::to_string((began_ms - found.written_ms) / 1000) +
                       " s before this rank began waiting (an earlier run's: remove it)";
            else if (found.ranks != place.ranks)
                seen = "one written for " + std::to_string(found.ranks) + " ranks (a run of another size)";
            else
                return found.bytes;
        }
        if (std::chrono::steady_clock::now() - began >= std::chrono::duration<double>(place.timeout_s)) {
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%g", place.timeout_s);
            throw Error(GPUBENCH_ERROR, detail::who(place) + " waited " + seconds + " s (--rank-timeout) for " +
                                            path + ": " + seen + " (did rank 0 skip or fail this entry, or " +
                                            "not share this folder?)");
        }
        std::this_thread::sleep_for(pause);
    }
}

// Removes `name` once every rank has it (after a collective that needed all of them), so that
// nothing stale is left behind; a file already gone is fine.
inline void withdraw(const Place &place, const std::string &name) {
    std::remove(detail::path_of(place, name).c_str());
}

}  // namespace gpubench::rendezvous
