# Plug-in allocators (docs/plugin-allocators.md): find the ALLOCLAB_PLUGIN(Type, "name") lines in
# the headers alloclab is pointed at, and write the files that compile each into the GPU backend.
# Usable from a project (gpu/CMakeLists.txt) and in script mode (cmake -P, the discovery test).
#
#   alloclab_find_plugins(<out> PATHS <dir-or-header>... [BASE <dir>])
#     Each path is a header, or a directory whose *.cuh files (not those of its subdirectories)
#     are read; a relative path is taken from BASE (default: the current source directory). A
#     line that starts (after blanks) with ALLOCLAB_PLUGIN(Type, "name") declares plug-in "name"
#     of type Type. <out> is a list of records "name|Type|/absolute/header|warp", warp 0 where
#     the header declares `static constexpr bool per_warp = false;` or `... free_from_any_thread =
#     false;` (no per-warp variant: plugin.cuh), else 1; read from the text, so that a build
#     without CUDA lists exactly the allocators a CUDA build runs. Stops with one line
#     (FATAL_ERROR) naming the path for: a path that does not exist, a header given by name or a
#     directory without such a line, a name that is not 1-32 of a-z, 0-9, '_', '-' starting with a
#     letter or digit or that ends in -warp, a name declared twice.
#
#   alloclab_write_plugin_sources(<records> DIR <dir> [SOURCE_ROOT <dir>] CUDA_SOURCES <out>
#                                 NAMES_SOURCE <out>)
#     Writes <dir>/plugin_<name>.cu for each plug-in (its header and the registration of its
#     GPU entries: gpu/src/plugin_entry.cuh) and <dir>/plugin_names.cpp (every plug-in declared by
#     name, with or without CUDA, so that the command line and the row readers know it). Files
#     are rewritten only when their text changes. Headers under SOURCE_ROOT are named relative to
#     it in descriptions.

set(ALLOCLAB_PLUGIN_LINE_REGEX "^[ \t]*ALLOCLAB_PLUGIN[ \t]*\\(")
set(ALLOCLAB_PLUGIN_ARGS_REGEX
    "^[ \t]*ALLOCLAB_PLUGIN[ \t]*\\([ \t]*([A-Za-z_][A-Za-z0-9_:]*)[ \t]*,[ \t]*\"([^\"]*)\"[ \t]*\\)")

function(_alloclab_plugin_fail message)
  message(FATAL_ERROR "ALLOCLAB_PLUGINS: ${message}")
endfunction()

