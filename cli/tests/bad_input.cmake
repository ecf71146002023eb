# Runs `alloclab` with bad arguments; each must exit with status 2, print nothing on stdout and
# one line on stderr that names the parameter. Invoked by ctest (cli_rejects_bad_input).
set(cases
  "--T|trace --algo rw --N 4 --A 600 --T 1000"
  "--N|trace --algo rw --N 100 --A 300 --T 400"
  "--N|trace --algo rw --N 10 --A 5 --T 100"
  "--algo|trace --algo queue --N 4 --A 10 --T 100"
  "--figure|trace --figure 4"
  "--svg|trace --figure 5 --svg /tmp/alloclab-bad-input-fig5.svg"
  "--T|trace --algo gg-tbuddy --T 12 --requests 1"
  "--T|trace --algo gg-tbuddy --T 128 --requests 1"
  "--requests|trace --algo gg-tbuddy --T 8 --requests 9"
  "--requests|trace --algo gg-tbuddy --T 8"
  "--requests|trace --algo rw --N 2 --A 4 --T 8 --requests 1"
  "--ops|trace --algo ouro-p-s --slots 4"
  "--ops|trace --algo ouro-p-s --slots 4 --ops e,q"
  "--slots|trace --algo ouro-p-s --slots 40 --ops e"
  "--ops|trace --algo rw --N 2 --A 4 --T 8 --ops e"
  "--format|trace --figure 3 --format xml"
  "--N|explain --algo rw --N 1,2 --A 5 --T 100"
  "--N|semaphore --N 0"
  "--tuples|join --allocator direct --tuples 0 --pages 4096"
  "--tuples|join --allocator rw --tuples 20000000 --pages 4096"
  "--skew|join --allocator rw --tuples 1024 --pages 4096 --skew 4.5"
  "--skew|join --allocator rw --tuples 1024 --pages 4096 --skew -1"
  "--pages|join --allocator corw --tuples 1024 --pages 0"
  "--pages|join --allocator direct --tuples 1024 --pages 4294967295"
  "--allocator|join --allocator ouro-p-s --tuples 1024 --pages 4096"
  "--allocator|join --allocator nope --tuples 1024 --pages 4096"
  "--key-range|join --allocator rw --tuples 1024 --key-range 100 --pages 4096"
  "--repeats|join --allocator queue --tuples 1024 --pages 4096 --repeats 0"
  "--tuples-per-thread|join --allocator rwbm --tuples 1024 --pages 4096 --tuples-per-thread 0"
  "--max-steps|join --allocator rw --tuples 1024 --pages 4096 --max-steps 0"
  "--format|join --allocator rw --tuples 1024 --pages 4096 --format xml"
  "--primitive|semaphore --primitive foo --N 64"
  "--backend|semaphore --backend cpu --N 64"
  "--mode|semaphore --mode sequential --N 64"
  "--N|semaphore --N 100000"
  "--batch|semaphore --N 64 --batch 0"
  "--N|semaphore --warp --N 100"
  "--batch|semaphore --warp --N 64 --batch 16"
  "--block|semaphore --backend gpu --N 64 --block 48"
  "--backoff-max-ns|semaphore --backend gpu --N 64 --backoff-max-ns 1"
  "--N|semaphore --backend gpu --N 4194304"
  "--N|explain --algo rw --N 10 --A 5 --T 100"
  "--algo|explain --algo gg-tbuddy --N 1 --A 5 --T 100"
  "--N|explain --algo ouro-p-s --N 1 --A 5 --T 100"
  "--algo|explain --algo nope --N 1 --A 5 --T 100"
  "--format|explain --algo rw --N 1 --A 5 --T 100 --format xml"
  "--schedule|explain --algo queue --schedule rounds --N 1 --A 5 --T 100"
  "--pages|explain --algo rw --pages 2 --N 1 --A 5 --T 100"
  "--N|model --algo rw --N 10 --A 5 --T 100"
  "--A|model --algo rw --N 10 --A 500 --T 100"
  "--N|model --algo rw --N 0 --A 5 --T 100"
  "--N|model --algo rw --N -4 --A 5 --T 100"
  "--N|model --algo rw --N 1:x:2 --A 5 --T 100"
  "--algo|model --algo nope --N 1 --A 5 --T 100"
  "--w|model --algo rwbm --N 1 --A 5 --T 100 --w 0"
  "--free|model --algo rw --N 1 --free 1.5 --T 100"
  "--schedule|model --algo rw --schedule bogus --N 1 --A 5 --T 100"
  "--schedule|model --algo queue --schedule rounds --N 1 --A 5 --T 100"
  "--modes|sweep --algos rw --backends sim --modes rounds --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-rounds"
  "--A|model --algo rw --N 1 --T 100"
  "--T|model --algo rw --N 1 --A 1 --T abc"
  "--lanes|model --algo rw --N 1 --A 1 --T 10 --lanes 0"
  "--algo|model --algo corw-lockmap --N 1 --A 5 --T 100"
  "--algo|measure --algo corw-lockmap --N 10 --A 100 --T 1000"
  "--algo|measure --algo nope --N 10 --A 100 --T 1000"
  "--lanes|measure --algo corw --lanes 16 --N 10 --A 100 --T 1000"
  "--pages|measure --algo rw --pages 2 --N 10 --A 100 --T 1000"
  "--device|model --algo rw --N 1 --A 5 --T 100 --device no-such-gpu"
  "--device|model --algo rw --N 1 --A 5 --T 100 --device nvidia-h200 --theorems"
  "DIR|fit-time /nonexistent-sweep-dir"
  "--folds|fit-time reports/standard --folds 1"
  "--l2-bytes|fit-time reports/standard --bitmap-features"
  "--study|fit-time reports/standard --study /nonexistent-study.json"
  "--study|fit-time reports/standard --study ${CMAKE_CURRENT_LIST_DIR}/bad_input.cmake"
  "--pages|model --algo rwmalloc --pages 4 --N 100 --A 300 --T 1000"
  "--N|model --algo ouro-c-va --N 70000 --free 1 --T 2e7 --pages 512"
  "--pages|model --algo corw --pages 2 --N 10 --A 300 --T 1000"
  "--N|model --algo corw --N 400 --A 300 --T 1000"
  "--bit-choice|simulate --algo rwbm --N 10 --A 100 --T 1000 --bit-choice highest"
  "--bit-choice|simulate --algo rw --N 10 --A 100 --T 1000 --bit-choice random"
  "--bit-choice|simulate --algo rwbm --N 10 --A 100 --T 1000 --bit-choice ,"
  # CoRW implements lowest and rotated (Capabilities::bit_choices), not random.
  "--bit-choice|simulate --algo corw --N 10 --A 100 --T 1000 --bit-choice random"
  "--bit-choice|simulate --algo corw --N 10 --A 100 --T 1000 --bit-choice lowest,random"
  "--bit-choice|measure --algo corw --N 10 --A 100 --T 1000 --bit-choice random"
  "--bit-choice|simulate --algo corw-lockmap --N 10 --A 100 --T 1000 --bit-choice rotated"
  "--algo|simulate --algo cudamalloc --N 10 --A 100 --T 1000"
  "--pages|simulate --algo rw --pages 2 --N 10 --A 100 --T 1000"
  "--pages|simulate --algo rwmalloc --pages 2000 --N 10 --A 30000 --T 100000"
  # gg-tbuddy: a tree of at most 2^22 leaves, a request's block (2^ceil(log2 n)
  # pages) within T, at most 2^21 - 1 requests in flight (lockstep: all N).
  "--T|simulate --algo gg-tbuddy --N 10 --A 100 --T 5000000"
  "--pages|simulate --algo gg-tbuddy --N 10 --A 100 --T 1000 --pages 1000"
  "--N|simulate --algo gg-tbuddy --mode lockstep --N 3000000 --A 100 --T 1000"
  "--algo|model --algo gg-tbuddy --N 10 --A 100 --T 1000"
  "--algo|measure --algo corw-lockmap --N 10 --A 100 --T 1000"
  # ... and on the GPU the same tree bound, checked before any device is needed.
  "--T|measure --algo gg-tbuddy --N 10 --A 100 --T 5000000"
  "--pages|measure --algo gg-tbuddy --N 10 --A 100 --T 1000 --pages 1000"
  # `all` stands alone (every allocator on the chosen backends), never beside names.
  "--algos|sweep --algos all,rw --backends model,sim --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-all"
  "--algos|sweep --algos rw,all --backends model --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-all"
  "--algo|measure --algo all,cudamalloc --N 10 --A 100 --T 1000"
  "--algo|measure --algo rw,all --N 10 --A 100 --T 1000"
  "--algos|sweep --algos cudamalloc --backends model,sim --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-gpu-only"
  "--theorems|model --algo queue --theorems --N 1 --A 5 --T 100"
  "--theorems|model --algo rwmalloc --theorems --N 1 --A 5 --T 100"
  # Values CLI11 converts itself, unknown options and subcommands: exit 2 like any bad input.
  "--w|model --algo rw --N 1000 --free 0.5 --T 1e6 --w -3"
  "--N|model --algo rw --N 2^64 --free 0.5 --T 1e6"
  "--lanes|model --algo rw --N 1 --A 5 --T 100 --lanes -1"
  "--trials|simulate --algo rw --N 1 --A 5 --T 100 --trials many"
  "--threads|sweep --algos rw --N 1 --A 5 --T 100 --threads 1.5 --out /tmp/alloclab-bad-input"
  "--bogus|model --algo rw --N 1 --A 5 --T 100 --bogus"
  "subcommand|frobnicate --N 1"
  "subcommand|"
  "--free|model --algo rw --N 1 --A 5 --free 0.5 --T 100"
  # Named grids.
  "--grid|model --algo rw --grid figure5"
  "--N|model --algo rw --free 0.5 --T 1e6"
  "--T|simulate --algo rw --N 10 --free 0.5"
  # A grid whose every point is invalid (a grid with some valid points: partial_grid.cmake).
  "--N|model --algo rw --N 8192 --A 5000,6000 --T 1e6"
  "--A|simulate --algo rw --N 10 --A 2000,3000 --T 1000"
  # More memory than the machine has (2^50 pages: 2^47 bytes of bitmap at least).
  "--T|simulate --algo rw --N 1000 --free 0.5 --T 2^50"
  "--T|simulate --algo rwbm --mode lockstep --N 1000 --free 0.5 --T 2^50 --trials 3"
  "--T|sweep --algos rw --backends sim --N 1000 --free 0.5 --T 2^50 --out /tmp/alloclab-bad-input"
  "--gpu-from|sweep --algos rw --backends model --grid figure4 --gpu-from /nonexistent --out /tmp/alloclab-bad-input"
  "--gpu-from|sweep --algos rw --backends gpu --grid figure4 --gpu-from /nonexistent --out /tmp/alloclab-bad-input"
  # alloclab workload (sizes, pools, families)
  "--size|workload --allocator queue --workload alloc --N 10 --size 0 --pool 1MiB"
  "--size|workload --allocator queue --workload alloc --N 10 --size 512 --pool 1MiB"
  "--size|workload --allocator rwbm --workload mixed --N 10 --size 16..4096 --pool 1MiB"
  "--size|workload --allocator rwmalloc --workload mixed --N 10 --size 4096..16 --pool 1MiB"
  "--size|workload --allocator rwmalloc --workload mixed --N 10 --size 16..100 --pool 1MiB"
  "--size|workload --allocator rwmalloc --workload alloc --N 10 --size 16..64 --pool 1MiB"
  "--size|workload --allocator queue --workload alloc --N 10 --size 12kb --pool 1MiB"
  "--pool|workload --allocator queue --workload alloc --N 10 --size 256 --pool 100"
  "--pool|workload --allocator queue --workload alloc --N 10 --size 256 --pool 8XB"
  "--pool|workload --allocator rwmalloc --workload alloc --N 1 --size 300 --pool 300"
  "--page-bytes|workload --allocator queue --workload alloc --N 10 --size 256 --pool 1MiB --page-bytes 0"
  "--free-fraction|workload --allocator queue --workload churn --N 10 --size 256 --pool 1MiB --free-fraction 1.5"
  "--free-fraction|workload --allocator queue --workload churn --N 10 --size 256 --pool 1MiB --free-fraction -0.5"
  "--batch-free|workload --allocator queue --workload oom --size 256 --pool 1MiB --batch-free 1"
  "--batch-free|workload --allocator queue --workload alloc --N 10 --size 256 --pool 1MiB --batch-free 0.5"
  "--free|workload --allocator rw --workload alloc --N 10 --size 256 --pool 1MiB --free 0"
  "--free|workload --allocator rw --workload alloc --N 10 --size 256 --pool 1MiB --free 1.5"
  "--free|workload --allocator rw --workload alloc --N 10 --size 256 --pool 64KiB --free 0.0001"
  "--batch|workload --allocator queue --workload oom --size 256 --pool 1MiB --batch 0"
  "--rounds|workload --allocator queue --workload churn --N 10 --size 256 --pool 1MiB --rounds 0"
  "--workload|workload --allocator queue --workload sprint --N 10 --size 256 --pool 1MiB"
  "--allocator|workload --allocator nope --workload alloc --N 10 --size 256 --pool 1MiB"
  "--allocator|workload --allocator cudamalloc --workload alloc --N 10 --size 256 --pool 1MiB"
  "--counters|workload --allocator queue --backend gpu --workload alloc --N 10 --size 256 --pool 1MiB --counters maybe"
  "--mode|workload --allocator queue --backend gpu --mode lockstep --workload alloc --N 10 --size 256 --pool 1MiB"
  "--allocator|workload --allocator corw-lockmap --backend gpu --workload alloc --N 10 --size 256 --pool 1MiB"
  "--size|workload --allocator rwmalloc --backend gpu --workload alloc --N 10 --size 16KiB --pool 64MiB"
  "--warp-uniform|workload --allocator rwmalloc --backend gpu --workload mixed --N 64 --size 256..1024 --pool 64MiB"
  "--block|workload --allocator corw --backend gpu --workload alloc --N 64 --size 256 --pool 1MiB --block 512"
  "--block|workload --allocator rw --workload alloc --N 64 --size 256 --pool 1MiB --block 48"
  "--warp-uniform|workload --allocator rw --workload alloc --N 64 --size 256 --pool 1MiB --warp-uniform"
  "--heap-bytes|workload --allocator cudamalloc --backend gpu --workload alloc --N 64 --size 256 --pool 1MiB --heap-bytes 12parsecs"
  "--backend|workload --allocator queue --backend fpga --workload alloc --N 10 --size 256 --pool 1MiB"
  "--mode|workload --allocator queue --mode warp --workload alloc --N 10 --size 256 --pool 1MiB"
  "--N|workload --allocator queue --workload alloc --N 0 --size 256 --pool 1MiB"
  "--trials|workload --allocator queue --workload alloc --N 10 --size 256 --pool 1MiB --trials 0"
  "--repeats|workload --allocator queue --workload alloc --N 10 --size 256 --pool 1MiB --repeats 0"
  "--repeats|workload --allocator queue --backend gpu --workload alloc --N 10 --size 256 --pool 1MiB --repeats 0"
  "--repeats|workload --allocator queue --workload alloc --N 10 --size 256 --pool 1MiB --repeats -1"
  "--bit-choice|workload --allocator corw --workload alloc --N 10 --size 256 --pool 1MiB --bit-choice random"
  "--bit-choice|workload --allocator rw --backend gpu --workload alloc --N 10 --size 256 --pool 1MiB --bit-choice rotated"
  "--bit-choice|workload --allocator rwbm --workload alloc --N 10 --size 256 --pool 1MiB --bit-choice best"
  "--max-steps|workload --allocator rw --backend gpu --workload alloc --N 10 --size 256 --pool 1MiB --max-steps 4294967296")
foreach(case IN LISTS cases)
  string(FIND "${case}" "|" bar)
  string(SUBSTRING "${case}" 0 ${bar} param)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${case}" ${from} -1 argstr)
  separate_arguments(args UNIX_COMMAND "${argstr}")
  execute_process(COMMAND ${ALLOCLAB} ${args}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" err_stripped)
  string(REGEX MATCHALL "\n" newlines "${err_stripped}")
  list(LENGTH newlines n_newlines)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "exit status ${rc}, not 2, for bad input: ${argstr}\n${err}")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "printed on stdout for bad input ${argstr}: ${out}")
  endif()
  if(NOT n_newlines EQUAL 0)
    message(FATAL_ERROR "more than one line on stderr for ${argstr}: ${err}")
  endif()
  string(FIND "${err}" "${param}" where)
  if(where EQUAL -1)
    message(FATAL_ERROR "stderr does not name ${param} for ${argstr}: ${err}")
  endif()
endforeach()
message(STATUS "all bad inputs rejected")
