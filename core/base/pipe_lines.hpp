// Lines that arrive through a pipe, as whole lines and bounded: the one reader of the
// worker's reports, the runner's requests to a worker, and the helpers' reports (scans, work
// queries). A writer that never ends its line cannot make the reader hold more than its bound.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gpubench {

class PipeLines {
public:
    // `max_line_bytes`: the longest line taken; more than that without a newline is refused.
    explicit PipeLines(size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

    // Reads what `fd` has: on a non-blocking descriptor until it has no more, on a blocking one
    // a single read (which waits for something). false once the writer has closed its end (or
    // the read failed), true otherwise. Throws std::length_error, naming the bound, when the
    // line under way grows beyond it.
    bool read_from(int fd);
    // The next whole line (without its newline) that has arrived, or nullopt.
    std::optional<std::string> next_line();
    // Once the writer has closed: what followed its last newline (a last line left unended).
    std::string rest();

private:
    size_t max_line_bytes_;
    std::string pending_;
    size_t taken_ = 0;  // bytes of pending_ already handed out as lines
};

}  // namespace gpubench
