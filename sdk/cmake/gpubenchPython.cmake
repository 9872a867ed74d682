# gpubench_add_python_plugin(<workload>_<backend> SCRIPT <file.py> [ADAPTER <library>])
#
# Builds <workload>_<backend>.so, a plugin whose phases are the functions of a Python script
# (setup, run, and optionally upload, reset, download), run in the interpreter found at run
# time by find-python.sh (GPUBENCH_PYTHON, else python3 on PATH, else /usr/bin/python3: the first
# with the script's modules). The script is embedded in the library. The
# script declares itself, read here at configure time:
#   - its docstring's first line: the plugin's description;
#   - DEVICE = "cpu" or "cuda"; MAX_SIZE = <int>; DEFAULT_SIZES = [<int>, ...];
#   - its top-level `import x` / `from x import` lines: the modules it needs (the plugin is
#     "unavailable" where one is missing); a module that is a file beside the script (x.py),
#     and not itself a plugin script (no top-level DEVICE =), is embedded in the plugin with
#     it, its own imports read the same way;
#   - which of upload/reset/download it defines (top-level `def`).
# ADAPTER: the library that defines the workload's C++ half, gpubench_python_workload
# (gpubench/python_workload.hpp): inputs, the check, the work model, the descriptor's text.
# Without it the script is the whole plugin: it makes its data in setup(), checks it with
# verify(state) -> {"passed": bool, "max_error": x, "tolerance": x, "checked": n,
# "detail": "..."} and may declare work(size, params) -> {"flops": x, "bytes": x, "items": x,
# "host_bytes": x, "device_bytes": x, "math": "fp32"|"fp64"|"tf32"|"fp16"|"bf16"|"fp8"|"int8",
# "run_repeatable": bool, "run_no_device_work": bool, "launches": x} (writing-a-plugin.md's
# gpubench_work fields); it also sets SIZE_MEANING = "..." and may set VERSION = "2.1" (the
# plugin's version; 1.0 without it), MIN_SIZE = <int>,
# PARAMS = "<help>", PARAMETERS = "key: a|b [= b]; key: int LO..HI = D; key: real LO..HI = D;
# key: text [= D]" (the parameters it reads, with their values and defaults: ABI 1.10's
# declared parameters), or only their keys as PARAM_NAMES = "a,b", ITEM_NAME = "keys" and
# HEADLINE = "gflops" | "gbytes_per_s" | "items_per_s" (one line each). Sizes may be integer
# expressions (1 << 31).
#
# gpubench_add_python_backends(<workload> <backend>... [ADAPTER <library>]) (at the end of
# this file) adds one such plugin per backend of a workload.

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

# Sets each variable named in ARGN in the caller of the function this runs in (a macro: it runs
# in that function's scope) to its value there.
macro(_gpubench_return)
  foreach(_gpubench_variable IN ITEMS ${ARGN})
    set(${_gpubench_variable} "${${_gpubench_variable}}" PARENT_SCOPE)
  endforeach()
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

# The bridge (python_runtime, python_session, python_plugin, the embedded helper), built once
# per project.
function(_gpubench_python_bridge)
  if(TARGET gpubench_python_bridge)
    return()
  endif()
  _gpubench_python_paths()
  set(helper_cpp "${CMAKE_BINARY_DIR}/gpubench_python/bridge_helper.cpp")
  _gpubench_embed_file("${helper_cpp}" "${_gpubench_python_dir}/bridge_helper.py"
                       gpubench_bridge_helper_source)
  set(finder_cpp "${CMAKE_BINARY_DIR}/gpubench_python/find_python.cpp")
  _gpubench_embed_file("${finder_cpp}" "${_gpubench_python_dir}/find-python.sh"
                       gpubench_find_python_source)
  add_library(gpubench_python_bridge STATIC
    "${_gpubench_python_dir}/python_runtime.cpp" "${_gpubench_python_dir}/python_session.cpp"
    "${_gpubench_python_dir}/python_plugin.cpp" "${helper_cpp}" "${finder_cpp}")
  target_include_directories(gpubench_python_bridge PUBLIC "${_gpubench_python_dir}")
  target_link_libraries(gpubench_python_bridge PUBLIC gpubench::sdk ${CMAKE_DL_LIBS})
  target_compile_features(gpubench_python_bridge PUBLIC cxx_std_17)
  set_target_properties(gpubench_python_bridge PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# A size as the script writes it: an integer (1_000_000) or an integer expression of
# + - * / % << >> and parentheses (1 << 31), evaluated as Python would; anything else stops
# the configuration with the script's line.
function(_gpubench_size_expression out text what name)
  string(REPLACE "_" "" expression "${text}")
  string(STRIP "${expression}" expression)
  if(expression MATCHES "\\*\\*|//" OR NOT expression MATCHES "^[0-9 ()<>+*/%-]+$")
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): ${what} = ${text}: only integers "
      "and + - * / % << >> ( ) are understood here (no ** or //)")
  endif()
  math(EXPR value "${expression}")
  set(${out} "${value}" PARENT_SCOPE)
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
  _gpubench_read_sizes("${text}" "${script}" "${name}")
  _gpubench_read_imports("${script}")
  foreach(phase upload reset download)
    set(has_${phase} false)
    if(text MATCHES "\ndef ${phase}\\(")
      set(has_${phase} true)
    endif()
    set(has_${phase} ${has_${phase}} PARENT_SCOPE)
  endforeach()
  _gpubench_read_declarations("${text}" "${name}")
  foreach(var description size_meaning version params_help param_names param_specs item_name)
    _gpubench_c_string(${var} "${${var}}")
  endforeach()
  _gpubench_return(description device max_size sizes modules siblings script_dir size_meaning
                   version params_help param_names param_specs min_size item_name headline)
