// What the runner prints of a sweep: its table, row by row as entries finish (plugin_list.hpp
// prints --list).
#pragma once

#include "measurement.hpp"

#include <ostream>
#include <string>

namespace gpubench {

// The sweep table: with a PARAMS column `params_width` wide after PLUGIN when it is not 0 (a
// sweep whose entries have params: each row then shows its entry's).
void print_sweep_header(std::ostream &out, size_t params_width = 0);
void print_sweep_row(std::ostream &out, const EntryResult &entry, const std::string &params = "",
                     size_t params_width = 0);

}  // namespace gpubench
