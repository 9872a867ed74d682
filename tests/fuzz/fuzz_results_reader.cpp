// A results file of any bytes, read as resume, report and compare read one: checked and typed,
// or refused with one std::runtime_error line; never another exception, a crash or a hang.
#include "results_model.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const int fd = memfd_create("results", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
    try {
        const gpubench::ResultsDocument document =
            gpubench::read_results_file("/proc/self/fd/" + std::to_string(fd));
        for (const gpubench::EntryResult &entry : document.entries)
            gpubench::entry_figures(entry, document.header.basis());
    } catch (const std::runtime_error &e) {
        if (std::string(e.what()).find('\n') != std::string::npos) std::abort();  // one line
    }
    close(fd);
    return 0;
}
