# `mpirun -n 3 alloclab sweep` against the same sweep in one process (issue 18): the rows are the
# same (order aside), an interrupted distributed sweep resumes without duplicates, and the
# metadata names the ranks. Invoked by ctest (cli_mpi_sweep), only where CMake found MPI.
# -D ALLOCLAB=... MPIEXEC=... WORK=...

cmake_policy(SET CMP0007 NEW)  # rows end in an empty cell (the device of a sim row)

set(args sweep --allocator rw,rwbm,queue --backend model,sim --N 64..1024*2 --free 0.5,0.1
         --T 1e4 --trials 3 --seed 5)
set(mpi ${MPIEXEC} --oversubscribe -n 3)
file(REMOVE_RECURSE "${WORK}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "exit status ${rc} for ${ARGN}: ${e}")
  endif()
endfunction()

# The rows of a sweep.csv, header first, the rest sorted.
function(sorted_rows file out_var)
  file(STRINGS "${file}" lines)
  list(POP_FRONT lines header)
  list(SORT lines)
  set(${out_var} "${header};${lines}" PARENT_SCOPE)
endfunction()

run(${ALLOCLAB} ${args} --out "${WORK}/one")
run(${mpi} ${ALLOCLAB} ${args} --out "${WORK}/three")
sorted_rows("${WORK}/one/sweep.csv" one)
sorted_rows("${WORK}/three/sweep.csv" three)
list(LENGTH one n)
if(n LESS 100)
  message(FATAL_ERROR "the one-process sweep wrote only ${n} lines")
endif()
if(NOT one STREQUAL three)
  message(FATAL_ERROR "mpirun -n 3 wrote other rows than one process")
endif()
file(READ "${WORK}/three/sweep.json" meta)
string(JSON ranks GET "${meta}" mpi ranks)
if(NOT ranks EQUAL 3)
  message(FATAL_ERROR "sweep.json says ${ranks} ranks, expected 3")
endif()

# Interrupted while rank 0 wrote a job: keep the header, the whole jobs among the first 40 rows
# and 20 characters of the next job's first row (a torn write), then run again. (A job's rows are
# written at once and flushed: a kill leaves whole jobs and at most one torn line.)
file(STRINGS "${WORK}/three/sweep.csv" lines)
function(job_of line out_var)  # the point and backend: the columns before `metric`
  string(REPLACE "," ";" fields "${line}")
  list(SUBLIST fields 0 10 key)
  set(${out_var} "${key}" PARENT_SCOPE)
endfunction()
set(cut 41)
list(GET lines ${cut} next)
job_of("${next}" next_job)
while(cut GREATER 1)
  math(EXPR before "${cut} - 1")
  list(GET lines ${before} prev)
  job_of("${prev}" prev_job)
  if(NOT prev_job STREQUAL next_job)
    break()
  endif()
  set(cut ${before})
endwhile()
list(SUBLIST lines 0 ${cut} kept)
list(GET lines ${cut} torn)
string(SUBSTRING "${torn}" 0 20 torn)
list(JOIN kept "\n" text)
file(WRITE "${WORK}/three/sweep.csv" "${text}\n${torn}")
run(${mpi} ${ALLOCLAB} ${args} --out "${WORK}/three")
sorted_rows("${WORK}/three/sweep.csv" resumed)
if(NOT one STREQUAL resumed)
  list(LENGTH resumed m)
  message(FATAL_ERROR "after the interrupted run resumed: ${m} lines, expected ${n} (the same "
                      "rows, none twice)")
endif()

# The gpu backend where no rank has a GPU is refused on rank 0's one line, exit non-zero.
execute_process(COMMAND ${mpi} ${ALLOCLAB} sweep --allocator rw --backend gpu --N 64 --A 128
                        --T 1e4 --out "${WORK}/gpu"
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(rc EQUAL 0 OR NOT e MATCHES "--backend: gpu requested but none of the 3 MPI ranks has a GPU")
  message(FATAL_ERROR "gpu over ranks: exit ${rc}, stderr: ${e}")
endif()

# Rank 0 failing outside the dealing (an output directory it cannot make) ends the whole job at
# once, not with the workers waiting for it forever.
execute_process(COMMAND ${mpi} ${ALLOCLAB} sweep --allocator rw --backend model --N 64 --A 128
                        --T 1e4 --out /dev/null/cannot-be-a-directory
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e TIMEOUT 60)
if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$" OR NOT e MATCHES "alloclab: error \\(rank 0\\)")
  message(FATAL_ERROR "rank 0 failing: exit '${rc}', stderr: ${e}")
endif()
