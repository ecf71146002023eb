# scripts/gpu.sh without a GPU (ctest: scripts_gpu_sh): its argument handling, --list, and a dry
# run (GPU_DRY_RUN=1: the commands printed, not run) of every stage of every study. Checked
# against references gpu.sh does not compute: the study folders that hold a gpu-stages.sh, the
# test files under gpu/tests/ (a stage selects GPU tests by file), and paper 000's allocators and
# the queue as the engine's own (the others are the studies').
#   cmake -DROOT=<repository root> -DBUILD=<a build with cli/alloclab> -DWORK=<scratch> -P ...
cmake_minimum_required(VERSION 3.25)
set(gpu_sh ${ROOT}/scripts/gpu.sh)

function(gpu_sh rc_var out_var err_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env GPU_DRY_RUN=1 BUILD=${BUILD}
                          bash ${gpu_sh} ${ARGN}
                  WORKING_DIRECTORY ${ROOT} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

# Bad arguments: exit 2, nothing on stdout, one line on stderr naming what is wrong.
foreach(case "''|" "'nope'|nope" "'nope' of engine|engine nope" "'nope': no study|all nope"
             "too many|ouroboros tests ${WORK}/x extra")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 expected)
  list(GET parts 1 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  gpu_sh(rc out err ${args})
  string(REGEX REPLACE "\n$" "" err "${err}")
  string(FIND "${err}" "${expected}" at)
  if(expected STREQUAL "''")
    set(at 0) # no arguments: the usage line
  endif()
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR err MATCHES "\n" OR at EQUAL -1)
    message(FATAL_ERROR "gpu.sh ${args}: exit ${rc}, stdout '${out}', stderr '${err}' (expected "
                        "exit 2, no stdout, one line naming ${expected})")
  endif()
endforeach()

# --list: engine, then every study folder with a gpu-stages.sh, each with its stages.
gpu_sh(rc list err --list)
if(NOT rc EQUAL 0 OR NOT list MATCHES "^engine \\(scripts/gpu-stages.sh; default stage: tests\\)")
  message(FATAL_ERROR "gpu.sh --list: exit ${rc}:\n${list}${err}")
endif()
file(GLOB stage_files RELATIVE ${ROOT}/studies ${ROOT}/studies/*/gpu-stages.sh)
set(studies engine)
foreach(f IN LISTS stage_files)
  get_filename_component(study ${f} DIRECTORY)
  list(APPEND studies ${study})
  string(FIND "${list}" "\n${study} (studies/${study}/gpu-stages.sh; default stage: " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "gpu.sh --list does not list ${study}:\n${list}")
  endif()
endforeach()
list(LENGTH studies n)
if(n LESS 6)
  message(FATAL_ERROR "gpu.sh: ${n} studies with stages (${studies}), expected 6 or more")
endif()

# A dry run of every stage: exit 0, commands printed; every test file a stage selects exists.
string(REGEX MATCHALL "\n[a-z-]+ \\(|\n  [a-z0-9-]+ " entries "${list}")
set(study "")
set(dry_runs 0)
foreach(entry IN LISTS entries)
  if(entry MATCHES "^\n([a-z-]+) \\($")
    set(study ${CMAKE_MATCH_1})
    continue()
  endif()
  string(STRIP "${entry}" stage)
  if(study STREQUAL "")
    set(study engine) # the first study's line opens the output, without a newline before it
  endif()
  gpu_sh(rc out err ${study} ${stage} ${WORK}/${study}-${stage})
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\n\\+ ")
    message(FATAL_ERROR "GPU_DRY_RUN=1 gpu.sh ${study} ${stage}: exit ${rc}\n${out}${err}")
  endif()
  math(EXPR dry_runs "${dry_runs} + 1")
  string(REGEX MATCHALL "ctest -L '\\^\\(([a-z_|]+)\\)\\$'" selections "${out}")
  foreach(selection IN LISTS selections)
    string(REGEX REPLACE "^ctest -L '\\^\\(([a-z_|]+)\\)\\$'$" "\\1" files "${selection}")
    string(REPLACE "|" ";" files "${files}")
    foreach(file IN LISTS files)
      if(NOT EXISTS ${ROOT}/gpu/tests/${file}.cpp)
        message(FATAL_ERROR "gpu.sh ${study} ${stage} selects the GPU tests of ${file}: "
                            "gpu/tests/${file}.cpp does not exist")
      endif()
    endforeach()
  endforeach()
  # The engine sanitizes its own allocators: paper 000's and the queue.
  if(study STREQUAL "engine" AND stage STREQUAL "tests")
    set(expected "sanitized: queue,rw,rwbm,corw,rwmalloc (pages: rwmalloc; bit choices: rwbm, ")
    string(APPEND expected "rotated: rwbm,corw); memcheck: cudamalloc")
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "gpu.sh engine tests: not paper 000's allocators and the queue:\n${out}")
    endif()
  endif()
endforeach()
if(dry_runs LESS 30)
  message(FATAL_ERROR "gpu.sh: ${dry_runs} stages dry-run, expected 30 or more:\n${list}")
endif()
