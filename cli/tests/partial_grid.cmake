# A grid with some invalid points: the valid ones are evaluated exactly as on their own, the
# invalid ones are listed with null quantities and the reason in notes, one line on stderr says
# how many were invalid and why, and the exit status is 0. Invoked by ctest
# (cli_partial_grid).

# Runs alloclab; sets out, err (stripped) and checks rc == 0 and a single stderr line.
function(run_alloclab expected_stderr)
  execute_process(COMMAND ${ALLOCLAB} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o
                  ERROR_VARIABLE e)
  string(STRIP "${e}" e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "exit status ${rc} for ${ARGN}: ${e}")
  endif()
  string(FIND "${e}" "\n" newline)
  if(expected_stderr STREQUAL "")
    if(NOT e STREQUAL "")
      message(FATAL_ERROR "unexpected stderr for ${ARGN}: ${e}")
    endif()
  elseif(NOT newline EQUAL -1 OR NOT e MATCHES "${expected_stderr}")
    message(FATAL_ERROR "stderr of ${ARGN} is not one line matching '${expected_stderr}': ${e}")
  endif()
  set(out "${o}" PARENT_SCOPE)
endfunction()

function(expect what actual expected)
  if(NOT "${actual}" STREQUAL "${expected}")
    message(FATAL_ERROR "${what}: got '${actual}', expected '${expected}'")
  endif()
endfunction()

# model: N = 8192 exceeds A = 5000 (invalid), not A = 10000.
run_alloclab("1 of 2 grid points invalid.*--N: N=8192 exceeds A=5000"
  model --allocator rw --N 8192 --A 5000,10000 --T 1e6 --format json)
set(grid "${out}")
run_alloclab("" model --allocator rw --N 8192 --A 10000 --T 1e6 --format json)
set(alone "${out}")
string(JSON n LENGTH "${grid}")
expect("model records" "${n}" 2)
string(JSON type TYPE "${grid}" 0 tas)
expect("tas of the invalid point" "${type}" NULL)
string(JSON type TYPE "${grid}" 0 was_bound)
expect("was_bound of the invalid point" "${type}" NULL)
string(JSON note GET "${grid}" 0 notes 0)
string(FIND "${note}" "--N: N=8192 exceeds A=5000" where)
expect("note of the invalid point starts with the reason" "${where}" 0)
foreach(key tas was was_bound tas_approx)
  string(JSON in_grid GET "${grid}" 1 ${key})
  string(JSON on_own GET "${alone}" 0 ${key})
  expect("${key} at A=10000 in the grid and on its own" "${in_grid}" "${on_own}")
endforeach()

# The same in CSV: the invalid point's quantities are empty, its note holds the reason.
run_alloclab("1 of 2 grid points invalid" model --allocator rw --N 8192 --A 5000,10000 --T 1e6
  --format csv)
string(REGEX MATCH "\nrw,8192,5000,[^\n]*" row "${out}")
if(NOT row MATCHES ",,.*--N: N=8192 exceeds A=5000")
  message(FATAL_ERROR "csv row of the invalid point: ${row}")
endif()

# simulate (T outer, A inner): A = 2000 exceeds T = 1000; 2^50 pages do not fit in memory (--T).
run_alloclab("3 of 4 grid points invalid.*--A: A=2000 exceeds T=1000.*--T"
  simulate --allocator rw --N 100 --A 50,2000 --T 1000,2^50 --format json)
string(JSON n LENGTH "${out}")
expect("simulate records" "${n}" 4)
string(JSON type TYPE "${out}" 0 tas)
expect("tas of the runnable point" "${type}" NUMBER)
string(JSON note GET "${out}" 1 notes 0)
string(FIND "${note}" "--A: A=2000 exceeds T=1000" where)
expect("note of A > T" "${where}" 0)
string(JSON note GET "${out}" 2 notes 0)
string(FIND "${note}" "--T: simulating N=100 A=50 T=1125899906842624 needs" where)
expect("note of the point too big for memory" "${where}" 0)
message(STATUS "partial grids: valid points evaluated, invalid ones null with the reason")
