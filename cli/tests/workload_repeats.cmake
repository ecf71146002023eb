# workload --repeats R, end to end: rows carry repeats = R; in sequential mode the counts of
# --repeats 3 are those of --repeats 1 (the independent reference: the one-repeat run of the same
# seed); --out treats another R as another point, and rows written before the column existed
# count as one repeat. Invoked by ctest (cli_workload_repeats) with ALLOCLAB and WORK.
cmake_policy(SET CMP0007 NEW)  # lists keep empty elements (empty CSV fields)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

set(grid --allocator queue,rw --workload churn --N 256 --size 256 --pool 1MiB --rounds 2
         --free-fraction 0.25)

# Runs the workload with --format csv; sets <var> to the rows (a list of lines, ';' of the notes
# turned into '|'), the header first.
function(csv_rows var)
  execute_process(COMMAND ${ALLOCLAB} workload ${grid} ${ARGN} --format csv RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloclab workload ${ARGN} failed (${rc}): ${err}")
  endif()
  string(REPLACE ";" "|" out "${out}")
  string(REGEX MATCHALL "[^\n]+" lines "${out}")
  set(${var} "${lines}" PARENT_SCOPE)
endfunction()

# The value of column `key` in every row of `lines` (the columns before the quoted notes hold no
# commas).
function(column var lines key)
  list(GET lines 0 header)
  string(REPLACE "," ";" names "${header}")
  list(FIND names "${key}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no column ${key} in: ${header}")
  endif()
  list(SUBLIST lines 1 -1 rows)
  set(values "")
  foreach(row IN LISTS rows)
    string(REPLACE "," ";" fields "${row}")
    list(GET fields ${at} v)
    list(APPEND values "${v}")
  endforeach()
  set(${var} "${values}" PARENT_SCOPE)
endfunction()

csv_rows(once)
csv_rows(thrice --repeats 3)
# 2 allocators x rounds 0, 1, 2 = 6 rows each.
list(LENGTH thrice n)
if(NOT n EQUAL 7)
  message(FATAL_ERROR "--repeats 3 wrote ${n} lines, expected a header and 6 rows")
endif()
column(repeats "${thrice}" repeats)
if(NOT repeats STREQUAL "3;3;3;3;3;3")
  message(FATAL_ERROR "rows of --repeats 3 say repeats = ${repeats}")
endif()
column(repeats "${once}" repeats)
if(NOT repeats STREQUAL "1;1;1;1;1;1")
  message(FATAL_ERROR "rows without --repeats say repeats = ${repeats}")
endif()
foreach(key requests allocs failed utilisation address_range_bytes atomics_per_op
            retries_per_op steps_mean steps_max)
  column(a "${once}" ${key})
  column(b "${thrice}" ${key})
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${key}: ${a} with one repeat, ${b} with three")
  endif()
endforeach()

# --out: another R is another point.
function(run_out dir expect_in_stdout)
  execute_process(COMMAND ${ALLOCLAB} workload ${grid} ${ARGN} --out ${dir} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloclab workload ${ARGN} --out ${dir} failed (${rc}): ${err}")
  endif()
  string(FIND "${out}" "${expect_in_stdout}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expect_in_stdout}' in: ${out}")
  endif()
endfunction()
run_out(${WORK}/out "2 points written")
run_out(${WORK}/out "2 points written" --repeats 3)
run_out(${WORK}/out "0 points written" --repeats 3)
run_out(${WORK}/out "0 points written" --repeats 1)

# A file written before the repeats column: the same rows with the column cut out. Its points
# are one repeat each, so a run without --repeats has nothing to do.
set(old ${WORK}/old/workloads/sim/churn.csv)
run_out(${WORK}/old "2 points written")
file(READ "${old}" text)
string(FIND "${text}" "\n" end_of_header)
string(SUBSTRING "${text}" 0 ${end_of_header} header)
string(FIND "${header}" ",repeats," at)
string(SUBSTRING "${header}" 0 ${at} before)
string(REGEX MATCHALL "," commas "${before}")
list(LENGTH commas columns_before)
math(EXPR columns_before "${columns_before} + 1")
string(REPEAT "[^,\n]*," ${columns_before} leading)
# Every line's start is a newline (CMake's REGEX REPLACE lets ^ match where each search starts).
string(REGEX REPLACE "\n(${leading})[^,\n]*," "\n\\1" text "\n${text}")
string(SUBSTRING "${text}" 1 -1 text)
if(text MATCHES "repeats")
  message(FATAL_ERROR "the repeats column was not cut out: ${text}")
endif()
file(WRITE "${old}" "${text}")
run_out(${WORK}/old "0 points written")
# New rows have a column the old file lacks: exit 2 naming --out before the first point runs
# (nothing measured is lost), the file untouched.
execute_process(COMMAND ${ALLOCLAB} workload ${grid} --repeats 3 --out ${WORK}/old
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT err MATCHES "^alloclab: error: --out: [^\n]*before the repeats column[^\n]*\n$")
  message(FATAL_ERROR "appending to a file without the repeats column: exit ${rc}, ${out}${err}")
endif()
file(READ "${old}" after)
if(NOT after STREQUAL text)
  message(FATAL_ERROR "the old file changed")
endif()
