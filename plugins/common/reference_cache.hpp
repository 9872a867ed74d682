// A workload's CPU reference results, kept on disk between plugins. Every backend of a
// workload verifies against the same reference (solvebak's float64 solve, logreg's naive
// training), which at the largest sizes costs seconds of host time per backend; computed once,
// it is read back by the others.
//
// The key names everything the reference depends on: the workload and a version its code
// bumps when the reference changes, the parameters, and a fingerprint of the inputs' bytes
// (so files from other data, another seed or changed input code never match). A cache is
// only an optimisation: no folder, a missing, short or corrupt file, or a key that differs
// means "compute it", and a failed write is ignored.
//
// The folder is $GPUBENCH_CACHE_DIR/references, which the runner sets for its workers; a
// plugin used without the runner, or with GPUBENCH_REFERENCE_CACHE=0, caches nothing.
#pragma once

#include "random_inputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gpubench::reference_cache {

// A hash of `bytes` bytes, the same on any thread count: 1 MiB blocks hashed in parallel
// (OpenMP, where the including code is built with it), then combined in order.
inline uint64_t fingerprint(const void *data, size_t bytes) {
    constexpr size_t block = size_t{1} << 20;
    const auto *base = static_cast<const unsigned char *>(data);
    const int64_t blocks = static_cast<int64_t>((bytes + block - 1) / block);
    std::vector<uint64_t> hashes(static_cast<size_t>(blocks));
#pragma omp parallel for schedule(static) if (blocks > 8)
    for (int64_t b = 0; b < blocks; ++b) {
        const size_t begin = size_t(b) * block, end = std::min(bytes, begin + block);
        uint64_t h = inputs::splitmix64(begin);
        size_t i = begin;
        for (; i + 8 <= end; i += 8) {
            uint64_t word;
            std::memcpy(&word, base + i, 8);
            h = inputs::splitmix64(h ^ word);
        }
        for (; i < end; ++i) h = inputs::splitmix64(h ^ base[i]);
        hashes[size_t(b)] = h;
    }
    uint64_t h = inputs::splitmix64(bytes);
    for (uint64_t block_hash : hashes) h = inputs::splitmix64(h ^ block_hash);
    return h;
}

// "<fingerprint>" in hex, for building keys.
inline std::string hex(uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

namespace detail {

constexpr char kMagic[8] = {'g', 'p', 'b', 'r', 'e', 'f', '0', '1'};

inline std::filesystem::path folder() {
    const char *off = std::getenv("GPUBENCH_REFERENCE_CACHE");
    const char *dir = std::getenv("GPUBENCH_CACHE_DIR");
    if ((off && std::string(off) == "0") || !dir || !*dir) return {};
    return std::filesystem::path(dir) / "references";
}

// The file of a key: its hash names it; the key itself is stored inside and compared.
inline std::filesystem::path file_of(const std::string &key) {
    const std::filesystem::path dir = folder();
    return dir.empty() ? dir : dir / (hex(fingerprint(key.data(), key.size())) + ".bin");
}

}  // namespace detail

// Fills `values` (count of T) from the cache; false (values untouched) on any miss.
template <class T>
bool load(const std::string &key, T *values, size_t count) {
    const std::filesystem::path file = detail::file_of(key);
    if (file.empty()) return false;
    std::ifstream in(file, std::ios::binary);
    char magic[8];
    uint64_t key_size = 0, stored_count = 0, element_size = 0, checksum = 0;
    if (!in.read(magic, 8) || std::memcmp(magic, detail::kMagic, 8) != 0) return false;
    if (!in.read(reinterpret_cast<char *>(&key_size), 8) || key_size != key.size()) return false;
    std::string stored_key(key_size, '\0');
    if (!in.read(stored_key.data(), std::streamsize(key_size)) || stored_key != key) return false;
    if (!in.read(reinterpret_cast<char *>(&stored_count), 8) || stored_count != count ||
        !in.read(reinterpret_cast<char *>(&element_size), 8) || element_size != sizeof(T))
        return false;
    std::vector<T> read(count);
    if (!in.read(reinterpret_cast<char *>(read.data()), std::streamsize(count * sizeof(T))) ||
        !in.read(reinterpret_cast<char *>(&checksum), 8) ||
        checksum != fingerprint(read.data(), count * sizeof(T)) || in.peek() != EOF)
        return false;
    std::memcpy(values, read.data(), count * sizeof(T));
    return true;
}

// Writes `values` under `key`: to a temporary file renamed into place, so that a reader never
// sees half a file and two writers of one key leave one whole file.
template <class T>
void store(const std::string &key, const T *values, size_t count) {
    const std::filesystem::path file = detail::file_of(key);
    if (file.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    const std::filesystem::path partial = file.string() + ".partial-" + std::to_string(getpid());
    {
        std::ofstream out(partial, std::ios::binary | std::ios::trunc);
        const uint64_t key_size = key.size(), element_size = sizeof(T), stored_count = count,
                       checksum = fingerprint(values, count * sizeof(T));
        out.write(detail::kMagic, 8);
        out.write(reinterpret_cast<const char *>(&key_size), 8);
        out.write(key.data(), std::streamsize(key.size()));
        out.write(reinterpret_cast<const char *>(&stored_count), 8);
        out.write(reinterpret_cast<const char *>(&element_size), 8);
        out.write(reinterpret_cast<const char *>(values), std::streamsize(count * sizeof(T)));
        out.write(reinterpret_cast<const char *>(&checksum), 8);
        if (!out.flush()) {
            out.close();
            std::filesystem::remove(partial, ec);
            return;
        }
    }
    std::filesystem::rename(partial, file, ec);
    if (ec) std::filesystem::remove(partial, ec);
}

// The cached values of `key`, else compute(values) and store them. Returns true when they
// came from the cache (for the verification's detail).
template <class T, class Compute>
bool load_or_compute(const std::string &key, T *values, size_t count, Compute &&compute) {
    if (load(key, values, count)) return true;
    compute(values);
    store(key, values, count);
    return false;
}

}  // namespace gpubench::reference_cache
