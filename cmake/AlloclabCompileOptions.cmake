# Warnings are errors on our own code, CUDA included (-Werror=all-warnings for nvcc's own
# diagnostics, -Xcompiler for the host compiler's).
function(alloclab_target_warnings target)
  # GCC 13's -Wdangling-reference (in -Wall) flags every reference bound to a function's result
  # when an argument is a temporary, e.g. `const auto& c = find(claims, "§3.4")` returning an
  # element of `claims`: false positives all over the tests (the GPU machines' GCC is newer than
  # Debian 12's 12, which lacks the warning). Its -Warray-bounds also fires inside libstdc++'s
  # std::memmove, inlined from a vector copy in cpu_sim's contract test, on bounds the optimiser
  # invented: kept as a warning there, not an error (GCC 12, CI's compiler, keeps it an error).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wno-dangling-reference -Wno-error=array-bounds>
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-dangling-reference,-Wno-error=array-bounds>)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion -Wno-sign-conversion>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
endfunction()

# Unity build (several .cpp files compiled as one translation unit, batches of 8) for targets
# whose files include the same heavy headers (CLI11, fmt, nlohmann-json) and whose inline
# functions GCC would otherwise instantiate and optimise once per file: the CLI, the report's
# renderer, the validation layer. A fresh -O3 build spent more than a quarter of its CPU time
# there (docs/testing.md, "Build time"). Not for the allocator modules (model, cpu_sim, gpu),
# whose per-allocator files each define the same registration helpers (applies, evaluate, ...)
# in an anonymous namespace, nor for the tests, whose files repeat helper names likewise.
# Names at file scope in a unity target must therefore be unique across its files.
function(alloclab_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
endfunction()