# Appends the records of `header` to the list named by `out_var`; `required`: a header without a
# declaration is an error (a header given by name).
function(_alloclab_plugins_of_header header required out_var)
  file(STRINGS "${header}" lines REGEX "${ALLOCLAB_PLUGIN_LINE_REGEX}")
  set(records ${${out_var}})
  set(found 0)
  file(READ "${header}" text)
  set(warp 1)
  if(text MATCHES "static[ \t]+constexpr[ \t]+bool[ \t]+(per_warp|free_from_any_thread)[ \t]*=[ \t]*false")
    set(warp 0)
  endif()
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "${ALLOCLAB_PLUGIN_ARGS_REGEX}")
      _alloclab_plugin_fail("${header}: cannot read '${line}': write ALLOCLAB_PLUGIN(Type, \"name\") on one line")
    endif()
    set(type "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    string(LENGTH "${name}" length)
    if(NOT name MATCHES "^[a-z0-9][a-z0-9_-]*$" OR length GREATER 32 OR name MATCHES "-warp$")
      _alloclab_plugin_fail("${header}: plug-in name '${name}' must be 1-32 of a-z, 0-9, '_', '-', start with a letter or digit and not end in -warp")
    endif()
    list(APPEND records "${name}|${type}|${header}|${warp}")
    math(EXPR found "${found} + 1")
  endforeach()
  if(required AND found EQUAL 0)
    _alloclab_plugin_fail("${header} has no line ALLOCLAB_PLUGIN(Type, \"name\")")
  endif()
  set(${out_var} "${records}" PARENT_SCOPE)
endfunction()

function(alloclab_find_plugins out_var)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "BASE" "PATHS")
  if(NOT ARG_BASE)
    set(ARG_BASE "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  set(records "")
  foreach(path IN LISTS ARG_PATHS)
    if(path STREQUAL "")
      continue()
    endif()
    get_filename_component(absolute "${path}" ABSOLUTE BASE_DIR "${ARG_BASE}")
    if(IS_DIRECTORY "${absolute}")
      file(GLOB headers LIST_DIRECTORIES false "${absolute}/*.cuh")
      list(SORT headers)
      set(before "${records}")
      foreach(header IN LISTS headers)
        _alloclab_plugins_of_header("${header}" FALSE records)
      endforeach()
      if(records STREQUAL before)
        _alloclab_plugin_fail("no *.cuh in ${absolute} has a line ALLOCLAB_PLUGIN(Type, \"name\")")
      endif()
      if(CMAKE_PROJECT_NAME)  # a header added there: configure again
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${absolute}")
      endif()
    elseif(EXISTS "${absolute}")
      _alloclab_plugins_of_header("${absolute}" TRUE records)
    else()
      _alloclab_plugin_fail("${path} does not exist (a plug-in header, or a directory of them)")
    endif()
  endforeach()
  # One name, one plug-in.
  set(seen "")
  foreach(record IN LISTS records)
    string(REPLACE "|" ";" fields "${record}")
    list(GET fields 0 name)
    list(GET fields 2 header)
    if(name IN_LIST seen)
      _alloclab_plugin_fail("plug-in name '${name}' declared twice (again in ${header})")
    endif()
    list(APPEND seen "${name}")
    if(CMAKE_PROJECT_NAME)  # its ALLOCLAB_PLUGIN line changed: configure again
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${header}")
    endif()
  endforeach()
  set(${out_var} "${records}" PARENT_SCOPE)
endfunction()

# C++ string literal of `text` (headers are paths: backslashes and quotes escaped).
function(_alloclab_c_string text out_var)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out_var} "\"${text}\"" PARENT_SCOPE)
endfunction()

function(alloclab_write_plugin_sources records)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "DIR;SOURCE_ROOT;CUDA_SOURCES;NAMES_SOURCE" "")
  set(banner "// Generated by cmake/AlloclabPlugins.cmake when alloclab was configured: do not edit.")
  set(cuda_sources "")
  set(declarations "")
  foreach(record IN LISTS records)
    string(REPLACE "|" ";" fields "${record}")
    list(GET fields 0 name)
    list(GET fields 1 type)
    list(GET fields 2 header)
    list(GET fields 3 warp)
    set(shown "${header}")
    if(ARG_SOURCE_ROOT)
      file(RELATIVE_PATH relative "${ARG_SOURCE_ROOT}" "${header}")
      if(NOT relative MATCHES "^\\.\\./")
        set(shown "${relative}")
      endif()
    endif()
    _alloclab_c_string("${header}" header_literal)
    _alloclab_c_string("${shown}" shown_literal)
    string(MAKE_C_IDENTIFIER "${name}" id)
    set(cu "${ARG_DIR}/plugin_${id}.cu")
    file(CONFIGURE OUTPUT "${cu}" CONTENT
"${banner}
// The GPU entries of plug-in \"ext-${name}\" (and its per-warp variant) from ${shown}.
#include \"plugin_entry.cuh\"

#include ${header_literal}

ALLOCLAB_REGISTER_PLUGIN(${type}, \"${name}\", ${shown_literal})
" @ONLY)
    list(APPEND cuda_sources "${cu}")
    string(APPEND declarations
           "ALLOCLAB_DECLARE_PLUGIN(${id}, \"${name}\", \"${type}\", ${shown_literal}, ${warp})\n")
  endforeach()
  set(names "${ARG_DIR}/plugin_names.cpp")
  file(CONFIGURE OUTPUT "${names}" CONTENT
"${banner}
// The plug-ins found (docs/plugin-allocators.md), declared by name when the program starts, with
// or without CUDA: their GPU files (plugin_<name>.cu) add what their headers declare.
#include \"alloclab/core/plugin_declaration.hpp\"

${declarations}" @ONLY)
  set(${ARG_CUDA_SOURCES} "${cuda_sources}" PARENT_SCOPE)
  set(${ARG_NAMES_SOURCE} "${names}" PARENT_SCOPE)
endfunction()
