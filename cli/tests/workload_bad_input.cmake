# Runs `alloclab workload` with bad arguments; each must exit with status 2, print nothing on
# stdout and one line on stderr that names the parameter. Invoked by ctest
# (cli_workload_rejects_bad_input).
set(cases
  "--size|workload --allocator queue --workload alloc --N 10 --size 0 --pool 1MiB"
  "--size|workload --allocator queue --workload alloc --N 10 --size 512 --pool 1MiB"
  "--size|workload --allocator rwbm --workload mixed --N 10 --size 16..4096 --pool 1MiB"
  "--size|workload --allocator rwmalloc --workload mixed --N 10 --size 4096..16 --pool 1MiB"
  "--size|workload --allocator rwmalloc --workload mixed --N 10 --size 16..100 --pool 1MiB"
  "--size|workload --allocator rwmalloc --workload alloc --N 10 --size 16..64 --pool 1MiB"
  "--size|workload --allocator queue --workload alloc --N 10 --size 12kb --pool 1MiB"
  "--pool|workload --allocator queue --workload alloc --N 10 --size 256 --pool 100"
  "--pool|workload --allocator queue --workload alloc --N 10 --size 256 --pool 8XB"
  "--pool|workload --allocator rwmalloc --workload alloc --N 1 --size 300 --pool 300"
  "--page-bytes|workload --allocator queue --workload alloc --N 10 --size 256 --pool 1MiB --page-bytes 0"
  "--free-fraction|workload --allocator queue --workload churn --N 10 --size 256 --pool 1MiB --free-fraction 1.5"
  "--free-fraction|workload --allocator queue --workload churn --N 10 --size 256 --pool 1MiB --free-fraction -0.5"
  "--batch|workload --allocator queue --workload oom --size 256 --pool 1MiB --batch 0"
  "--rounds|workload --allocator queue --workload churn --N 10 --size 256 --pool 1MiB --rounds 0"
  "--workload|workload --allocator queue --workload scaling --N 10 --size 256 --pool 1MiB"
  "--allocator|workload --allocator nope --workload alloc --N 10 --size 256 --pool 1MiB"
  "--allocator|workload --allocator cudamalloc --workload alloc --N 10 --size 256 --pool 1MiB"
  "--backend|workload --allocator queue --backend gpu --workload alloc --N 10 --size 256 --pool 1MiB"
  "--backend|workload --allocator queue --backend fpga --workload alloc --N 10 --size 256 --pool 1MiB"
  "--mode|workload --allocator queue --mode warp --workload alloc --N 10 --size 256 --pool 1MiB"
  "--N|workload --allocator queue --workload alloc --N 0 --size 256 --pool 1MiB"
  "--trials|workload --allocator queue --workload alloc --N 10 --size 256 --pool 1MiB --trials 0")
foreach(case IN LISTS cases)
  string(FIND "${case}" "|" bar)
  string(SUBSTRING "${case}" 0 ${bar} param)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${case}" ${from} -1 argstr)
  separate_arguments(args UNIX_COMMAND "${argstr}")
  execute_process(COMMAND ${ALLOCLAB} ${args}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" err_stripped)
  string(REGEX MATCHALL "\n" newlines "${err_stripped}")
  list(LENGTH newlines n_newlines)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "exit status ${rc} (not 2) for bad input: ${argstr}")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "printed on stdout for bad input ${argstr}: ${out}")
  endif()
  if(NOT n_newlines EQUAL 0)
    message(FATAL_ERROR "more than one line on stderr for ${argstr}: ${err}")
  endif()
  string(FIND "${err}" "${param}" where)
  if(where EQUAL -1)
    message(FATAL_ERROR "stderr does not name ${param} for ${argstr}: ${err}")
  endif()
endforeach()
message(STATUS "all bad workload inputs rejected")
