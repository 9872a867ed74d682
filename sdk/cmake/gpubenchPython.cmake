# gpubench_add_python_plugin(<workload>_<backend> SCRIPT <file.py> [ADAPTER <library>])
#
# Builds <workload>_<backend>.so, a plugin whose phases are the functions of a Python script
# (setup, run, and optionally upload, reset, download), run in the interpreter found at run
# time (GPUBENCH_PYTHON, else python3 on PATH). The script is embedded in the library. The
# script declares itself, read here at configure time:
#   - its docstring's first line: the plugin's description;
#   - DEVICE = "cpu" or "cuda"; MAX_SIZE = <int>; DEFAULT_SIZES = [<int>, ...];
#   - its top-level `import x` / `from x import` lines: the modules it needs (the plugin is
#     "unavailable" where one is missing);
#   - which of upload/reset/download it defines (top-level `def`).
# ADAPTER: the library that defines the workload's C++ half, gpubench_python_workload
# (gpubench/python_workload.hpp): inputs, the check, the work model, the descriptor's text.
# Without it the script is the whole plugin: it makes its data in setup(), checks it with
# verify(state) -> {"passed": bool, "max_error": x, "tolerance": x, "checked": n,
# "detail": "..."} and may declare work(size, params) -> {"flops": x, "bytes": x, "items": x};
# it also sets SIZE_MEANING = "..." and may set MIN_SIZE = <int>, PARAMS = "<help>" and
# PARAM_NAMES = "a,b" (one line each).

# The bridge's sources and the embedding script, found from this file's own folder (a
# function runs in its caller's scope, so file-level variables would not reach it).
macro(_gpubench_python_paths)
  if(EXISTS "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/python/python_plugin.cpp")
    set(_gpubench_python_dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/python")     # installed
  else()
    set(_gpubench_python_dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../python")  # source tree
  endif()
  set(_gpubench_embed_script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gpubench_embed.cmake")
endmacro()

# C++ string literal contents for `text`.
function(_gpubench_c_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# A C++ file of `input`'s bytes as the array `symbol`, regenerated when the input changes.
function(_gpubench_embed_file output input symbol)
  _gpubench_python_paths()
  add_custom_command(OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol}
            -P "${_gpubench_embed_script}"
    DEPENDS "${input}" "${_gpubench_embed_script}"
    COMMENT "Embedding ${input}" VERBATIM)
endfunction()

# The bridge (python_runtime, python_plugin, the embedded helper), built once per project.
function(_gpubench_python_bridge)
  if(TARGET gpubench_python_bridge)
    return()
  endif()
  _gpubench_python_paths()
  set(helper_cpp "${CMAKE_BINARY_DIR}/gpubench_python/bridge_helper.cpp")
  _gpubench_embed_file("${helper_cpp}" "${_gpubench_python_dir}/bridge_helper.py"
                       gpubench_bridge_helper_source)
  add_library(gpubench_python_bridge STATIC
    "${_gpubench_python_dir}/python_runtime.cpp" "${_gpubench_python_dir}/python_plugin.cpp"
    "${helper_cpp}")
  target_include_directories(gpubench_python_bridge PUBLIC "${_gpubench_python_dir}")
  target_link_libraries(gpubench_python_bridge PUBLIC gpubench::sdk ${CMAKE_DL_LIBS})
  target_compile_features(gpubench_python_bridge PUBLIC cxx_std_17)
  set_target_properties(gpubench_python_bridge PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# Reads what the script declares into the caller's variables (see above).
function(_gpubench_read_script script name)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${script}")
  file(READ "${script}" text)
  set(description "${name}")
  if(text MATCHES "^[ \t\r\n]*(\"\"\"|''')[ \t]*([^\r\n]*)")
    string(REGEX REPLACE "(\"\"\"|''')[ \t]*$" "" description "${CMAKE_MATCH_2}")
    string(STRIP "${description}" description)
  endif()
  set(device "")
  if(text MATCHES "\nDEVICE = [\"']([a-z]+)[\"']")
    set(device "${CMAKE_MATCH_1}")
  endif()
  if(NOT device MATCHES "^(cpu|cuda)$")
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): ${script} must set "
      "DEVICE = \"cpu\" or DEVICE = \"cuda\" at top level")
  endif()
  if(NOT text MATCHES "\nMAX_SIZE = ([0-9_]+)[ \t]*(#[^\n]*)?\n")
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): ${script} must set MAX_SIZE = <integer>")
  endif()
  string(REPLACE "_" "" max_size "${CMAKE_MATCH_1}")
  if(NOT text MATCHES "\nDEFAULT_SIZES = \\[([0-9_, ]+)\\]")
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): ${script} must set "
      "DEFAULT_SIZES = [<integer>, ...] on one line")
  endif()
  string(REPLACE "_" "" sizes "${CMAKE_MATCH_1}")
  string(REGEX REPLACE ",[ ]*$" "" sizes "${sizes}")
  set(modules "")
  string(REGEX MATCHALL "(^|\n)(import|from)[ \t]+[A-Za-z_][A-Za-z0-9_]*" imports "${text}")
  foreach(line IN LISTS imports)
    string(REGEX REPLACE ".*(import|from)[ \t]+" "" module "${line}")
    list(APPEND modules "${module}")
  endforeach()
  list(REMOVE_DUPLICATES modules)
  list(JOIN modules "," modules)
  foreach(phase upload reset download)
    set(has_${phase} false)
    if(text MATCHES "\ndef ${phase}\\(")
      set(has_${phase} true)
    endif()
    set(has_${phase} ${has_${phase}} PARENT_SCOPE)
  endforeach()
  set(size_meaning "")
  if(text MATCHES "\nSIZE_MEANING = [\"']([^\"'\n]*)[\"']")
    set(size_meaning "${CMAKE_MATCH_1}")
  endif()
  set(params_help "")
  if(text MATCHES "\nPARAMS = [\"']([^\"'\n]*)[\"']")
    set(params_help "${CMAKE_MATCH_1}")
  endif()
  set(param_names "")
  if(text MATCHES "\nPARAM_NAMES = [\"']([^\"'\n]*)[\"']")
    set(param_names "${CMAKE_MATCH_1}")
  endif()
  set(min_size 1)
  if(text MATCHES "\nMIN_SIZE = ([0-9_]+)")
    string(REPLACE "_" "" min_size "${CMAKE_MATCH_1}")
  endif()
  foreach(var description size_meaning params_help param_names)
    _gpubench_c_string(${var} "${${var}}")
  endforeach()
  foreach(var description device max_size sizes modules size_meaning params_help param_names min_size)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
