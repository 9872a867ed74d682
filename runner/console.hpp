// What the runner prints of a sweep: its table, row by row as entries finish (plugin_list.hpp
// prints --list).
#pragma once

#include "entry_figures.hpp"
#include "gpu.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "plugin_catalog.hpp"
#include "text_format.hpp"  // format_seconds

#include <ostream>
#include <string>

namespace gpubench {

// The plugin's headline throughput: "51.2 TFLOP/s", "812 GB/s", "1.52 Gkeys/s".
std::string format_throughput(const EntryFigures &figures, const std::string &item_name);

// The sweep table: with a PARAMS column `params_width` wide after PLUGIN when it is not 0 (a
// sweep whose entries have params: each row then shows its entry's).
void print_sweep_header(std::ostream &out, size_t params_width = 0);
void print_sweep_row(std::ostream &out, const EntryResult &entry, const std::string &params = "",
                     size_t params_width = 0);

}  // namespace gpubench
