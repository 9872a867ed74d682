# gpubench_add_plugin(<name> SOURCES <file>... [LIBRARIES <lib>...])
#
# Builds <name>.so, a gpubench plugin: a MODULE library without the "lib" prefix whose only
# exported symbol is the entry point (hidden visibility), with its provenance (compiler,
# build type, CUDA architectures) compiled in as GPUBENCH_PLUGIN_BUILD_INFO. Used in-tree and,
# through find_package(gpubench), by plugins in other repositories.
function(gpubench_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "gpubench_add_plugin(${name}): SOURCES is required")
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
    string(APPEND build_info ", ${CMAKE_BUILD_TYPE}")
  endif()
  set(has_cuda FALSE)
  foreach(source IN LISTS ARG_SOURCES)
    if(source MATCHES "\\.cu$")
      set(has_cuda TRUE)
    endif()
  endforeach()
  if(has_cuda)
    get_target_property(archs ${name} CUDA_ARCHITECTURES)
    list(JOIN archs "," archs)  # a ';' would split the compile definition
    # The runner's stream and events must belong to the same CUDA runtime as the plugin's.
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
    string(APPEND build_info ", nvcc ${CMAKE_CUDA_COMPILER_VERSION}, sm ${archs}")
    target_link_libraries(${name} PRIVATE CUDA::cudart)
  endif()
  target_compile_definitions(${name} PRIVATE "GPUBENCH_PLUGIN_BUILD_INFO=\"${build_info}\"")
endfunction()
