# `alloclab list` against references it does not compute: the allocator names per backend, per
# request kind and per bit choice read from the registry's own source (core/algorithm.hpp, parsed
# here with regular expressions), the studies from the folders under studies/, and a few facts
# worked by hand (the join comes from hash-join, paper 000 is ICS'22). Bad values exit 2 with one
# line on stderr naming the option and nothing on stdout. Invoked by ctest (cli_list).

cmake_policy(SET CMP0057 NEW)  # if(... IN_LIST ...)

# --- the reference: kAlgorithms as written in core/algorithm.hpp --------------------------------
file(READ ${SOURCE_DIR}/core/include/alloclab/core/algorithm.hpp header)
string(FIND "${header}" "kAlgorithms = std::to_array" begin)
string(SUBSTRING "${header}" ${begin} -1 header)
string(FIND "${header}" "});" end)
string(SUBSTRING "${header}" 0 ${end} header)
# CMake lists split at ';' and group at '[' ']': neither matters to the fields read here.
string(REPLACE ";" "," header "${header}")
string(REPLACE "[" "(" header "${header}")
string(REPLACE "]" ")" header "${header}")
# One list element per entry: each entry opens with "{Algorithm::".
string(REPLACE "{Algorithm::" ";" entries "${header}")
list(POP_FRONT entries)  # the text before the first entry
set(expected_model "")
set(expected_sim "")
set(expected_gpu "")
set(expected_pages "")
set(expected_rotated "")
set(count 0)
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "^[a-z_]+,[ \n]*\"([a-z0-9-]+)\"")
    message(FATAL_ERROR "list.cmake: cannot read an entry's name in:\n${entry}")
  endif()
  set(name "${CMAKE_MATCH_1}")
  math(EXPR count "${count} + 1")
  # Capabilities::backends defaults to every backend; an entry that sets it names its backends.
  foreach(backend model sim gpu)
    if(entry MATCHES "\\.backends = ([^,}]*)")
      string(FIND "${CMAKE_MATCH_1}" "BackendKind::${backend}" on)
    else()
      set(on 0)
    endif()
    if(NOT on EQUAL -1)
      list(APPEND expected_${backend} "${name}")
    endif()
  endforeach()
  if(entry MATCHES "\\.requests = RequestKind::pages")
    list(APPEND expected_pages "${name}")
  endif()
  # Every bit choice, or a set that spells out rotated.
  if(entry MATCHES "\\.bit_choices = ([^,}]*)" AND CMAKE_MATCH_1 MATCHES "kEveryBitChoice|rotated")
    list(APPEND expected_rotated "${name}")
  endif()
endforeach()
if(count LESS 20 OR NOT "cudamalloc" IN_LIST expected_gpu OR "cudamalloc" IN_LIST expected_sim)
  message(FATAL_ERROR "list.cmake: the registry parsed wrong (${count} entries; gpu: "
                      "${expected_gpu}; sim: ${expected_sim})")
endif()

