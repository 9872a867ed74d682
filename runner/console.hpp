// What the runner prints of a sweep: its table, row by row as entries finish, and its progress
// line (plugin_list.hpp prints --list).
#pragma once

#include "measurement.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace gpubench {

// The sweep table: with a PARAMS column `params_width` wide after PLUGIN when it is not 0 (a
// sweep whose entries have params: each row then shows its entry's).
void print_sweep_header(std::ostream &out, size_t params_width);
void print_sweep_row(std::ostream &out, const EntryResult &entry, const std::string &params, size_t params_width);

// The sweep's progress on stderr: on a terminal one line rewritten in place ("[3/40]
// sort_cuda 1000000, 12s in; 1m05s elapsed, ~4m left"; --devices' lanes name each entry that
// runs with its GPU, "+3 more" where the line has no room), redrawn each second while an entry
// runs; elsewhere (a log) a plain line as each entry starts, and one every 30 s that it runs
// on; nothing with --quiet.
class Progress {
public:
    enum class Style { terminal, lines, quiet };
    static Style style_for_stderr(bool quiet);  // terminal when stderr is a TTY

    // `out`: stderr but in tests; `still_every_s`: how often a log hears of a running entry;
    // `columns`: the terminal's line (0: its width when `out` is one, else 160).
    Progress(Style style, size_t total_entries, std::FILE *out = stderr, double still_every_s = 30,
             size_t columns = 0);
    // An entry starts (index + 1): `gpu` is its lane's (-1: it runs alone); end() tells it from
    // others of its plugin and size by its `params`.
    void begin(const std::string &plugin, uint64_t size, int gpu = -1, const std::string &params = "");
    void tick();  // while it runs (often): the terminal line at most 1/s, a log's every still_every_s
    void clear();  // before the table prints a row on a terminal
    void end(const std::string &plugin, uint64_t size, const std::string &params = "");  // row printed
    void put_back(const std::string &plugin, uint64_t size, const std::string &params = "");  // begins again later

private:
    using clock = std::chrono::steady_clock;
    struct Running {
        int gpu;
        std::string name, params;  // name: "sort_cuda 1000000"
        size_t index;
        clock::time_point began, last_still;
    };
    void draw();
    std::vector<Running>::iterator running(const std::string &plugin, uint64_t size, const std::string &params);
    void tell_log(const Running &entry, const std::string &what);
    Style style_;
    std::FILE *out_;
    double still_every_s_;
    size_t total_, started_ = 0, finished_ = 0, columns_;
    std::vector<Running> running_;  // by GPU
    clock::time_point sweep_began_ = clock::now(), last_draw_{};
    double finished_s_ = 0;  // time the finished entries took, for the estimate
    bool shown_ = false;
};

}  // namespace gpubench
