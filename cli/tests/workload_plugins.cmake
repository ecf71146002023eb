# The command line and plug-in allocators (docs/plugin-allocators.md), with or without a GPU:
# ext-bump is a name `workload --backend gpu` accepts (the run then needs a device), the simulator
# refuses it in one line that says where it runs, a name nobody declared is refused with the list
# of those that are, and the options that cannot apply to it are named. Invoked by ctest
# (cli_workload_plugins) with ALLOCLAB.
set(base --workload alloc --N 64 --size 256 --pool 1MiB)

function(run_alloclab)
  execute_process(COMMAND ${ALLOCLAB} workload ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# Bad input: exit 2, nothing on stdout, one line on stderr with `parameter` and `words`.
function(expect_refused parameter words)
  run_alloclab(${ARGN})
  string(STRIP "${err}" line)
  string(FIND "${line}" "\n" newline)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT newline EQUAL -1)
    message(FATAL_ERROR "workload ${ARGN}: expected exit 2, no output, one line; got ${rc}: "
                        "stdout '${out}' stderr '${err}'")
  endif()
  foreach(part "${parameter}: " "${words}")
    string(FIND "${line}" "${part}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "workload ${ARGN}: '${part}' not in: ${line}")
    endif()
  endforeach()
endfunction()

# The simulator: ext-bump runs on the GPU only.
expect_refused(--allocator "ext-bump does not run in the simulator (it runs on: gpu)"
               --backend sim --allocator ext-bump ${base})
# A name no plug-in declares: the refusal lists the GPU's allocators, the plug-ins among them.
expect_refused(--allocator "unknown allocator 'ext-nosuch'" --backend gpu --allocator ext-nosuch
               ${base})
run_alloclab(--backend gpu --allocator ext-nosuch ${base})
string(FIND "${err}" "|ext-bump|" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the list of allocators lacks ext-bump: ${err}")
endif()
# Options that cannot apply: its pool cannot be prefilled; the watchdog takes seconds >= 0.
expect_refused(--free "hands out bytes" --backend gpu --allocator ext-bump ${base} --free 0.5)
expect_refused(--watchdog "must be >= 0" --backend gpu --allocator ext-bump ${base} --watchdog -1)

# The GPU accepts the name: the run goes as far as a device (exit 0 with one, else exit 1 saying
# there is none or no CUDA build), never an input error.
foreach(allocator ext-bump ext-bump-warp ext-corw)
  run_alloclab(--backend gpu --allocator ${allocator} ${base} --format csv)
  if(rc EQUAL 0)
    string(FIND "${out}" "${allocator},gpu,gpu,alloc,64,256" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${allocator}: no row in: ${out}")
    endif()
  elseif(NOT rc EQUAL 1 OR NOT err MATCHES "(no CUDA device|built without CUDA)")
    message(FATAL_ERROR "${allocator} on the GPU: expected a row, or no device (exit 1); got "
                        "${rc}: ${err}")
  endif()
endforeach()
