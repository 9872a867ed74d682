# gpubench_add_plugin(<name> SOURCES <file>... [LIBRARIES <lib>...])
#
# Builds <name>.so, a gpubench plugin: a MODULE library without the "lib" prefix whose only
# exported symbol is the entry point (hidden visibility), with its provenance (compiler,
# build type, CUDA architectures) compiled in as GPUBENCH_PLUGIN_BUILD_INFO, and its build
# record beside it (gpubench_write_build_record below: the SOURCES are its own files, and the
# files of each LIBRARIES target with a GPUBENCH_SHARED_FILES property the shared ones). Used
# in-tree and, through find_package(gpubench), by plugins in other repositories.
function(gpubench_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  _gpubench_default_build_type(${name})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "gpubench_add_plugin(${name}): SOURCES is required")
  endif()
  _gpubench_needs_cuda(has_cuda ${name} ${ARG_SOURCES})
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE gpubench::sdk ${ARG_LIBRARIES})
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN;$ORIGIN/../..")
  target_compile_features(${name} PRIVATE cxx_std_17)
  # Hidden visibility still exports weak template instantiations (std::map<...>): a version
  # script leaves the entry symbol as the only one.
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE
      "LINKER:--version-script=${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gpubench_plugin.map")
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS
      "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gpubench_plugin.map")
  endif()
  if(GPUBENCH_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY "${GPUBENCH_PLUGIN_OUTPUT_DIRECTORY}")
  endif()

  if(GPUBENCH_PLUGIN_INSTALL_DIR)
    install(TARGETS ${name} LIBRARY DESTINATION "${GPUBENCH_PLUGIN_INSTALL_DIR}")
  endif()

  _gpubench_compile_build_info(${name} ${has_cuda})
  _gpubench_plugin_build_record(${name} ${has_cuda} SOURCES ${ARG_SOURCES}
                                LIBRARIES ${ARG_LIBRARIES})
endfunction()

# A project that sets no build type would compile its plugin without optimisation and time it
# so: default to Release, as the runner flags unoptimised plugins.
function(_gpubench_default_build_type name)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT CMAKE_BUILD_TYPE AND NOT multi_config)
    message(STATUS "gpubench_add_plugin(${name}): no CMAKE_BUILD_TYPE set, building it as Release")
    set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
    set(CMAKE_BUILD_TYPE Release PARENT_SCOPE)
  endif()
endfunction()

# TRUE in `out` when a source is CUDA (.cu); then CUDA must be enabled and the toolkit found.
function(_gpubench_needs_cuda out name)
  set(has_cuda FALSE)
  foreach(source IN LISTS ARGN)
    if(source MATCHES "\\.cu$")
      set(has_cuda TRUE)
    endif()
  endforeach()
  if(has_cuda)
    if(NOT CMAKE_CUDA_COMPILER_LOADED)
      message(FATAL_ERROR "gpubench_add_plugin(${name}): a source is CUDA (.cu), but CUDA is not "
        "enabled: add enable_language(CUDA) (with set(CMAKE_CUDA_RUNTIME_LIBRARY Shared) and "
        "CMAKE_CUDA_ARCHITECTURES, e.g. 90 for an H100) before gpubench_add_plugin")
    endif()
    # CUDA enabled after find_package(gpubench): the package could not look for the toolkit
    # then, so look now.
    if(NOT TARGET CUDA::cudart)
      find_package(CUDAToolkit QUIET)
    endif()
    if(NOT TARGET CUDA::cudart)
      message(FATAL_ERROR "gpubench_add_plugin(${name}): a source is CUDA (.cu), but "
        "find_package(CUDAToolkit) found no toolkit (CUDA::cudart): set CUDAToolkit_ROOT")
    endif()
  endif()
  set(${out} ${has_cuda} PARENT_SCOPE)
endfunction()