endfunction()

# MAX_SIZE and DEFAULT_SIZES (required) and MIN_SIZE (1 by default) of the script's `text`,
# into the caller's max_size, sizes (", "-joined) and min_size.
function(_gpubench_read_sizes text script name)
  if(NOT text MATCHES "\nMAX_SIZE = ([0-9_ ()<>+*/%-]+)[ \t]*(#[^\n]*)?\n")
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): ${script} must set MAX_SIZE = "
      "<integer or integer expression> on one line")
  endif()
  _gpubench_size_expression(max_size "${CMAKE_MATCH_1}" "MAX_SIZE" "${name}")
  if(NOT text MATCHES "\nDEFAULT_SIZES = \\[([0-9_, ()<>+*/%-]+)\\]")
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): ${script} must set "
      "DEFAULT_SIZES = [<integer or expression>, ...] on one line")
  endif()
  string(REPLACE "," ";" size_texts "${CMAKE_MATCH_1}")
  set(sizes "")
  foreach(size_text IN LISTS size_texts)
    string(STRIP "${size_text}" size_text)
    if(NOT size_text STREQUAL "")
      _gpubench_size_expression(size "${size_text}" "DEFAULT_SIZES" "${name}")
      list(APPEND sizes "${size}")
    endif()
  endforeach()
  list(JOIN sizes ", " sizes)
  set(min_size 1)
  if(text MATCHES "\nMIN_SIZE = ([0-9_ ()<>+*/%-]+)[ \t]*(#[^\n]*)?\n")
    _gpubench_size_expression(min_size "${CMAKE_MATCH_1}" "MIN_SIZE" "${name}")
  endif()
  _gpubench_return(max_size sizes min_size)
endfunction()

# The modules the script imports at top level, into the caller's modules (","-joined),
# siblings and script_dir: a sibling file (<module>.py in the script's folder) is embedded with
# the script, and its own imports are read in turn; the others must be importable where it
# runs.
function(_gpubench_read_imports script)
  get_filename_component(script_dir "${script}" DIRECTORY)
  set(modules "")
  set(siblings "")
  set(to_read "${script}")
  while(to_read)
    list(POP_FRONT to_read file)
    file(READ "${file}" file_text)
    string(REGEX MATCHALL "(^|\n)(import|from)[ \t]+[A-Za-z_][A-Za-z0-9_]*" imports "${file_text}")
    foreach(line IN LISTS imports)
      string(REGEX REPLACE ".*(import|from)[ \t]+" "" module "${line}")
      # A plugin script beside it (numpy.py, the numpy backend of the same workload) is not a
      # sibling: `import numpy` means the library.
      set(sibling_file "${script_dir}/${module}.py")
      set(is_script FALSE)
      if(EXISTS "${sibling_file}")
        file(READ "${sibling_file}" sibling_text)
        if(sibling_text MATCHES "\nDEVICE = ")
          set(is_script TRUE)
        endif()
      endif()
      if(EXISTS "${sibling_file}" AND NOT is_script)
        if(NOT module IN_LIST siblings)
          list(APPEND siblings "${module}")
          list(APPEND to_read "${script_dir}/${module}.py")
          set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${script_dir}/${module}.py")
        endif()
      else()
        list(APPEND modules "${module}")
      endif()
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES modules)
  list(JOIN modules "," modules)
  _gpubench_return(modules siblings script_dir)