endfunction()

function(gpubench_add_python_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SCRIPT;ADAPTER" "")
  if(NOT arg_SCRIPT)
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): SCRIPT is required")
  endif()
  if(NOT name MATCHES "^([A-Za-z0-9]+)_([A-Za-z0-9_]+)$")
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): the name must be <workload>_<backend>")
  endif()
  set(workload "${CMAKE_MATCH_1}")
  set(backend "${CMAKE_MATCH_2}")
  get_filename_component(script "${arg_SCRIPT}" ABSOLUTE)
  get_filename_component(script_name "${script}" NAME)
  set(script_label "${workload}/${script_name}")
  _gpubench_read_script("${script}" "${name}")
  if(device STREQUAL "cuda")
    set(device_kind GPUBENCH_DEVICE_CUDA)
  else()
    set(device_kind GPUBENCH_DEVICE_CPU)
  endif()
  set(default_sizes "${sizes}")
  if(arg_ADAPTER)
    set(workload_declaration "extern const gpubench::python::Workload gpubench_python_workload;  // ${arg_ADAPTER}'s")
    set(workload_pointer "&gpubench_python_workload")
  else()
    if(size_meaning STREQUAL "")
      message(FATAL_ERROR "gpubench_add_python_plugin(${name}): without ADAPTER, ${script} must set "
        "SIZE_MEANING = \"...\" (and define verify(state))")
    endif()
    set(workload_declaration "// No ADAPTER: the script makes, checks and describes its own work.")
    set(workload_pointer "nullptr")
  endif()
  _gpubench_python_paths()
  _gpubench_python_bridge()
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/${name}_python")
  configure_file("${_gpubench_python_dir}/python_plugin_entry.cpp.in" "${generated}/entry.cpp" @ONLY)
  _gpubench_embed_file("${generated}/script.cpp" "${script}" gpubench_script_source)
  gpubench_add_plugin(${name} SOURCES "${generated}/entry.cpp" "${generated}/script.cpp"
                      LIBRARIES gpubench_python_bridge ${arg_ADAPTER})
  # The build record counts the script's lines (and the adapter's as the shared ones), not the
  # generated files; the bridge's compile time is recorded as the bridge's, not the script's.
  set(shared_libraries "")
  if(arg_ADAPTER)
    set(shared_libraries SHARED_LIBRARIES ${arg_ADAPTER})
  endif()
  gpubench_write_build_record(${name} LANGUAGE Python BACKEND_FILES "${script}" ${shared_libraries} BRIDGE)
endfunction()
