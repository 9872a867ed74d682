// runner check's rules: what an author's plugin must do, judged from its descriptor, its
// declared work and the entries of a short sweep at odd and tiny sizes over every declared
// parameter value. Each finding names its rule and the doc section that states it. Pure
// functions of what the scan, the work queries and the results file say: check_command.cpp
// runs those.
#pragma once

#include "measurement.hpp"
#include "plugin_info.hpp"
#include "work_query.hpp"

#include <string>
#include <vector>

namespace gpubench {

struct Finding {
    std::string plugin;
    std::string rule;  // a check's name (check_table) or a rule of the descriptor: "naming"...
    std::string what;  // one line
    std::string see;   // the doc section: "writing-a-plugin.md#declared-parameters-abi-110"
    bool fails = true;  // false: a note, which does not fail the check
};
std::string finding_line(const Finding &finding);  // "plugin: rule: what (see doc)"

// The sizes a plugin is checked at: 1, 7, 33 and 1000 where its range allows, else its least.
std::vector<uint64_t> conformance_sizes(const PluginInfo &plugin);
// The --param axes of its check sweep ("key=v1,v2"): every value of each choice. A number or
// text is left at its default: a value in its range may rightly fail to verify (logreg's
// lr=1e-6 learns nothing, and says so), which is no fault of the plugin.
std::vector<std::string> conformance_param_axes(const PluginInfo &plugin);
// The settings whose work() must equal work(size, ""): each declared key at its declared
// default ("dtype=float32"), text keys with an empty default left out.
std::vector<std::string> default_settings(const PluginInfo &plugin);

// What the descriptor and work() say: the name, the declared keys and values, work() at each
// size (`plain`: with no params; `defaults[i]`: with default_settings()[i]).
std::vector<Finding> declared_findings(const PluginInfo &plugin, const std::vector<uint64_t> &sizes,
                                       const std::vector<WorkAnswer> &plain,
                                       const std::vector<std::vector<WorkAnswer>> &defaults);

// What a measured entry of its check sweep shows: a refusal or an error as its check's name, a
// flag that the plugin caused; a size or setting it does not support as a note.
std::vector<Finding> entry_findings(const Measurement &entry);

}  // namespace gpubench