endfunction()

# The optional one-line declarations of the script's `text`, into the caller's size_meaning,
# params_help, param_names and item_name ("" where absent), version ("1.0") and headline.
function(_gpubench_read_declarations text name)
  set(size_meaning "")
  if(text MATCHES "\nSIZE_MEANING = [\"']([^\"'\n]*)[\"']")
    set(size_meaning "${CMAKE_MATCH_1}")
  endif()
  set(version "1.0")
  if(text MATCHES "\nVERSION = [\"']([^\"'\n]+)[\"']")
    set(version "${CMAKE_MATCH_1}")
  endif()
  set(params_help "")
  if(text MATCHES "\nPARAMS = [\"']([^\"'\n]*)[\"']")
    set(params_help "${CMAKE_MATCH_1}")
  endif()
  set(param_names "")
  if(text MATCHES "\nPARAM_NAMES = [\"']([^\"'\n]*)[\"']")
    set(param_names "${CMAKE_MATCH_1}")
  endif()
  set(param_specs "")
  if(text MATCHES "\nPARAMETERS = [\"']([^\"'\n]*)[\"']")
    set(param_specs "${CMAKE_MATCH_1}")
    _gpubench_check_param_specs("${param_specs}" "${name}")
  endif()
  set(item_name "")
  if(text MATCHES "\nITEM_NAME = [\"']([^\"'\n]*)[\"']")
    set(item_name "${CMAKE_MATCH_1}")
  endif()
  set(headline GPUBENCH_HEADLINE_AUTO)
  if(text MATCHES "\nHEADLINE = [\"']([a-z_]*)[\"']")
    if(CMAKE_MATCH_1 STREQUAL "gflops")
      set(headline GPUBENCH_HEADLINE_FLOPS)
    elseif(CMAKE_MATCH_1 STREQUAL "gbytes_per_s")
      set(headline GPUBENCH_HEADLINE_BYTES)
    elseif(CMAKE_MATCH_1 STREQUAL "items_per_s")
      set(headline GPUBENCH_HEADLINE_ITEMS)
    else()
      message(FATAL_ERROR "gpubench_add_python_plugin(${name}): HEADLINE = \"${CMAKE_MATCH_1}\" "
        "is none of gflops, gbytes_per_s, items_per_s")
    endif()
  endif()
  _gpubench_return(size_meaning version params_help param_names param_specs item_name headline)
endfunction()

# Each item of PARAMETERS ("key: a|b [= b]; key: int LO..HI = D; key: real LO..HI = D;
# key: text [= D]") in its form, or a configure error naming the item; the values themselves
# are checked by the runner (a default outside them refuses the plugin, saying so).
function(_gpubench_check_param_specs text name)
  set(items "${text}")  # a CMake list: its items are the ;-separated ones
  set(key "[A-Za-z0-9_]+ *: *")
  set(number "[-+0-9.eE]+")
  foreach(item IN LISTS items)
    string(STRIP "${item}" item)
    if(item STREQUAL "" OR item MATCHES "^${key}(int|real) +${number}\\.\\.${number} *= *${number}$"
       OR item MATCHES "^${key}text( *= *[^ ,]*)?$"
       OR item MATCHES "^${key}[^|=:, ]+(\\|[^|=:, ]+)*( *= *[^|=:, ]+)?$")
      continue()
    endif()
    message(FATAL_ERROR "gpubench_add_python_plugin(${name}): PARAMETERS item '${item}' is none of "
      "'key: a|b [= b]', 'key: int LO..HI = D', 'key: real LO..HI = D', 'key: text [= D]'")
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
  _gpubench_workload_half("${name}" "${arg_ADAPTER}" "${script}" "${size_meaning}")
  _gpubench_python_paths()
  _gpubench_python_bridge()
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/${name}_python")
  _gpubench_embed_siblings("${generated}" "${workload}" "${script_dir}" ${siblings})
  configure_file("${_gpubench_python_dir}/python_plugin_entry.cpp.in" "${generated}/entry.cpp" @ONLY)
  _gpubench_embed_file("${generated}/script.cpp" "${script}" gpubench_script_source)
  gpubench_add_plugin(${name} SOURCES "${generated}/entry.cpp" "${generated}/script.cpp"
                      ${sibling_sources} LIBRARIES gpubench_python_bridge ${arg_ADAPTER})
  # The build record counts the script's lines (and the adapter's as the shared ones), not the
  # generated files; the bridge's compile time is recorded as the bridge's, not the script's.
  set(shared_libraries "")
  if(arg_ADAPTER)
    set(shared_libraries SHARED_LIBRARIES ${arg_ADAPTER})
  endif()
  gpubench_write_build_record(${name} LANGUAGE Python BACKEND_FILES "${script}" ${sibling_files}
                              ${shared_libraries} BRIDGE)
