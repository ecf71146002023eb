# `alloclab check` end to end (issue 38): the CI-sized case over every family, the printed rule's
# bug found and its schedule replayed by `alloclab trace --schedule` (text, JSON, SVG), and bad
# input (exit 2, one line naming the parameter, nothing on stdout). Invoked by ctest
# (check_cli) with ALLOCLAB and WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# The CI case: 3 threads x (alloc:1, free) on a pool of 2 (3 threads cannot all hold a block):
# every family at most 3 preemptions, nulls unchecked (UAlloc's and DynaSOAr's spurious nulls
# under alloclab's rules, docs/checking.md, are asserted by check_tests: DynaSOAr's shows in this
# case); then with nulls checked
# the families without a known one (TBuddy's, under the paper's rule only, is asserted by
# check_tests); then four exhaustive.
execute_process(COMMAND ${ALLOCLAB} check --allocator all --N 3 --ops alloc:1,free --pool 2
                        --preemptions 3 --null-check off --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check --allocator all: exit ${rc}: ${err}\n${out}")
endif()
execute_process(COMMAND ${ALLOCLAB} check
                        --allocator gg-bulk-semaphore,gg-counting-semaphore,gg-tbuddy,ouro-index-queue,bitmap-alloc,gg-ualloc,gallatin,ouro-page-queue
                        --N 3 --ops alloc:1,free --pool 2 --preemptions 3 --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE nulls ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check with nulls, <= 3 preemptions: exit ${rc}: ${err}\n${nulls}")
endif()
foreach(f gg-bulk-semaphore gg-counting-semaphore gg-tbuddy ouro-index-queue bitmap-alloc
          gg-ualloc gallatin dynasoar ouro-page-queue)
  string(REGEX MATCH "\n${f} +[0-9]+ [^\n]* ok\n" row "${out}")
  if(row STREQUAL "")
    message(FATAL_ERROR "check --allocator all: no ok row for ${f}:\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${ALLOCLAB} check
                        --allocator gg-bulk-semaphore,gg-counting-semaphore,ouro-index-queue,bitmap-alloc
                        --N 3 --ops alloc:1,free --pool 2 --preemptions exhaustive --format json
                        --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check with nulls: exit ${rc}: ${err}\n${json}")
endif()
string(JSON n LENGTH "${json}" results)
if(NOT n EQUAL 4)
  message(FATAL_ERROR "check --format json: ${n} results, not 4")
endif()

# The bulk semaphore's printed spin rule: exit 3 and a schedule file, replayed step by step.
execute_process(COMMAND ${ALLOCLAB} check --allocator gg-bulk-semaphore --N 3 --ops alloc:1
                        --pool 8 --rule printed --preemptions exhaustive --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 3 OR NOT EXISTS ${WORK}/gg-bulk-semaphore.schedule)
  message(FATAL_ERROR "check --rule printed: exit ${rc} (expected 3): ${err}\n${out}")
endif()
string(FIND "${out}" "wrong grower" at)
if(at EQUAL -1)
  message(FATAL_ERROR "check --rule printed lacks 'wrong grower':\n${out}")
endif()
execute_process(COMMAND ${ALLOCLAB} trace --schedule ${WORK}/gg-bulk-semaphore.schedule
                        --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}" "violation: wrong grower" at)
if(NOT rc EQUAL 0 OR at EQUAL -1 OR NOT EXISTS ${WORK}/schedule.svg)
  message(FATAL_ERROR "trace --schedule: exit ${rc}: ${err}\n${out}")
endif()
file(STRINGS ${WORK}/gg-bulk-semaphore.schedule line REGEX "^schedule ")
string(REGEX MATCHALL "[0-9]+" steps "${line}")
list(LENGTH steps n_steps)
execute_process(COMMAND ${ALLOCLAB} trace --schedule ${WORK}/gg-bulk-semaphore.schedule
                        --format json
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
string(JSON n_json LENGTH "${json}" steps)
file(READ ${WORK}/schedule.svg svg)
string(REGEX MATCHALL "<rect " rects "${svg}")
list(LENGTH rects n_rects)
if(NOT rc EQUAL 0 OR NOT n_json EQUAL n_steps OR NOT n_rects EQUAL n_steps)
  message(FATAL_ERROR "replay: ${n_steps} scheduled steps, ${n_json} in JSON, ${n_rects} in SVG")
endif()

# Bad input: exit 2, one line on stderr naming the parameter, nothing on stdout.
foreach(case "--N;0;--N" "--preemptions;many;--preemptions"
             "--allocator;nope;--allocator" "--ops;alloc:0;--ops" "--rule;paper;--rule"
             "--null-check;maybe;--null-check")
  list(GET case 0 option)
  list(GET case 1 value)
  list(GET case 2 named)
  execute_process(COMMAND ${ALLOCLAB} check ${option} ${value} --out ${WORK}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "${named}" at)
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines n_lines)
  if(NOT rc EQUAL 2 OR at EQUAL -1 OR NOT out STREQUAL "" OR NOT n_lines EQUAL 1)
    message(FATAL_ERROR "check ${option} ${value}: exit ${rc}, stderr '${err}', stdout '${out}'")
  endif()
endforeach()
execute_process(COMMAND ${ALLOCLAB} check --allocator gg-tbuddy --pool 3 --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "--pool" at)
if(NOT rc EQUAL 2 OR at EQUAL -1)
  message(FATAL_ERROR "check --allocator gg-tbuddy --pool 3: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${ALLOCLAB} trace --schedule ${WORK}/missing.schedule
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "--schedule" at)
if(NOT rc EQUAL 2 OR at EQUAL -1 OR NOT out STREQUAL "")
  message(FATAL_ERROR "trace --schedule missing: exit ${rc}: ${err}")
endif()
