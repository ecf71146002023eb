# A study is one paper's folder (studies/<name>/): its claims, errata, report part and
# experiments, registered in the study, report and command tables from its own files
# (validation/study.hpp, render/study_report.hpp, cli/command_table.hpp). Its CMakeLists.txt says
#
#   alloclab_study(NAME <name> SOURCES src/... [LIBS ...] [TESTS tests/... [TEST_LIBS ...]])
#
# which builds alloclab_study_<name> (a static library over the engine: render, validation,
# model, cpu_sim, gpu, cli_support), links it whole-archive into `alloclab` (its files only
# register, so nothing else references them) and makes study_<name>_tests from TESTS.
function(alloclab_study)
  cmake_parse_arguments(S "" "NAME" "SOURCES;LIBS;TESTS;TEST_LIBS" ${ARGN})
  string(REPLACE "-" "_" id "${S_NAME}")
  set(impl alloclab_study_${id})
  add_library(${impl} STATIC ${S_SOURCES})
  target_include_directories(${impl} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                     PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${impl}
    PUBLIC alloclab::render alloclab::validation alloclab::model alloclab::cpu_sim alloclab::gpu
           alloclab::cli_support ${S_LIBS}
    PRIVATE fmt::fmt)
  alloclab_target_warnings(${impl})
  alloclab_unity_build(${impl})
  alloclab_registry_library(${impl} alloclab::study_${id})
  set_property(GLOBAL APPEND PROPERTY ALLOCLAB_STUDIES alloclab::study_${id})
  if(ALLOCLAB_BUILD_TESTS AND S_TESTS)
    alloclab_add_test(NAME study_${id}_tests SOURCES ${S_TESTS}
      LIBS alloclab::study_${id} ${S_TEST_LIBS})
  endif()
endfunction()
