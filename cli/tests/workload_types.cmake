# `alloclab workload --types` end to end (issue 15; studies/dynasoar/, "Typed objects in alloclab
# workload"): oom of one 64 B type on 32 KiB (8 blocks of 4096 B, 512 slots by hand) serves exactly
# 512 objects in both simulator modes, the heap full (utilisation 1, F 0); types 60,64 on two
# blocks of 3840 B in batches of 64 fill all 124 slots (64 + 60) and fail 4; churn's rows keep N
# live objects; --help teaches --types. Invoked by ctest (cli_workload_types).
function(run out_var)
  execute_process(COMMAND ${ALLOCLAB} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloclab ${ARGN}: exit ${rc}: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
# Field `key` of row `row` of a JSON array of rows.
function(field var json row key)
  string(JSON v GET "${json}" ${row} ${key})
  set(${var} "${v}" PARENT_SCOPE)
endfunction()
function(expect_number json row key want)
  field(v "${json}" ${row} ${key})
  if(NOT v EQUAL want)
    message(FATAL_ERROR "row ${row}: ${key} = ${v}, expected ${want}:\n${json}")
  endif()
endfunction()

foreach(mode sequential lockstep)
  run(oom workload --allocator dynasoar,dynasoar-nocoal --types 64 --workload oom --batch 64
      --pool 32KiB --mode ${mode} --format json)
  foreach(row 0 1)
    expect_number("${oom}" ${row} count_at_failure 512)
    expect_number("${oom}" ${row} batches_at_failure 9)
    expect_number("${oom}" ${row} failed 64)
    expect_number("${oom}" ${row} utilisation 1)
    expect_number("${oom}" ${row} heap_blocks 8)
    expect_number("${oom}" ${row} blocks_in_use 8)
    expect_number("${oom}" ${row} blocks_min 8)
    expect_number("${oom}" ${row} slot_fragmentation 0)
    expect_number("${oom}" ${row} page_bytes 64)
    field(verified "${oom}" ${row} verified)
    if(NOT verified STREQUAL "ON")
      message(FATAL_ERROR "row ${row} not verified:\n${oom}")
    endif()
  endforeach()
endforeach()

run(two workload --allocator dynasoar --types 60,64 --workload oom --batch 64 --pool 7680
    --format json)
expect_number("${two}" 0 count_at_failure 124)
expect_number("${two}" 0 failed 4)
expect_number("${two}" 0 utilisation 1)
field(size "${two}" 0 size)
if(NOT size STREQUAL "60,64")
  message(FATAL_ERROR "size = ${size}, expected the types 60,64")
endif()

run(churn workload --allocator dynasoar --types 60,64 --workload churn --N 300 --rounds 3
    --free-fraction 0.5 --pool 64KiB --mode lockstep --format json)
string(JSON rows LENGTH "${churn}")
if(NOT rows EQUAL 4)
  message(FATAL_ERROR "churn --rounds 3: expected 4 rows, got ${rows}:\n${churn}")
endif()
foreach(row 0 1 2 3)
  expect_number("${churn}" ${row} live_objects 300)
  expect_number("${churn}" ${row} blocks_min 6)  # ceil(150 / 64) + ceil(150 / 60) = 3 + 3
endforeach()
expect_number("${churn}" 3 allocs 150)

run(help workload --help)
foreach(part "--types" "N_T = floor(64" "(i mod k)+1")
  string(FIND "${help}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "workload --help does not say '${part}'")
  endif()
endforeach()
