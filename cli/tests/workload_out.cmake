# workload --out DIR, end to end: rows appended to DIR/workloads/sim/churn.csv, a second run over
# a larger grid runs only the new points (resume), and validate DIR reads them. The row counts
# are worked out by hand: a churn point with --rounds 2 writes 3 rows (rounds 0, 1, 2).
# Invoked by ctest (cli_workload_out) with ALLOCLAB and WORK.
file(REMOVE_RECURSE "${WORK}")

function(run_workload expect_in_stdout)
  execute_process(COMMAND ${ALLOCLAB} workload ${ARGN} --out ${WORK} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloclab workload ${ARGN} failed (${rc}): ${err}")
  endif()
  string(FIND "${out}" "${expect_in_stdout}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expect_in_stdout}' in: ${out}")
  endif()
endfunction()

function(expect_lines n)
  file(STRINGS "${WORK}/workloads/sim/churn.csv" lines)
  list(LENGTH lines count)
  if(NOT count EQUAL n)
    message(FATAL_ERROR "churn.csv has ${count} lines, expected ${n}")
  endif()
endfunction()

set(grid --workload churn --size 256 --pool 1MiB --rounds 2 --free-fraction 0.25)
# 2 allocators x 2 N = 4 points: 1 header + 12 rows.
run_workload("4 points written" --allocator queue,rw --N 256,512 ${grid})
expect_lines(13)
# One allocator more: its 2 points run, the 4 done are skipped: 1 + 18 rows.
run_workload("2 points written" --allocator queue,rw,rwbm --N 256,512 ${grid})
expect_lines(19)
# The same grid again: nothing to do.
run_workload("0 points written" --allocator queue,rw,rwbm --N 256,512 ${grid})
expect_lines(19)
# Another seed is another measurement.
run_workload("1 points written" --allocator queue --N 256 --seed 2 ${grid})
expect_lines(22)

execute_process(COMMAND ${ALLOCLAB} validate ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "validate failed (${rc}): ${err}\n${out}")
endif()
# 21 rows, each checked for verified = true (churn has no other exact check).
string(FIND "${out}" "21 checks: 21 pass" at)
if(at EQUAL -1)
  message(FATAL_ERROR "expected 21 checks, all passing: ${out}")
endif()
