# The explorer page in headless Chromium (issue 16): the page's own self-test (?selftest) sets
# the sliders to three points and reports the numbers it shows, checks the animation's pool after
# every round against the simulator's (conservation), and traces Figure 3's case; here those are
# compared with `alloclab model` and `alloclab trace` run natively. Invoked by ctest
# (explorer_page) with PAGE, ALLOCLAB and WORK; skipped (exit 0 with a note) without chromium or
# node.
find_program(CHROMIUM chromium)
find_program(NODE node)
if(NOT CHROMIUM OR NOT NODE)
  message(STATUS "explorer_page: SKIPPED: chromium or node is not installed")
  return()
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(
  COMMAND ${CHROMIUM} --headless --no-sandbox --disable-gpu --disable-background-networking
          --disable-component-update --disable-sync --no-first-run --user-data-dir=${WORK}/profile
          --virtual-time-budget=60000 --dump-dom "file://${PAGE}?selftest"
  OUTPUT_FILE ${WORK}/dom.html ERROR_QUIET RESULT_VARIABLE rc TIMEOUT 110)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "chromium exited ${rc}")
endif()
execute_process(COMMAND ${NODE} ${CMAKE_CURRENT_LIST_DIR}/compare.js ${WORK}/dom.html ${ALLOCLAB}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "explorer page: ${out}${err}")
endif()
message(STATUS "${out}")
