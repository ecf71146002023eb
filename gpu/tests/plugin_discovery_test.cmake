# Configure-time discovery of plug-in allocators (cmake/AlloclabPlugins.cmake), on fake plug-in
# headers written here: which ALLOCLAB_PLUGIN lines are found, what the generated files say, and
# the one-line errors. No compiler, no device.
#   cmake -DMODULE=<cmake/AlloclabPlugins.cmake> -DWORK=<scratch dir> -P plugin_discovery_test.cmake
# With -DCASE=<name> it runs one failing configuration only (the test runs itself for each).
cmake_minimum_required(VERSION 3.25)
include("${MODULE}")

# expect("what went wrong" <if condition...>)
macro(expect what)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "plugin_discovery_test: ${what}")
  endif()
endmacro()

function(write path text)
  file(WRITE "${path}" "${text}")
endfunction()

# The failing configurations, one per run of this script.
if(DEFINED CASE)
  set(dir "${WORK}/case-${CASE}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  if(CASE STREQUAL "missing")
    alloclab_find_plugins(found PATHS "${dir}/nowhere.cuh")
  elseif(CASE STREQUAL "no_line")
    write("${dir}/plain.cuh" "struct Plain {};\n// ALLOCLAB_PLUGIN(Plain, \"plain\") in a comment\n")
    alloclab_find_plugins(found PATHS "${dir}/plain.cuh")
  elseif(CASE STREQUAL "empty_dir")
    write("${dir}/helper.cuh" "inline int helper() { return 1; }\n")
    alloclab_find_plugins(found PATHS "${dir}")
  elseif(CASE STREQUAL "bad_name")
    write("${dir}/bad.cuh" "ALLOCLAB_PLUGIN(Bad, \"Bad Name\")\n")
    alloclab_find_plugins(found PATHS "${dir}/bad.cuh")
  elseif(CASE STREQUAL "warp_name")
    write("${dir}/w.cuh" "ALLOCLAB_PLUGIN(W, \"fast-warp\")\n")
    alloclab_find_plugins(found PATHS "${dir}/w.cuh")
  elseif(CASE STREQUAL "twice")
    write("${dir}/a.cuh" "ALLOCLAB_PLUGIN(A, \"same\")\n")
    write("${dir}/b.cuh" "ALLOCLAB_PLUGIN(B, \"same\")\n")
    alloclab_find_plugins(found PATHS "${dir}")
  elseif(CASE STREQUAL "split_line")
    write("${dir}/s.cuh" "ALLOCLAB_PLUGIN(S,\n  \"split\")\n")
    alloclab_find_plugins(found PATHS "${dir}/s.cuh")
  endif()
  return()
endif()

# A directory of plug-ins (one header with two, one with one in a namespace, a helper without,
# a subdirectory that is not read) and a header given by name elsewhere.
set(root "${WORK}/fake")
file(REMOVE_RECURSE "${root}")
file(MAKE_DIRECTORY "${root}/dir/sub" "${root}/elsewhere")
write("${root}/dir/alpha.cuh" "#pragma once\n// ALLOCLAB_PLUGIN(NotThis, \"commented\")\nnamespace mine { struct Alpha {}; }\n  ALLOCLAB_PLUGIN(mine::Alpha, \"alpha\")\n")
write("${root}/dir/two.cuh" "struct Beta {};\nstruct Gamma {};\nALLOCLAB_PLUGIN(Beta, \"beta\")\nALLOCLAB_PLUGIN( Gamma , \"gamma_2-x\" )\n")
write("${root}/dir/helper.cuh" "inline int helper() { return 1; }\n")
write("${root}/dir/notes.txt" "ALLOCLAB_PLUGIN(Txt, \"txt\")\n")
write("${root}/dir/sub/deep.cuh" "ALLOCLAB_PLUGIN(Deep, \"deep\")\n")
# x declares no per-warp variant (read from the text: the build without CUDA must know it).
write("${root}/elsewhere/x.h" "struct X {\n  static constexpr bool per_warp = false;\n};\nALLOCLAB_PLUGIN(X, \"x\")\n")

# Relative paths are taken from BASE.
alloclab_find_plugins(found PATHS "dir" "${root}/elsewhere/x.h" BASE "${root}")
set(expected
    "alpha|mine::Alpha|${root}/dir/alpha.cuh|1"
    "beta|Beta|${root}/dir/two.cuh|1"
    "gamma_2-x|Gamma|${root}/dir/two.cuh|1"
    "x|X|${root}/elsewhere/x.h|0")
expect("found '${found}', expected '${expected}'" found STREQUAL expected)

# The generated files: one .cu per plug-in (its header by absolute path, the registration with
# the header named from SOURCE_ROOT), and every plug-in declared by name.
set(out "${WORK}/generated")
file(REMOVE_RECURSE "${out}")
alloclab_write_plugin_sources("${found}" DIR "${out}" SOURCE_ROOT "${root}"
                              CUDA_SOURCES cu NAMES_SOURCE names)
set(expected_cu "${out}/plugin_alpha.cu" "${out}/plugin_beta.cu" "${out}/plugin_gamma_2_x.cu"
                "${out}/plugin_x.cu")
expect("generated '${cu}', expected '${expected_cu}'" cu STREQUAL expected_cu)
file(READ "${out}/plugin_alpha.cu" alpha)
string(FIND "${alpha}" "#include \"${root}/dir/alpha.cuh\"" at)
expect("plugin_alpha.cu does not include its header: ${alpha}" NOT at EQUAL -1)
string(FIND "${alpha}" "ALLOCLAB_REGISTER_PLUGIN(mine::Alpha, \"alpha\", \"dir/alpha.cuh\")" at)
expect("plugin_alpha.cu does not register mine::Alpha: ${alpha}" NOT at EQUAL -1)
file(READ "${names}" declared)
foreach(line
    "ALLOCLAB_DECLARE_PLUGIN(alpha, \"alpha\", \"mine::Alpha\", \"dir/alpha.cuh\", 1)"
    "ALLOCLAB_DECLARE_PLUGIN(gamma_2_x, \"gamma_2-x\", \"Gamma\", \"dir/two.cuh\", 1)"
    "ALLOCLAB_DECLARE_PLUGIN(x, \"x\", \"X\", \"elsewhere/x.h\", 0)")
  string(FIND "${declared}" "${line}" at)
  expect("plugin_names.cpp lacks '${line}': ${declared}" NOT at EQUAL -1)
endforeach()
foreach(absent "commented" "deep" "txt")
  string(FIND "${declared}" "\"${absent}\"" at)
  expect("plugin_names.cpp declares '${absent}'" at EQUAL -1)
endforeach()

# Unchanged text: the files are not written again (nothing rebuilds).
file(TIMESTAMP "${out}/plugin_alpha.cu" before "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
alloclab_write_plugin_sources("${found}" DIR "${out}" SOURCE_ROOT "${root}"
                              CUDA_SOURCES cu NAMES_SOURCE names)
file(TIMESTAMP "${out}/plugin_alpha.cu" after "%s")
expect("plugin_alpha.cu was rewritten with the same text" before STREQUAL after)

# Each bad configuration stops with one line that names what is wrong.
foreach(case_and_words
    "missing|nowhere.cuh does not exist"
    "no_line|plain.cuh has no line ALLOCLAB_PLUGIN"
    "empty_dir|has a line ALLOCLAB_PLUGIN"
    "bad_name|plug-in name 'Bad Name' must be"
    "warp_name|plug-in name 'fast-warp' must be"
    "twice|plug-in name 'same' declared twice"
    "split_line|write ALLOCLAB_PLUGIN(Type, \"name\") on one line")
  string(REPLACE "|" ";" pair "${case_and_words}")
  list(GET pair 0 case)
  list(GET pair 1 words)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DMODULE=${MODULE} -DWORK=${WORK} -DCASE=${case}
            -P ${CMAKE_CURRENT_LIST_FILE}
    RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_QUIET)
  expect("case ${case} was accepted" NOT status EQUAL 0)
  string(REGEX REPLACE "[ \t\n]+" " " err "${err}")  # CMake wraps its messages
  string(FIND "${err}" "ALLOCLAB_PLUGINS: " at)
  expect("case ${case}: no ALLOCLAB_PLUGINS message in: ${err}" NOT at EQUAL -1)
  string(FIND "${err}" "${words}" at)
  expect("case ${case}: '${words}' not in: ${err}" NOT at EQUAL -1)
endforeach()
message(STATUS "plugin_discovery_test: passed")
