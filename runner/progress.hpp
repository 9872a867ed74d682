// The sweep's progress on stderr: on a terminal one line rewritten in place ("[3/40]
// sort_cuda 1000000, 12 s in; 1m05s elapsed, ~4m left"), elsewhere a plain line as each
// entry starts; nothing with --quiet.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpubench {

class Progress {
public:
    enum class Style { terminal, lines, quiet };
    static Style style_for_stderr(bool quiet);  // terminal when stderr is a TTY

    Progress(Style style, size_t total_entries);
    void begin(const std::string &plugin, uint64_t size);  // an entry starts (index + 1)
    void tick();                  // while it runs: refreshes the terminal line at most 1/s
    void clear();                 // before the table prints a row on a terminal
    void end();                   // the entry is finished (its row printed)

private:
    void draw();
    Style style_;
    size_t total_, started_ = 0, finished_ = 0;
    std::string current_;
    using clock = std::chrono::steady_clock;
    clock::time_point sweep_began_ = clock::now(), entry_began_{}, last_draw_{};
    double finished_s_ = 0;  // time the finished entries took, for the estimate
    bool shown_ = false;
};

}  // namespace gpubench
