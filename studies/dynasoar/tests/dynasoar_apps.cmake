# `alloclab wator` and `alloclab linux-scalability` end to end (issue 15). linux-scalability on
# 64 KiB of 64 B objects (16 blocks, 1024 slots) with 100 threads: n_max = 10 by hand (1000 <=
# 1024 < 1100), the 11th batch serves the 24 slots left. Wa-Tor: one CSV row per r and one JSON
# object per iteration. Invoked by ctest (cli_dynasoar_apps).
function(run out_var)
  execute_process(COMMAND ${ALLOCLAB} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloclab ${ARGN}: exit ${rc}: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
function(expect text part)
  string(FIND "${text}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${part}' in:\n${text}")
  endif()
endfunction()

run(ls linux-scalability --pool 64KiB --N 100 --format json)
expect("${ls}" "\"n_max\": 10,")
expect("${ls}" "\"allocated\": 1024,")
expect("${ls}" "\"failed\": 76,")
expect("${ls}" "\"blocks_left\": 0,")
expect("${ls}" "\"verified\": true")

# Threads mode (not deterministic, but out of memory is exact): the same counts by hand.
run(lst linux-scalability --pool 64KiB --N 100 --mode threads --threads 3 --format json)
expect("${lst}" "\"mode\": \"threads\",")
expect("${lst}" "\"host_threads\": 3,")
expect("${lst}" "\"n_max\": 10,")
expect("${lst}" "\"allocated\": 1024,")
expect("${lst}" "\"failed\": 76,")
expect("${lst}" "\"blocks_left\": 0,")
expect("${lst}" "\"verified\": true")
run(wt wator --width 16 --height 16 --iterations 20 --mode threads --threads 2 --format csv)
expect("${wt}" "dynasoar,5,threads,2,\"60,64\",256,")

run(wator wator --width 16 --height 16 --iterations 20 --retries 1,5 --format csv)
string(REGEX MATCHALL "\n[^\n]+" lines "${wator}")
list(LENGTH lines rows)
if(NOT rows EQUAL 2)
  message(FATAL_ERROR "wator --retries 1,5: expected 2 rows, got ${rows}:\n${wator}")
endif()
expect("${wator}" "steady_fragmentation")
expect("${wator}" "dynasoar,1,lockstep,\"60,64\",256,")
expect("${wator}" "dynasoar,5,lockstep,\"60,64\",256,")

run(per wator --width 16 --height 16 --iterations 3 --per-iteration --format json)
expect("${per}" "\"iteration\": 3,")
expect("${per}" "\"fragmentation\":")

run(help wator --help)
expect("${help}" "--types")
expect("${help}" "--retries")
expect("${help}" "NOT deterministic")
expect("${help}" "--threads")
