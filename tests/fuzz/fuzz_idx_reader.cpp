// An IDX file of any bytes (plain, or gzip when they start like it): images and labels are
// read or refused with an IdxError, never more memory than the file could fill.
#include "idx_reader.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // The reader takes a path: the bytes go to a file in memory.
    const int fd = memfd_create("idx", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    try {
        const logreg::IdxImages images = logreg::read_idx_images(path);
        // In 128 bits: a 64-bit product wraps for some headers, hiding a short pixel buffer.
        const unsigned __int128 declared =
            static_cast<unsigned __int128>(images.count) * images.rows * images.cols;
        if (images.pixels.size() != declared) std::abort();
    } catch (const logreg::IdxError &) {
    }
    try {
        logreg::read_idx_labels(path);
    } catch (const logreg::IdxError &) {
    }
    close(fd);
    return 0;
}
