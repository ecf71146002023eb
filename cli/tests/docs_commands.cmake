# docs/commands.md against what the CLI says now (alloclab --help-markdown): fails, with the
# start of the difference and the command that rewrites the page, when the page is stale.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${ALLOCLAB} --help-markdown OUTPUT_FILE ${WORK}/commands.md
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "alloclab --help-markdown exited ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${PAGE} ${WORK}/commands.md
                RESULT_VARIABLE differ)
if(differ)
  execute_process(COMMAND diff -u ${PAGE} ${WORK}/commands.md OUTPUT_VARIABLE d)
  string(SUBSTRING "${d}" 0 1500 d)
  message(FATAL_ERROR "docs/commands.md is stale (run: cmake --build build --target "
                      "docs_commands):\n${d}")
endif()
message(STATUS "docs/commands.md matches the CLI")
