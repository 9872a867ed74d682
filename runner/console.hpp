// What the runner prints: the plugin list and the sweep table, row by row as entries finish.
#pragma once

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

void print_plugin_list(std::ostream &out, const PluginCatalog &catalog, const GpuInfo &gpu);

void print_sweep_header(std::ostream &out);
void print_sweep_row(std::ostream &out, const EntryResult &entry);

}  // namespace gpubench
