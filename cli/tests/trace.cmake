# `alloclab trace` end to end (issue 16): Figure 3's case (seven RW threads, two crossing at one
# page) prints its rounds and the one-at-a-time check, --out DIR draws one row of cells per round and
# the pool before in DIR/trace.svg, --format json carries every probe. Invoked by ctest (cli_trace) with ALLOCLAB
# and WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND ${ALLOCLAB} trace --figure 3 --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trace --figure 3: exit ${rc}: ${err}")
endif()
foreach(expected "Figure 3 (paper 000): 7 threads, 16 pages of which 9 free" "before round 1"
                 "a collision" "crossed at page"
                 "7 of the 7 threads take the same page after the same number of probes")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "trace --figure 3 lacks '${expected}':\n${out}")
  endif()
endforeach()
# Rounds printed = rows of the SVG - 1 (the pool before); each row has 16 cells.
string(REGEX MATCHALL "\nround [0-9]+:" rounds "${out}")
list(LENGTH rounds n_rounds)
file(READ ${WORK}/trace.svg svg)
string(REGEX MATCHALL "<rect " rects "${svg}")
list(LENGTH rects n_rects)
math(EXPR expected_rects "(${n_rounds} + 1) * 16")
if(n_rounds EQUAL 0 OR NOT n_rects EQUAL expected_rects)
  message(FATAL_ERROR "${n_rounds} rounds printed, ${n_rects} cells in the SVG (expected "
                      "${expected_rects})")
endif()

execute_process(COMMAND ${ALLOCLAB} trace --allocator rwbm --N 12 --A 20 --T 64 --w 8 --format json
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trace --format json: exit ${rc}: ${err}")
endif()
# Every thread wins exactly once over the rounds.
string(JSON n_json_rounds LENGTH "${json}" rounds)
set(wins 0)
math(EXPR last "${n_json_rounds} - 1")
foreach(r RANGE ${last})
  string(JSON n_probes LENGTH "${json}" rounds ${r} probes)
  math(EXPR last_probe "${n_probes} - 1")
  foreach(k RANGE ${last_probe})
    string(JSON won GET "${json}" rounds ${r} probes ${k} won)
    if(won GREATER_EQUAL 0)
      math(EXPR wins "${wins} + 1")
    endif()
  endforeach()
endforeach()
if(NOT wins EQUAL 12)
  message(FATAL_ERROR "trace --format json: ${wins} pages won, expected 12")
endif()

# Figure 5 (CoRW), lane by lane: the figure's pages, lane 2's t' = 4 marked against the printed 5.
execute_process(COMMAND ${ALLOCLAB} trace --figure 5
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trace --figure 5: exit ${rc}: ${err}")
endif()
foreach(expected "     2  P4 (163)      2  4*  P6 (247)" "the figure prints t' = 5 for lane 2"
                 "lane 0 P1 (80), lane 1 P4 (163), lane 2 P6 (247), lane 3 P2 (81), lane 4 P5 (164), lane 5 P3 (82)")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "trace --figure 5 lacks '${expected}':\n${out}")
  endif()
endforeach()

# gg-tbuddy: one page of 8 splits the root down to a leaf (the left half kept each time), and
# its free merges every level back to one free block.
execute_process(COMMAND ${ALLOCLAB} trace --allocator gg-tbuddy --T 8 --requests 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trace --allocator gg-tbuddy: exit ${rc}: ${err}")
endif()
foreach(expected "alloc 1 page (order 0: a block of 1 page): pages 0..0, 3 splits"
                 "  order  0 B A B B B B B B \n  sem[0..]: 1 1 1 0"
                 "free the block of 1 page at page 0: pages 0..0, 3 merges"
                 "  order  3        A        \n  order  2    B       B    ")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "trace --allocator gg-tbuddy lacks '${expected}':\n${out}")
  endif()
endforeach()

# ouro-p-s: its index queue wrapping around a ring of 4 slots, and the printed full check letting
# a fifth enqueue into four full slots.
execute_process(COMMAND ${ALLOCLAB} trace --allocator ouro-p-s --slots 4 --ops e,e,e,d,d,e,e,e
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}" "enqueue 5: at position 4, slot 0 (the ring wrapped: 4 mod 4)\n  [5][.][3][4]" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "trace --allocator ouro-p-s: exit ${rc}: ${err}\n${out}")
endif()
execute_process(COMMAND ${ALLOCLAB} trace --allocator ouro-p-s --slots 4 --ops e,e,e,e,e --printed-check
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}" "admitted, but the slot holds a live index" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "trace --printed-check: exit ${rc}: ${err}\n${out}")
endif()

# The study mechanisms added for issue 39, end to end: text, JSON and the SVG of each.
foreach(case "--figure;1b" "--figure;1a" "--allocator;gg-ualloc;--ops;a1024x4,f0"
             "--allocator;gallatin;--ops;a16x5,a16x4,f0,f1"
             "--allocator;dynasoar-norot;--ops;a32,a32,a32,f0,f1")
  file(REMOVE_RECURSE "${WORK}/m")
  execute_process(COMMAND ${ALLOCLAB} trace ${case} --out ${WORK}/m
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  execute_process(COMMAND ${ALLOCLAB} trace ${case} --format json
                  RESULT_VARIABLE rc_json OUTPUT_VARIABLE json ERROR_VARIABLE err_json)
  if(NOT rc EQUAL 0 OR NOT rc_json EQUAL 0 OR NOT EXISTS ${WORK}/m/trace.svg)
    message(FATAL_ERROR "trace ${case}: exit ${rc}/${rc_json}: ${err}${err_json}")
  endif()
  string(JSON kind TYPE "${json}")
  if(NOT kind STREQUAL "OBJECT")
    message(FATAL_ERROR "trace ${case} --format json is not one JSON object:\n${json}")
  endif()
endforeach()
# Figure 1(b) by the paper's prose: T4 grows while T0's batch is on its way (E = 6), and the
# word ends at (0, 0, 0) after 43 events.
execute_process(COMMAND ${ALLOCLAB} trace --figure 1b RESULT_VARIABLE rc OUTPUT_VARIABLE out)
foreach(expected "   13 T4      0  6  3       -1  C + E - R = 0 < N: grows"
                 "   43 T7      0  0  0        0  C = 1 >= N: takes 1" "2 growers for 8 requests")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "trace --figure 1b lacks '${expected}':\n${out}")
  endif()
endforeach()
