// What runner --list prints as text: one line a plugin (its keys, sizes, parameters and
// status), the reasons below; with --plugin, a description of each selected plugin instead,
// all of its descriptor, within 100 columns.
#pragma once

#include "gpu.hpp"
#include "plugin_catalog.hpp"

#include <ostream>
#include <vector>

namespace gpubench {

void print_plugin_list(std::ostream &out, const PluginCatalog &catalog, const GpuInfo &gpu);

void print_plugin_descriptions(std::ostream &out, const std::vector<const PluginInfo *> &plugins,
                               const GpuInfo &gpu);

}  // namespace gpubench
