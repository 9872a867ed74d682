# gpubench_add_plugin(<name> SOURCES <file>... [LIBRARIES <lib>...])
#
# Builds <name>.so, a gpubench plugin: a MODULE library without the "lib" prefix whose only
# exported symbol is the entry point (hidden visibility), with its provenance (compiler,
# build type, CUDA architectures) compiled in as GPUBENCH_PLUGIN_BUILD_INFO. Used in-tree and,
# through find_package(gpubench), by plugins in other repositories.
function(gpubench_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  # A project that sets no build type would compile its plugin without optimisation and time
  # it so: default to Release, as the runner flags unoptimised plugins.
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT CMAKE_BUILD_TYPE AND NOT multi_config)
    message(STATUS "gpubench_add_plugin(${name}): no CMAKE_BUILD_TYPE set, building it as Release")
    set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
    set(CMAKE_BUILD_TYPE Release)
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "gpubench_add_plugin(${name}): SOURCES is required")
  endif()
  set(has_cuda FALSE)
  foreach(source IN LISTS ARG_SOURCES)
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