endfunction()

# How the entry file reaches the workload's C++ half, into the caller's workload_declaration
# and workload_pointer: the ADAPTER library's gpubench_python_workload, or none (the script
# then describes and checks its work itself, and must say what its size means).
function(_gpubench_workload_half name adapter script size_meaning)
  if(adapter)
    set(workload_declaration "extern const gpubench::python::Workload gpubench_python_workload;  // ${adapter}'s")
    set(workload_pointer "&gpubench_python_workload")
  else()
    if(size_meaning STREQUAL "")
      message(FATAL_ERROR "gpubench_add_python_plugin(${name}): without ADAPTER, ${script} must set "
        "SIZE_MEANING = \"...\" (and define verify(state))")
    endif()
    set(workload_declaration "// No ADAPTER: the script makes, checks and describes its own work.")
    set(workload_pointer "nullptr")
  endif()
  _gpubench_return(workload_declaration workload_pointer)
endfunction()

# Sibling modules (ARGN) travel inside the library too, each as an array of its own: into the
# caller's sibling_declarations, sibling_rows and sibling_count (for the entry file),
# sibling_sources (the generated arrays) and sibling_files (the modules, for the build record).
function(_gpubench_embed_siblings generated workload script_dir)
  set(sibling_declarations "")
  set(sibling_rows "")
  set(sibling_sources "")
  set(sibling_files "")
  foreach(module IN LISTS ARGN)
    string(APPEND sibling_declarations "extern const unsigned char gpubench_sibling_${module}[];\n"
                                       "extern const size_t gpubench_sibling_${module}_size;\n")
    string(APPEND sibling_rows "    {\"${module}\", \"${workload}/${module}.py\", "
                               "gpubench_sibling_${module}, gpubench_sibling_${module}_size},\n")
    _gpubench_embed_file("${generated}/sibling_${module}.cpp" "${script_dir}/${module}.py"
                         gpubench_sibling_${module})
    list(APPEND sibling_sources "${generated}/sibling_${module}.cpp")
    list(APPEND sibling_files "${script_dir}/${module}.py")
  endforeach()
  list(LENGTH ARGN sibling_count)
  if(sibling_count EQUAL 0)
    set(sibling_rows "    {nullptr, nullptr, nullptr, 0},\n")  # no zero-length arrays
  endif()
  _gpubench_return(sibling_declarations sibling_rows sibling_count sibling_sources sibling_files)
endfunction()

# gpubench_add_python_backends(<workload> <backend>... [ADAPTER <library>])
#
# The Python backends of one workload, a gpubench_add_python_plugin(<workload>_<backend> ...)
# each: the script is <backend>.py beside the calling CMakeLists.txt (or, where there is none,
# <workload>_<backend>.py), and ADAPTER the workload's C++ half, by default <workload>_python
# where a target of that name exists; without one each script is a whole plugin.
#   gpubench_add_python_backends(matmul numpy numba numba_cuda cupy torch)
function(gpubench_add_python_backends workload)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ADAPTER" "")
  set(adapter "")
  if(arg_ADAPTER)
    set(adapter ADAPTER ${arg_ADAPTER})
  elseif(TARGET ${workload}_python)
    set(adapter ADAPTER ${workload}_python)
  endif()
  set(backends ${arg_UNPARSED_ARGUMENTS})
  if(NOT backends)
    message(FATAL_ERROR "gpubench_add_python_backends(${workload}): name at least one backend")
  endif()
  foreach(backend IN LISTS backends)
    set(script "${CMAKE_CURRENT_SOURCE_DIR}/${backend}.py")
    if(NOT EXISTS "${script}")
      set(script "${CMAKE_CURRENT_SOURCE_DIR}/${workload}_${backend}.py")
    endif()
    if(NOT EXISTS "${script}")
      message(FATAL_ERROR "gpubench_add_python_backends(${workload}): no ${backend}.py or "
        "${workload}_${backend}.py in ${CMAKE_CURRENT_SOURCE_DIR}")
    endif()
    gpubench_add_python_plugin(${workload}_${backend} SCRIPT "${script}" ${adapter})
  endforeach()
endfunction()
