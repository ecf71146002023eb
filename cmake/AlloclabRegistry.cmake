# Modules whose allocators register their backend entries from their own files at start-up
# (core/backend_table.hpp) must not lose those object files to the linker, which drops archive
# members nobody references. alloclab_registry_library(<impl> <alias>) exposes the static library
# <impl> as <alias>, an INTERFACE target that links it whole-archive (CMake's WHOLE_ARCHIVE link
# feature); every consumer links <alias>, never <impl> itself.
function(alloclab_registry_library impl alias)
  add_library(${impl}_whole INTERFACE)
  target_link_libraries(${impl}_whole INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${impl}>")
  add_library(${alias} ALIAS ${impl}_whole)
endfunction()
