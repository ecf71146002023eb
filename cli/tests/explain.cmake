# `alloclab explain` end to end (issue 16) at a point worked by hand: RW at N = 2, A = 4, T = 8
# has p_0 = 4/8, E[steps_1] = 8/3 and TAS = (2 + 8/3)/2 = 7/3; Eq. (2) = 4 ln 2 = 2.77259. The
# text, the Markdown and the JSON carry the same numbers. Invoked by ctest (cli_explain).
function(explain out_var)
  execute_process(COMMAND ${ALLOCLAB} explain --allocator rw --N 2 --A 4 --T 8 --trials 3 ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "explain ${ARGN}: exit ${rc}: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

explain(text)
foreach(expected "TAS = T/N (H_A - H_(A-N))\n      = 8/2 x 0.583333\n      = 2.33333"
                 "E[steps_(N-1)] = T/(A - N + 1)\n      = 8/3\n      = 2.66667"
                 "Eq. (2) = T/N ln(A/(A-N))\n      = 8/2 x ln(4/2)\n      = 2.77259"
                 "sequential: TAS" "lockstep: TAS" "What the model assumes")
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "explain's text lacks '${expected}':\n${text}")
  endif()
endforeach()

explain(md --format md)
string(FIND "${md}" "| TAS | `T/N (H_A - H_(A-N))` | 8/2 x 0.583333 | 2.33333 |" at)
if(at EQUAL -1)
  message(FATAL_ERROR "explain --format md lacks the TAS row:\n${md}")
endif()

explain(json --format json)
string(JSON sections LENGTH "${json}" sections)
set(found "")
math(EXPR last "${sections} - 1")
foreach(i RANGE ${last})
  string(JSON lines LENGTH "${json}" sections ${i} lines)
  math(EXPR lines_last "${lines} - 1")
  foreach(j RANGE ${lines_last})
    string(JSON label GET "${json}" sections ${i} lines ${j} label)
    if(label STREQUAL "TAS")
      string(JSON found GET "${json}" sections ${i} lines ${j} value)
    endif()
  endforeach()
endforeach()
if(NOT found MATCHES "^2\\.3333333333")
  message(FATAL_ERROR "explain --format json: TAS '${found}', expected 7/3")
endif()
string(JSON trials GET "${json}" simulations 0 trials)
if(NOT trials EQUAL 3)
  message(FATAL_ERROR "explain --format json: ${trials} trials, expected 3")
endif()
