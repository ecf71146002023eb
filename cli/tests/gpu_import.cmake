# `sweep --gpu-from DIR` takes the gpu rows of the committed standard sweep exactly: the rows it
# writes are the source's gpu rows of lowest bit choice, character for character, and the run's
# metadata names the device and the source. Invoked by ctest (cli_gpu_import) with ALLOCLAB,
# SOURCE_DIR (the repository) and WORK (a scratch directory).
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND ${ALLOCLAB} sweep --allocator queue,rw,rwbm,corw --backend gpu
                        --grid standard --gpu-from ${SOURCE_DIR}/reports/standard --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sweep --gpu-from failed (${rc}): ${err}")
endif()
# The standard grid has 660 points (11 N x 5 fractions x 2 T x 2 w for rwbm and corw, one w for
# queue and rw); the H200 ran those with N <= A: 73 per algorithm and w, 438 in all.
if(NOT out MATCHES "gpu rows of 438 of the 660 grid points")
  message(FATAL_ERROR "unexpected import count: ${out}")
endif()

# Lines of a tidy CSV whose backend is gpu and bit choice lowest (the header names the columns:
# algo,backend,mode,N,A,T,w,lanes,pages,bit_choice,...), sorted.
function(gpu_lowest_rows file result)
  file(STRINGS "${file}" lines)
  list(GET lines 0 header)
  if(NOT header MATCHES "^algo,backend,mode,N,A,T,w,lanes,pages,bit_choice,metric,")
    message(FATAL_ERROR "${file}: unexpected header ${header}")
  endif()
  list(FILTER lines INCLUDE REGEX "^[^,]*,gpu,,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,lowest,")
  list(SORT lines)
  set(${result} "${lines}" PARENT_SCOPE)
endfunction()
gpu_lowest_rows("${SOURCE_DIR}/reports/standard/sweep.csv" source_rows)
gpu_lowest_rows("${WORK}/sweep.csv" imported_rows)
# The source predates the device column: the imported rows name the device of its metadata.
list(TRANSFORM source_rows APPEND ",NVIDIA H200")
list(LENGTH source_rows n_source)
list(LENGTH imported_rows n_imported)
if(n_source EQUAL 0 OR NOT source_rows STREQUAL imported_rows)
  message(FATAL_ERROR "imported ${n_imported} gpu rows, the source has ${n_source}; they differ")
endif()
file(STRINGS "${WORK}/sweep.csv" all_rows)
list(LENGTH all_rows n_all)
math(EXPR n_expected "${n_source} + 1")
if(NOT n_all EQUAL n_expected)
  message(FATAL_ERROR "${WORK}/sweep.csv holds ${n_all} lines, expected ${n_expected}")
endif()

file(READ "${WORK}/sweep.json" meta)
string(JSON device GET "${meta}" device name)
string(JSON dir GET "${meta}" gpu_from dir)
# The command line that measured them, recorded in reports/standard/sweep.json before issue 35's
# --backend (history, kept as written).
string(JSON measured_by GET "${meta}" gpu_from sweep_json command_line)
if(NOT device STREQUAL "NVIDIA H200" OR NOT dir MATCHES "reports/standard$"
   OR NOT measured_by MATCHES "--backends gpu")
  message(FATAL_ERROR "metadata of the import: device '${device}', dir '${dir}', '${measured_by}'")
endif()
message(STATUS "sweep --gpu-from: ${n_source} gpu rows taken unchanged")