# The plugin's provenance, compiled in as GPUBENCH_PLUGIN_BUILD_INFO: compiler, build type and
# flags, and for CUDA the architectures (the shared runtime linked as well).
function(_gpubench_compile_build_info name has_cuda)
  set(build_info "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type_upper)
    string(STRIP "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${build_type_upper}}" cxx_flags)
    string(APPEND build_info ", ${CMAKE_BUILD_TYPE}, flags '${cxx_flags}'")
  else()
    string(STRIP "${CMAKE_CXX_FLAGS}" cxx_flags)
    string(APPEND build_info ", no build type, flags '${cxx_flags}'")
  endif()
  if(has_cuda)
    get_target_property(archs ${name} CUDA_ARCHITECTURES)
    list(JOIN archs "," archs)  # a ';' would split the compile definition
    # The runner's stream and events must belong to the same CUDA runtime as the plugin's.
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
    string(APPEND build_info ", nvcc ${CMAKE_CUDA_COMPILER_VERSION}, sm ${archs}")
    target_link_libraries(${name} PRIVATE CUDA::cudart)
  endif()
  # The last part, GPUBENCH_OPTIMIZATION_TEXT (plugin.h), is decided by the compiler itself
  # (__OPTIMIZE__), so flags added by target_compile_options count too.
  string(REPLACE "\"" "'" build_info "${build_info}")
  target_compile_definitions(${name} PRIVATE
    "GPUBENCH_PLUGIN_BUILD_INFO=\"${build_info}, \" GPUBENCH_OPTIMIZATION_TEXT")
endfunction()

# The build record of a plugin from its SOURCES, with the files shared through its LIBRARIES.
function(_gpubench_plugin_build_record name has_cuda)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(language C)
  if(has_cuda)
    set(language CUDA)
  elseif(ARG_SOURCES MATCHES "\\.(cpp|cc|cxx|C)(;|$)")
    set(language C++)
  endif()
  set(shared_libraries "")
  foreach(library IN LISTS ARG_LIBRARIES)
    if(TARGET ${library})
      get_target_property(shared_files ${library} GPUBENCH_SHARED_FILES)
      if(shared_files)
        list(APPEND shared_libraries ${library})
      endif()
    endif()
  endforeach()
  gpubench_time_compiles(${name})
  gpubench_write_build_record(${name} LANGUAGE ${language} BACKEND_FILES ${ARG_SOURCES}
                              SHARED_LIBRARIES ${shared_libraries})
endfunction()

# gpubench_time_compiles(<target>)
#
# Times each compile of <target>'s C, C++ and CUDA sources, and its link, with
# gpubench_build_timer.sh (a compiler launcher, chained before any the project set, such as
# ccache), for gpubench_write_build_record to sum. Makefile and Ninja generators on a POSIX
# host only; elsewhere nothing is timed and records carry no compile time.
function(gpubench_time_compiles target)
  if(NOT CMAKE_HOST_UNIX OR NOT CMAKE_GENERATOR MATCHES "Make|Ninja")
    return()
  endif()
  set(timer "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gpubench_build_timer.sh")
  foreach(language C CXX CUDA)
    set_property(TARGET ${target} PROPERTY ${language}_COMPILER_LAUNCHER
                 sh "${timer}" --object ${CMAKE_${language}_COMPILER_LAUNCHER})
  endforeach()
  # Objects compiled before the timer was (an older build folder) have no record: the timer
  # as a dependency compiles them again, once.
  get_target_property(sources ${target} SOURCES)
  set_property(SOURCE ${sources} APPEND PROPERTY OBJECT_DEPENDS "${timer}")
  get_target_property(type ${target} TYPE)
  if(type MATCHES "MODULE_LIBRARY|SHARED_LIBRARY|EXECUTABLE")
    # RULE_LAUNCH_LINK, not <LANG>_LINKER_LAUNCHER: CMake has no linker launcher for CUDA.
    # Its text goes into the link command line as it is, hence the quotes.
    get_property(launch TARGET ${target} PROPERTY RULE_LAUNCH_LINK)
    foreach(scope DIRECTORY GLOBAL)  # where CTest's launchers may be set: they run after ours
      if(NOT launch)
        get_property(launch ${scope} PROPERTY RULE_LAUNCH_LINK)
      endif()
    endforeach()
    set(records "${CMAKE_CURRENT_BINARY_DIR}/gpubench_build_records")
    file(MAKE_DIRECTORY "${records}")
    set_property(TARGET ${target} PROPERTY RULE_LAUNCH_LINK
                 "sh \"${timer}\" --record \"${records}/${target}.link_s\" ${launch}")
  endif()
endfunction()

# gpubench_write_build_record(<target> LANGUAGE <language> BACKEND_FILES <file>...
#                             [SHARED_FILES <file>...] [SHARED_LIBRARIES <target>...] [BRIDGE])
#
# After each build of <target>, writes <its file>.build.json (installed beside it where
# GPUBENCH_PLUGIN_INSTALL_DIR is set), which the runner records with the plugin:
#   {"language": "C++", "compile_s": 1.9, "source_files": ["plugins/matmul/naive.cpp"],
#    "source_lines": 40, "shared_files": [...], "shared_lines": 120, "shared_compile_s": 2.1}
# compile_s: the compile time gpubench_time_compiles recorded for <target>'s own objects, plus
# its link (absent when any is missing). source_lines and shared_lines: the lines of
# BACKEND_FILES and of the shared files (SHARED_FILES, and the GPUBENCH_SHARED_FILES of each
# SHARED_LIBRARIES target, whose objects' compile time is shared_compile_s) that are neither
# blank nor only a comment; counted at build time, so edits are seen. BRIDGE: BACKEND_FILES
# are not what <target> compiles (a script its native bridge runs): <target>'s compile time is
# written as bridge_compile_s, not compile_s. Called by gpubench_add_plugin; call it again,
# after it, to describe a plugin otherwise (a later call replaces the earlier record).
function(gpubench_write_build_record target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "BRIDGE" "LANGUAGE"
                        "BACKEND_FILES;SHARED_FILES;SHARED_LIBRARIES")
  if(NOT ARG_LANGUAGE OR NOT ARG_BACKEND_FILES)
    message(FATAL_ERROR "gpubench_write_build_record(${target}): LANGUAGE and BACKEND_FILES are required")
  endif()
  gpubench_absolute_paths(backend_files ${ARG_BACKEND_FILES})
  gpubench_absolute_paths(shared_files ${ARG_SHARED_FILES})
  set(shared_objects "")
  foreach(library IN LISTS ARG_SHARED_LIBRARIES)
    if(TARGET ${library})
      get_target_property(files ${library} GPUBENCH_SHARED_FILES)
    endif()
    if(NOT TARGET ${library} OR NOT files)
      message(FATAL_ERROR "gpubench_write_build_record(${target}): SHARED_LIBRARIES ${library} "
        "has no GPUBENCH_SHARED_FILES property (absolute paths of the files it shares)")
    endif()
    list(APPEND shared_files ${files})
    get_target_property(type ${library} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")  # a header-only library compiles nothing of its own
      list(APPEND shared_objects "$<TARGET_OBJECTS:${library}>")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES shared_files)
  # An edit of a counted file that nothing compiled here includes still relinks, and recounts.
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${backend_files} ${shared_files})
  set(compile_key compile_s)
  if(ARG_BRIDGE)
    set(compile_key bridge_compile_s)
  endif()

  # Each call writes its own arguments, and the one post-build step reads the last call's.
  set(records "${CMAKE_CURRENT_BINARY_DIR}/gpubench_build_records")
  get_property(calls TARGET ${target} PROPERTY GPUBENCH_BUILD_RECORD_CALLS)
  if(NOT calls)
    set(calls 0)
  endif()
  math(EXPR calls "${calls} + 1")
  set_property(TARGET ${target} PROPERTY GPUBENCH_BUILD_RECORD_CALLS ${calls})
  set(arguments "${records}/${target}-${calls}")
  set_property(TARGET ${target} PROPERTY GPUBENCH_BUILD_RECORD_ARGUMENTS "${arguments}")
  file(GENERATE OUTPUT "${arguments}-$<CONFIG>.cmake" CONTENT "\
set(RECORD [==[$<TARGET_FILE:${target}>.build.json]==])
set(LANGUAGE [==[${ARG_LANGUAGE}]==])
set(COMPILE_KEY ${compile_key})
set(BACKEND_FILES [==[${backend_files}]==])
set(SHARED_FILES [==[${shared_files}]==])
set(OBJECTS [==[$<TARGET_OBJECTS:${target}>]==])
set(LINK_RECORD [==[${records}/${target}.link_s]==])
set(SHARED_OBJECTS [==[${shared_objects}]==])
set(BASE_DIR [==[${PROJECT_SOURCE_DIR}]==])
")
  if(calls EQUAL 1)
    set(last "$<TARGET_PROPERTY:${target},GPUBENCH_BUILD_RECORD_ARGUMENTS>-$<CONFIG>.cmake")
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND "${CMAKE_COMMAND}" "-DGPUBENCH_RECORD_ARGUMENTS=${last}"
              -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gpubench_build_record.cmake"
      VERBATIM)
    if(GPUBENCH_PLUGIN_INSTALL_DIR)
      install(FILES "$<TARGET_FILE:${target}>.build.json" DESTINATION "${GPUBENCH_PLUGIN_INSTALL_DIR}")
    endif()
  endif()
endfunction()

# gpubench_absolute_paths(<out> <file>...): the files, relative ones taken from the current
# source folder.
function(gpubench_absolute_paths out)
  set(paths "")
  foreach(file IN LISTS ARGN)
    get_filename_component(file "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND paths "${file}")
  endforeach()
  set(${out} "${paths}" PARENT_SCOPE)
endfunction()
