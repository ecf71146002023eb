# validate and report on workload rows, end to end: simulator rows written by `alloclab workload
# --format csv` into WORK/workloads/sim/, the hand-made GPU fixture copied beside them (as the main
# job copies reports/data/<gpu>/workloads/), then `validate` (every check passes; their number
# counted by hand) and `report` (the section, with the GPU named); a row that was not verified
# fails validation. Invoked by ctest (cli_workload_report) with ALLOCLAB, SOURCE_DIR and WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/workloads/sim")
file(COPY "${SOURCE_DIR}/validation/tests/fixtures/workloads/fixture-gpu"
     DESTINATION "${WORK}/workloads")

function(run_workload file)
  execute_process(COMMAND ${ALLOCLAB} workload ${ARGN} --format csv
                  OUTPUT_FILE "${WORK}/workloads/sim/${file}" RESULT_VARIABLE rc
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloclab workload ${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()
# 4 alloc rows on 16384 pages (N <= T/4), 2 oom rows on 1024 pages.
run_workload(alloc.csv --allocator queue,rw --workload alloc --N 1024,4096 --size 256 --pool 4MiB)
run_workload(oom.csv --allocator queue,rw --workload oom --size 256 --pool 256KiB --batch 100)

execute_process(COMMAND ${ALLOCLAB} validate ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "validate failed (${rc}): ${err}\n${out}")
endif()
# By hand: alloc 4 rows x (verified, requests, no failure, utilisation) = 16; oom 2 rows x
# (verified, utilisation) + the queue's 2 = 6; the GPU fixture's 17 rows: 17 verified, 8 requests
# (6 alloc + 2 fragmentation), 5 no failure (not the 3 cudamalloc rows), 11 utilisation (6 + 2 +
# 3 oom), 4 for its 2 queue oom rows. 16 + 6 + 45 = 67.
if(NOT out MATCHES "67 checks: 67 pass, 0 expected departures, 0 FAIL")
  message(FATAL_ERROR "unexpected verdicts:\n${out}")
endif()
if(NOT out MATCHES "23 workload rows from" OR NOT out MATCHES "workload oom: every page handed out")
  message(FATAL_ERROR "validate does not name the workload rows or the queue's check:\n${out}")
endif()

find_program(GNUPLOT gnuplot)
if(GNUPLOT)
  execute_process(COMMAND ${ALLOCLAB} report ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "report failed (${rc}): ${err}")
  endif()
  file(READ "${WORK}/report.md" md)
  foreach(expected "<a id=\"allocators-side-by-side\"></a>Allocators side by side"
                   "Fixture GPU \\(hand-made\\)" "sim \\(sequential\\)"
                   "workloads/sim/alloc.csv \\(4 workload rows: sim\\)")
    if(NOT md MATCHES "${expected}")
      message(FATAL_ERROR "report.md lacks '${expected}'")
    endif()
  endforeach()
  if(md MATCHES "No GPU rows" OR NOT EXISTS "${WORK}/figures/workloads-oom-utilisation.svg")
    message(FATAL_ERROR "report.md says there are no GPU rows, or the utilisation plot is missing")
  endif()
else()
  message(STATUS "gnuplot not found: the report part is not checked")
endif()

# A GPU row that was not verified: validation fails (exit 1) and says FAIL. The row adds 4 checks
# (verified, requests, no failure: 1024 pages of 16384, utilisation), only the first failing.
file(WRITE "${WORK}/workloads/bad/alloc.csv"
     "allocator,backend,mode,workload,N,size,pool_bytes,page_bytes,trials,requests,allocs,"
     "alloc_ms,failed,utilisation,verified,device,notes\n"
     "queue,gpu,gpu,alloc,1024,256,4194304,256,1,1024,1024,0.01,0,0.0625,false,Fixture GPU,\n")
execute_process(COMMAND ${ALLOCLAB} validate ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "71 checks: 70 pass, 0 expected departures, 1 FAIL")
  message(FATAL_ERROR "an unverified row: exit ${rc} (expected 1):\n${out}")
endif()

# Neither sweep.csv nor workloads: an input error naming DIR.
execute_process(COMMAND ${ALLOCLAB} validate ${WORK}/empty RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "DIR: " OR NOT out STREQUAL "")
  message(FATAL_ERROR "a directory without rows: exit ${rc}, stderr '${err}', stdout '${out}'")
endif()
message(STATUS "workload rows: validated and reported")