function(alloclab out_var)
  execute_process(COMMAND ${ALLOCLAB} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloclab ${ARGN}: exit ${rc}: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# --names: one name a line, in the registry's order, exactly the reference's.
function(expect_names expected)
  alloclab(out list ${ARGN} --names)
  string(REGEX REPLACE "\n$" "" out "${out}")
  string(REPLACE "\n" ";" got "${out}")
  if(NOT "${got}" STREQUAL "${expected}")
    list(JOIN ARGN " " options)
    message(FATAL_ERROR "alloclab list ${options} --names:\n  got      ${got}\n"
                        "  expected ${expected}")
  endif()
endfunction()
foreach(backend model sim gpu)
  expect_names("${expected_${backend}}" --backend ${backend})
endforeach()
expect_names("${expected_pages}" --requests pages)
expect_names("${expected_rotated}" --bit-choice rotated)
# A list is "any of": sim or gpu is every allocator on either.
set(expected_sim_gpu "")
alloclab(all list --names)
string(REGEX REPLACE "\n$" "" all "${all}")
string(REPLACE "\n" ";" all "${all}")
list(LENGTH all all_count)
if(NOT all_count EQUAL count)
  message(FATAL_ERROR "alloclab list --names: ${all_count} allocators, the registry has ${count}")
endif()
foreach(name IN LISTS all)
  if(name IN_LIST expected_sim OR name IN_LIST expected_gpu)
    list(APPEND expected_sim_gpu "${name}")
  endif()
endforeach()
expect_names("${expected_sim_gpu}" --backend sim,gpu)
# Filters combine: the GPU's allocators of n pages.
set(expected_gpu_pages "")
foreach(name IN LISTS expected_gpu)
  if(name IN_LIST expected_pages)
    list(APPEND expected_gpu_pages "${name}")
  endif()
endforeach()
expect_names("${expected_gpu_pages}" --backend gpu --requests pages)

# CSV: a header and one row per GPU allocator, its name first; cudamalloc's row worked by hand.
alloclab(csv list --backend gpu --format csv)
if(NOT csv MATCHES "^name,backends,requests,bit_choices,description,notes\n")
  message(FATAL_ERROR "alloclab list --format csv: header:\n${csv}")
endif()
if(NOT csv MATCHES "\ncudamalloc,gpu,bytes,lowest,")
  message(FATAL_ERROR "alloclab list --format csv: no 'cudamalloc,gpu,bytes,lowest,' row:\n${csv}")
endif()
string(REGEX MATCHALL "\n[a-z0-9-]+," rows "${csv}")
list(LENGTH rows csv_rows)
list(LENGTH expected_gpu gpu_count)
if(NOT csv_rows EQUAL gpu_count)
  message(FATAL_ERROR "alloclab list --backend gpu --format csv: ${csv_rows} rows, expected "
                      "${gpu_count}")
endif()
# JSON: an array of the same length, rwbm with every bit choice.
alloclab(json list --backend gpu --format json)
string(JSON json_count LENGTH "${json}")
if(NOT json_count EQUAL gpu_count)
  message(FATAL_ERROR "alloclab list --format json: ${json_count} objects, expected ${gpu_count}")
endif()
list(FIND expected_gpu rwbm at)
string(JSON choices GET "${json}" ${at} bit_choices)
if(NOT choices STREQUAL "lowest|random|rotated")
  message(FATAL_ERROR "alloclab list --format json: rwbm's bit_choices '${choices}'")
endif()

# Studies: the folders under studies/ that hold a CMakeLists.txt, each once.
file(GLOB dirs LIST_DIRECTORIES true ${SOURCE_DIR}/studies/*)
set(folders "")
foreach(dir IN LISTS dirs)
  if(IS_DIRECTORY ${dir} AND EXISTS ${dir}/CMakeLists.txt)
    get_filename_component(folder ${dir} NAME)
    list(APPEND folders ${folder})
  endif()
endforeach()
alloclab(studies list --studies --names)
string(REGEX REPLACE "\n$" "" studies "${studies}")
string(REPLACE "\n" ";" studies "${studies}")
list(SORT studies)
list(SORT folders)
if(NOT "${studies}" STREQUAL "${folders}" OR NOT "pham" IN_LIST studies)
  message(FATAL_ERROR "alloclab list --studies --names: ${studies}; folders: ${folders}")
endif()
alloclab(studies_csv list --what studies --format csv)
if(NOT studies_csv MATCHES "\npham,[^\n]*Pham[^\n]*ICS'22 \\(2022\\)")
  message(FATAL_ERROR "alloclab list --what studies: no pham row citing ICS'22 (2022):\n"
                      "${studies_csv}")
endif()

# Commands: the engine's have no study; the join is hash-join's, the semaphore bench
# Gelado & Garland's.
alloclab(commands list --commands --format csv)
foreach(row "\nlist,Models and simulation,," "\njoin,Experiments,hash-join,"
            "\nsemaphore,Experiments,gelado-garland," "\nsweep,Sweeps and reports,,")
  string(FIND "${commands}" "${row}" at)
  if(at EQUAL -1)
    string(REPLACE "\n" "" row "${row}")
    message(FATAL_ERROR "alloclab list --commands: no row '${row}':\n${commands}")
  endif()
endforeach()

# Bad values: exit 2, one line on stderr naming the option, nothing on stdout.
foreach(case "--backend|list --backend tpu" "--backend|list --backend ,"
             "--requests|list --requests page" "--bit-choice|list --bit-choice best"
             "--what|list --what things" "--backend|list --studies --backend gpu"
             "--requests|list --what commands --requests pages" "--format|list --format xml"
             "--studies|list --studies --commands" "--what|list --what studies --studies")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 parameter)
  list(GET parts 1 command)
  separate_arguments(args UNIX_COMMAND "${command}")
  execute_process(COMMAND ${ALLOCLAB} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  string(REGEX REPLACE "\n$" "" err "${err}")
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR err MATCHES "\n")
    message(FATAL_ERROR "alloclab ${command}: exit ${rc}, stdout '${out}', stderr '${err}' "
                        "(expected exit 2, no stdout, one line)")
  endif()
  string(FIND "${err}" "${parameter}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "alloclab ${command}: '${err}' does not name ${parameter}")
  endif()
endforeach()
