// A Python backend as a gpubench plugin: the descriptor and lifecycle of a plugin whose
// setup/upload/reset/run/download are the functions of one Python script, run in the
// interpreter found at run time (python_runtime.hpp). gpubench_add_python_plugin generates
// the one file that fills a Definition and exports the entry symbol with describe().
#pragma once

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.h>
#include <gpubench/python_workload.hpp>

#include <cstddef>

namespace gpubench::python {

// A module beside the script that it imports (helpers.py), embedded with it.
struct Sibling {
    const char *name;             // "helpers": what the script imports
    const char *file;             // "matmul/helpers.py", for messages and tracebacks
    const unsigned char *source;
    size_t source_size;
};

struct Script {
    const char *file;             // "matmul/cupy.py": names it in messages and tracebacks
    const char *module_name;      // "gpubench_plugin_matmul_cupy"
    const unsigned char *source;  // the script, embedded at build time
    size_t source_size;
    const char *modules;          // the top-level modules it imports, comma-separated
    bool has_upload, has_reset, has_download;  // which optional functions it defines
    const Sibling *siblings;      // the modules beside it that it imports
    size_t sibling_count;
};

// The descriptor's workload text of a script without a C++ half (read from the script).
struct Standalone {
    const char *workload, *size_meaning, *params_help, *param_names;
    uint64_t min_size;
    const char *item_name;  // ITEM_NAME: what work()'s items count ("" = none)
    gpubench_headline headline;  // HEADLINE: the throughput shown first
    const char *param_specs = "";  // PARAMETERS: the declared parameters (parse_param_specs)
    const char *version = "1.0";   // VERSION: the plugin's version
};

struct Definition {
    BackendSpec backend;
    Script script;
    const Workload *workload;  // the workload's C++ half (python_workload.hpp), or nullptr:
    Standalone standalone;     // then the script makes its data, checks it and says its work
};

// The plugin's descriptor (static). One Python plugin per library: `definition` and
// `build_info` must outlive it (they are static in the generated file).
const gpubench_plugin *describe(const Definition &definition, const char *build_info);

}  // namespace gpubench::python
