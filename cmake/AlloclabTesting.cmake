# The one test helper: every module registers its Catch2 tests with alloclab_add_test().
#   alloclab_add_test(NAME core_tests SOURCES a.cpp b.cpp LIBS alloclab::core [LABELS gpu])
# Tests share one Catch2 main (alloclab_catch_main). GPU tests carry the label "gpu" and return
# Catch's skip code when no device is present, so ctest reports them as skipped, with the reason.
add_library(alloclab_catch_main STATIC ${PROJECT_SOURCE_DIR}/testing/catch_main.cpp)
target_link_libraries(alloclab_catch_main PUBLIC Catch2::Catch2)
target_include_directories(alloclab_catch_main PUBLIC ${PROJECT_SOURCE_DIR}/testing/include)

# Every test file includes catch2/catch.hpp (about 1 s of parsing per file at -O3, some 130
# files): it is parsed once, into a precompiled header that the first test target builds and
# every other one reuses (REUSE_FROM; the test targets share their compile options). Only Catch2
# is precompiled: a test still has to include what else it uses. CUDA sources get no C++ PCH
# (CMake applies it to CXX only), and neither do the ThreadSanitizer tests (other flags) nor
# the Catch2 main (it defines CATCH_CONFIG_MAIN before including the header).
# ccache caches a file compiled with a PCH only with sloppiness pch_defines,time_macros: where
# the build's launcher is ccache, the test targets' launcher sets it (docs/testing.md).
function(alloclab_test_pch target)
  get_property(host GLOBAL PROPERTY ALLOCLAB_TEST_PCH_HOST)
  if(host)
    target_precompile_headers(${target} REUSE_FROM ${host})
  else()
    target_precompile_headers(${target} PRIVATE <catch2/catch.hpp>)
    set_property(GLOBAL PROPERTY ALLOCLAB_TEST_PCH_HOST ${target})
  endif()
  if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros;${CMAKE_CXX_COMPILER_LAUNCHER}")
  endif()
endfunction()

# LABEL_BY_FILE: each test case also carries the name of its file (gallatin_gpu_test for
# tests/gallatin_gpu_test.cpp) as a label, so that a script runs one file's tests with
# `ctest -L '^gallatin_gpu_test$'` instead of a regular expression over test names that breaks when
# one is renamed (scripts/gpu.sh, docs/gpu-device.md).
function(alloclab_add_test)
  cmake_parse_arguments(T "LABEL_BY_FILE" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE alloclab_catch_main ${T_LIBS})
  alloclab_target_warnings(${T_NAME})
  alloclab_test_pch(${T_NAME})
  set(labels ${T_LABELS})
  if(NOT labels)
    set(labels unit)
  endif()
  # Each TEST_CASE becomes its own ctest entry; exit code 4 means "skipped" (see catch_main.cpp).
  # --warn NoTests: an entry whose name filter matches no test case fails instead of passing
  # with nothing run (a name with an unbalanced ']' or a leading '--' once merged 14 workload
  # tests into one such entry).
  if(NOT T_LABEL_BY_FILE)
    catch_discover_tests(${T_NAME} EXTRA_ARGS --warn NoTests
                         PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 4)
    return()
  endif()
  # One discovery per source: Catch2's -# tags every case with its file ([#stem]). The discovered
  # names land in the list ${T_NAME}_<stem>, and a script included after the discovery's adds the
  # file's label (catch_discover_tests flattens PROPERTIES: a second label cannot go through it).
  # A case in a source added later (target_sources) would not be registered: keep them in SOURCES.
  foreach(source IN LISTS T_SOURCES)
    get_filename_component(stem "${source}" NAME_WE)
    catch_discover_tests(${T_NAME} TEST_SPEC "-#" "[#${stem}]" TEST_LIST ${T_NAME}_${stem}
                         EXTRA_ARGS --warn NoTests
                         PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 4)
    set(label_script "${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}_${stem}_label.cmake")
    file(WRITE "${label_script}"
         "if(NOT \"\${${T_NAME}_${stem}}\" STREQUAL \"\")\n"
         "  set_tests_properties(\${${T_NAME}_${stem}} PROPERTIES LABELS \"${labels};${stem}\")\n"
         "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${label_script}")
  endforeach()
endfunction()

# Host-thread tests compiled again under ThreadSanitizer into one executable, run as ctest entry
# NAME (label "tsan"; halts at the first report):
#   alloclab_add_tsan_test(NAME core_ouro_tsan SOURCES a_threads_test.cpp LIBS alloclab::core)
function(alloclab_add_tsan_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME}_tests ${T_SOURCES})
  target_link_libraries(${T_NAME}_tests PRIVATE alloclab_catch_main ${T_LIBS})
  # -g1: line tables only, all that ThreadSanitizer's reports need for file:line in their stacks;
  # -g's full debug information cost a quarter more compile time (docs/testing.md, "Build time").
  target_compile_options(${T_NAME}_tests PRIVATE -fsanitize=thread -g1 -O1)
  target_link_options(${T_NAME}_tests PRIVATE -fsanitize=thread)
  alloclab_target_warnings(${T_NAME}_tests)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME}_tests)
  set_tests_properties(${T_NAME} PROPERTIES LABELS tsan
                       ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1")
endfunction()
