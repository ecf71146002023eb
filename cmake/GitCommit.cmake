# Writes OUT (a header defining ALLOCLAB_GIT_COMMIT) at build time, so the commit recorded in
# sweep metadata is the one built, not the one configured. Where .git is absent (a copied tree on
# a GPU machine), the environment variable ALLOCLAB_COMMIT is used; else "unknown".
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE rc)
if(rc EQUAL 0 AND commit)
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(dirty)
    set(commit "${commit}+dirty")
  endif()
elseif(DEFINED ENV{ALLOCLAB_COMMIT})
  set(commit "$ENV{ALLOCLAB_COMMIT}")
else()
  set(commit "unknown")
endif()
set(text "#pragma once\n#define ALLOCLAB_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
