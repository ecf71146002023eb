# Runs `alloclab` with bad arguments; each must exit with status 2, print nothing on stdout and
# one line on stderr that names the parameter. Invoked by ctest (cli_rejects_bad_input).
# A case written "gpu:--param|..." is a check of the GPU backend's inputs, which only a build with
# CUDA reaches; a build without CUDA refuses the backend first (`built without CUDA`), so it
# skips these cases and says how many.
set(cases
  "--T|trace --allocator rw --N 4 --A 600 --T 1000"
  "--N|trace --allocator rw --N 100 --A 300 --T 400"
  "--N|trace --allocator rw --N 10 --A 5 --T 100"
  "--allocator|trace --allocator queue --N 4 --A 10 --T 100"
  "--figure|trace --figure 4"
  "--out|trace --figure 5 --out /tmp/alloclab-bad-input-fig5"
  "--T|trace --allocator gg-tbuddy --T 12 --requests 1"
  "--T|trace --allocator gg-tbuddy --T 128 --requests 1"
  "--requests|trace --allocator gg-tbuddy --T 8 --requests 9"
  "--requests|trace --allocator gg-tbuddy --T 8"
  "--requests|trace --allocator rw --N 2 --A 4 --T 8 --requests 1"
  "--ops|trace --allocator ouro-p-s --slots 4"
  "--ops|trace --allocator ouro-p-s --slots 4 --ops e,q"
  "--slots|trace --allocator ouro-p-s --slots 40 --ops e"
  "--ops|trace --allocator rw --N 2 --A 4 --T 8 --ops e"
  "--format|trace --figure 3 --format xml"
  "--format|trace --figure 3 --format csv"
  "--N|explain --allocator rw --N 1,2 --A 5 --T 100"
  "--N|semaphore --N 0"
  "--types|wator --types 60,3841 --iterations 1"
  "--types|wator --types , --iterations 1"
  "--types|wator --types 60 --iterations 1"
  "--pool|wator --pool 3839 --iterations 1"
  "--retries|wator --retries 0 --iterations 1"
  "--allocator|wator --allocator bitmap-alloc --iterations 1"
  "--types|linux-scalability --types 64,65 --pool 64KiB --N 32"
  "--pool|linux-scalability --types 64 --pool 4095 --N 32"
  "--N|linux-scalability --pool 64KiB --N 0"
  "--allocator|workload --allocator rw --types 64 --workload alloc --pool 1MiB"
  "--allocator|workload --allocator bitmap-alloc --types 60,64 --workload oom --pool 1MiB"
  "--allocator|workload --backend gpu --allocator rw --types 64 --workload alloc --pool 1MiB"
  "--size|workload --allocator dynasoar --types 64 --size 64 --workload alloc --pool 1MiB"
  "--page-bytes|workload --allocator dynasoar --types 64 --page-bytes 64 --workload alloc --pool 1MiB"
  "--types|workload --allocator dynasoar --types , --workload alloc --pool 1MiB"
  "--types|workload --allocator dynasoar --types 60,3841 --workload alloc --pool 1MiB"
  "--pool|workload --allocator dynasoar --types 60,64 --workload alloc --pool 3839"
  "--workload|workload --allocator dynasoar --types 60,64 --workload mixed --pool 1MiB"
  "--free|workload --allocator dynasoar --types 64 --workload alloc --pool 1MiB --free 0.5"
  "--out|workload --allocator dynasoar --types 64 --workload alloc --pool 1MiB --out /tmp/alloclab-bad-input-out"
  "--size|workload --allocator dynasoar --workload alloc --pool 1MiB"
  "--backend|wator --backend cpu --iterations 1"
  "--mode|wator --backend gpu --mode sequential --iterations 1"
  "--mode|wator --mode thread --iterations 1"
  "--mode|linux-scalability --mode parallel --pool 64KiB"
  # Host threads outside --mode threads (before issue 35 --threads was the allocating threads).
  "--threads|linux-scalability --threads 4 --pool 64KiB"
  "--threads|wator --threads 2 --iterations 1"
  "--mode|linux-scalability --backend gpu --mode threads --pool 64KiB"
  "--threads|wator --mode threads --threads 1025 --iterations 1"
  "--threads|linux-scalability --mode threads --threads 4096 --pool 64KiB"
  "--types|wator --backend gpu --types 60 --iterations 1"
  "--retries|wator --backend gpu --retries 0 --iterations 1"
  "--backend|linux-scalability --backend tpu --pool 64KiB"
  "--types|linux-scalability --backend gpu --types 64,65 --pool 64KiB"
  "--pool|linux-scalability --backend gpu --types 64 --pool 4095"
  "--N|linux-scalability --backend gpu --pool 64KiB --N 0"
  "--tuples|join --allocator direct --tuples 0 --pool 1MiB"
  "--tuples|join --allocator direct --tuples 20000000 --pool 1MiB"
  "--skew|join --allocator direct --tuples 1024 --pool 1MiB --skew 4.5"
  "--skew|join --allocator direct --tuples 1024 --pool 1MiB --skew -1"
  "--pool|join --allocator direct --tuples 1024 --pool 0"
  "--pool|join --allocator direct --tuples 1024 --pool 1000"
  "--pool|join --allocator direct --tuples 1024 --pool 1TiB"
  "--allocator|join --allocator cudamalloc --tuples 1024 --pool 1MiB"
  "gpu:--pool|join --allocator gallatin --tuples 1024 --pool 1MiB"
  "--allocator|join --allocator nope --tuples 1024 --pool 1MiB"
  "--key-range|join --allocator direct --tuples 1024 --key-range 100 --pool 1MiB"
  "--repeats|join --allocator direct --tuples 1024 --pool 1MiB --repeats 0"
  "--tuples-per-thread|join --allocator direct --tuples 1024 --pool 1MiB --tuples-per-thread 0"
  "--max-steps|join --allocator direct --tuples 1024 --pool 1MiB --max-steps 0"
  "--format|join --allocator direct --tuples 1024 --pool 1MiB --format xml"
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
  "--barrier|rcu --barrier fast --N 64"
  "--backend|rcu --backend cpu --N 64"
  "--mode|rcu --mode threads --N 64"
  "--N|rcu --N 0"
  "--N|rcu --N 100000"
  "--ratio|rcu --N 64 --ratio 0"
  "--ratio|rcu --N 64 --ratio 65"
  "--block|rcu --backend gpu --N 64 --block 48"
  "--N|rcu --backend gpu --N 8388608"
  "--backoff-max-ns|rcu --backend gpu --N 64 --backoff-max-ns 1"
  "--N|explain --allocator rw --N 10 --A 5 --T 100"
  "--schedule|explain --allocator gg-tbuddy --schedule rounds --N 1 --A 5 --T 128"
  "--pages|explain --allocator gg-tbuddy --pages 0 --N 1 --A 128 --T 128"
  "--A|explain --allocator ouro-p-s --N 1 --A 5 --T 100"
  "--allocator|explain --allocator nope --N 1 --A 5 --T 100"
  "--format|explain --allocator rw --N 1 --A 5 --T 100 --format xml"
  "--schedule|explain --allocator queue --schedule rounds --N 1 --A 5 --T 100"
  "--pages|explain --allocator rw --pages 2 --N 1 --A 5 --T 100"
  "--N|model --allocator rw --N 10 --A 5 --T 100"
  "--A|model --allocator rw --N 10 --A 500 --T 100"
  "--N|model --allocator rw --N 0 --A 5 --T 100"
  "--N|model --allocator rw --N -4 --A 5 --T 100"
  "--N|model --allocator rw --N 1:x:2 --A 5 --T 100"
  "--allocator|model --allocator nope --N 1 --A 5 --T 100"
  "--w|model --allocator rwbm --N 1 --A 5 --T 100 --w 0"
  "--free|model --allocator rw --N 1 --free 1.5 --T 100"
  "--schedule|model --allocator rw --schedule bogus --N 1 --A 5 --T 100"
  "--schedule|model --allocator queue --schedule rounds --N 1 --A 5 --T 100"
  "--modes|sweep --allocator rw --backend sim --modes rounds --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-rounds"
  "--A|model --allocator rw --N 1 --T 100"
  "--T|model --allocator rw --N 1 --A 1 --T abc"
  "--lanes|model --allocator rw --N 1 --A 1 --T 10 --lanes 0"
  "--allocator|model --allocator corw-lockmap --N 1 --A 5 --T 100"
  "--allocator|measure --allocator corw-lockmap --N 10 --A 100 --T 1000"
  "--allocator|measure --allocator nope --N 10 --A 100 --T 1000"
  "--lanes|measure --allocator corw --lanes 16 --N 10 --A 100 --T 1000"
  "--pages|measure --allocator rw --pages 2 --N 10 --A 100 --T 1000"
  "--device|model --allocator rw --N 1 --A 5 --T 100 --device no-such-gpu"
  "--device|model --allocator rw --N 1 --A 5 --T 100 --device nvidia-h200 --theorems"
  "DIR|fit-time /nonexistent-sweep-dir"
  "--folds|fit-time reports/standard --folds 1"
  "--l2-bytes|fit-time reports/standard --bitmap-features"
  "--study|fit-time reports/standard --study /nonexistent-study.json"
  "--study|fit-time reports/standard --study ${CMAKE_CURRENT_LIST_DIR}/bad_input.cmake"
  "--pages|model --allocator rwmalloc --pages 4 --N 100 --A 300 --T 1000"
  "--N|model --allocator ouro-c-va --N 70000 --free 1 --T 2e7 --pages 512"
  "--pages|model --allocator corw --pages 2 --N 10 --A 300 --T 1000"
  "--N|model --allocator corw --N 400 --A 300 --T 1000"
  "--bit-choice|simulate --allocator rwbm --N 10 --A 100 --T 1000 --bit-choice highest"
  "--bit-choice|simulate --allocator rw --N 10 --A 100 --T 1000 --bit-choice random"
  "--bit-choice|simulate --allocator rwbm --N 10 --A 100 --T 1000 --bit-choice ,"
  # CoRW implements lowest and rotated (Capabilities::bit_choices), not random.
  "--bit-choice|simulate --allocator corw --N 10 --A 100 --T 1000 --bit-choice random"
  "--bit-choice|simulate --allocator corw --N 10 --A 100 --T 1000 --bit-choice lowest,random"
  "--bit-choice|measure --allocator corw --N 10 --A 100 --T 1000 --bit-choice random"
  "--bit-choice|simulate --allocator corw-lockmap --N 10 --A 100 --T 1000 --bit-choice rotated"
  "--allocator|simulate --allocator cudamalloc --N 10 --A 100 --T 1000"
  "--pages|simulate --allocator rw --pages 2 --N 10 --A 100 --T 1000"
  "--pages|simulate --allocator rwmalloc --pages 2000 --N 10 --A 30000 --T 100000"
  # gg-tbuddy: a tree of at most 2^22 leaves, a request's block (2^ceil(log2 n)
  # pages) within T, at most 2^21 - 1 requests in flight (lockstep: all N).
  "--pages|simulate --allocator gallatin --N 10 --free 1 --T 16777216 --pages 0"
  "--pages|simulate --allocator gallatin --N 10 --free 1 --T 16777216 --pages 16777217"
  "--pages|simulate --allocator gallatin --N 10 --free 1 --T 1048576 --pages 1048577"
  "--T|simulate --allocator gg-tbuddy --N 10 --A 100 --T 5000000"
  "--pages|simulate --allocator gg-tbuddy --N 10 --A 100 --T 1000 --pages 1000"
  "--N|simulate --allocator gg-tbuddy --mode lockstep --N 3000000 --A 100 --T 1000"
  "--allocator|model --allocator gg-tbuddy --N 10 --A 100 --T 1000"
  "--allocator|measure --allocator corw-lockmap --N 10 --A 100 --T 1000"
  # ... and on the GPU the same tree bound, checked before any device is needed.
  "gpu:--T|measure --allocator gg-tbuddy --N 10 --A 100 --T 5000000"
  "gpu:--pages|measure --allocator gg-tbuddy --N 10 --A 100 --T 1000 --pages 1000"
  # `all` stands alone (every allocator on the chosen backends), never beside names.
  "--allocator|sweep --allocator all,rw --backend model,sim --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-all"
  "--allocator|sweep --allocator rw,all --backend model --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-all"
  "--allocator|measure --allocator all,cudamalloc --N 10 --A 100 --T 1000"
  "--allocator|measure --allocator rw,all --N 10 --A 100 --T 1000"
  "--allocator|sweep --allocator cudamalloc --backend model,sim --N 1 --A 5 --T 100 --out /tmp/alloclab-bad-input-gpu-only"
  "--theorems|model --allocator queue --theorems --N 1 --A 5 --T 100"
  "--theorems|model --allocator rwmalloc --theorems --N 1 --A 5 --T 100"
  # Values CLI11 converts itself, unknown options and subcommands: exit 2 like any bad input.
  "--w|model --allocator rw --N 1000 --free 0.5 --T 1e6 --w -3"
  "--N|model --allocator rw --N 2^64 --free 0.5 --T 1e6"
  "--lanes|model --allocator rw --N 1 --A 5 --T 100 --lanes -1"
  "--trials|simulate --allocator rw --N 1 --A 5 --T 100 --trials many"
  "--threads|sweep --allocator rw --N 1 --A 5 --T 100 --threads 1.5 --out /tmp/alloclab-bad-input"
  "--bogus|model --allocator rw --N 1 --A 5 --T 100 --bogus"
  "subcommand|frobnicate --N 1"
  "subcommand|"
  "--free|model --allocator rw --N 1 --A 5 --free 0.5 --T 100"
  # Named grids.
  "--grid|model --allocator rw --grid figure5"
  "--N|model --allocator rw --free 0.5 --T 1e6"
  "--T|simulate --allocator rw --N 10 --free 0.5"
  # A grid whose every point is invalid (a grid with some valid points: partial_grid.cmake).
  "--N|model --allocator rw --N 8192 --A 5000,6000 --T 1e6"
  "--A|simulate --allocator rw --N 10 --A 2000,3000 --T 1000"
  # More memory than the machine has (2^50 pages: 2^47 bytes of bitmap at least).
  "--T|simulate --allocator rw --N 1000 --free 0.5 --T 2^50"
  "--T|simulate --allocator rwbm --mode lockstep --N 1000 --free 0.5 --T 2^50 --trials 3"
  "--T|sweep --allocator rw --backend sim --N 1000 --free 0.5 --T 2^50 --out /tmp/alloclab-bad-input"
  "--gpu-from|sweep --allocator rw --backend model --grid figure4 --gpu-from /nonexistent --out /tmp/alloclab-bad-input"
  "--gpu-from|sweep --allocator rw --backend gpu --grid figure4 --gpu-from /nonexistent --out /tmp/alloclab-bad-input"
  # alloclab workload (sizes, pools, families)
  "--size|workload --allocator queue --workload alloc --N 10 --size 0 --pool 1MiB"
  "--size|workload --allocator gallatin --workload alloc --N 10 --size 0 --pool 16MiB"
  "--pool|workload --allocator gallatin --workload alloc --N 10 --size 32MiB --pool 16MiB"
  "--pool|workload --allocator gallatin --workload mixed --N 10 --size 16..32MiB --pool 16MiB"
  "--preboot|workload --allocator gallatin --backend gpu --workload alloc --N 10 --size 256 --pool 16MiB --preboot"
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
  "gpu:--block|workload --allocator corw --backend gpu --workload alloc --N 64 --size 256 --pool 1MiB --block 512"
  "--block|workload --allocator rw --workload alloc --N 64 --size 256 --pool 1MiB --block 48"
  "--warp-uniform|workload --allocator rw --workload alloc --N 64 --size 256 --pool 1MiB --warp-uniform"
  "--cuda-heap|workload --allocator cudamalloc --backend gpu --workload alloc --N 64 --size 256 --pool 1MiB --cuda-heap 12parsecs"
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
  "--max-steps|workload --allocator rw --backend gpu --workload alloc --N 10 --size 256 --pool 1MiB --max-steps 4294967296"
  # Counts and sizes never wrap (option_values.hpp): CLI11 read -1 into a 64-bit count as
  # 2^64 - 1 (a run without end, a memory estimate in zettabytes).
  "--trials|workload --allocator rw --workload alloc --N 5 --size 16 --pool 64KiB --trials -1"
  "--trials|simulate --allocator rw --N 10 --A 100 --T 1000 --trials -1"
  "--seed|simulate --allocator rw --N 10 --A 100 --T 1000 --seed 18446744073709551616"
  "--lanes|model --allocator rw --N 4 --A 8 --T 16 --lanes 4294967296"
  "--max-rounds|trace --allocator rw --N 4 --A 8 --T 16 --max-rounds 0x10"
  "--free-fraction|workload --allocator queue --workload churn --N 10 --size 256 --pool 1MiB --free-fraction nan"
  "--fish|wator --iterations 1 --fish inf"
  "--figure|trace --figure 99999999999"
  # A model's domain: the condition that fails, not N <= A where that holds.
  "--A|explain --allocator gallatin --N 1024 --free 0.5 --T 1e6"
  "--A|explain --allocator ouro-p-s --N 1024 --free 0.5 --T 1e6"
  "--T|explain --allocator gallatin --N 1024 --free 1 --T 1e6"
  "--T|model --allocator gallatin --N 1024 --free 1 --T 1e6"
  # Lists and grids: bounded before they are expanded.
  "--N|model --allocator rw --N 1:1e9:1 --A 8 --T 16"
  "--N|model --allocator rw --N 1..1e300*1.0000001 --A 8 --T 16"
  "--A|model --allocator rw --N 1:1000:1 --A 1000:2000:1 --T 1e6"
  "--N|semaphore --N 1:1000:1 --batch 1:1000:1"
  # Host threads and requests per call: an input error, not std::bad_alloc or a failed thread.
  "--threads|simulate --allocator rw --mode threads --N 4 --A 8 --T 16 --threads 4294967295"
  "--threads|workload --allocator rw --mode threads --workload alloc --N 5 --size 16 --pool 64KiB --threads 5000"
  "--batch|workload --allocator rw --workload oom --size 16 --pool 64KiB --batch 4294967295"
  "--trials|explain --allocator rw --N 4 --A 8 --T 16 --trials 18446744073709551615"
  # 64KiB of 64 B objects: 1024 slots, so 1025 threads are never served once.
  "--N|linux-scalability --pool 64KiB --N 1025"
  "--width|wator --width 65536 --height 65536 --iterations 1"
  "--height|wator --height 0 --iterations 1"
  "--shark-breed|wator --shark-breed 0 --iterations 1"
  "--shark-energy|wator --shark-energy 0 --iterations 1"
  # 2 + 2 x 2^30 passes 2^31 - 1: a shark's int energy would overflow.
  "--fish-energy|wator --iterations 2 --fish-energy 1073741824"
  # A figure is a case of its own: an option that would be ignored beside it is refused.
  "--allocator|trace --figure 3 --allocator nosuch"
  "--N|trace --figure 5 --N 5:1:1"
  "--study|fit-time . --study .")
set(skipped 0)
foreach(case IN LISTS cases)
  string(FIND "${case}" "|" bar)
  string(SUBSTRING "${case}" 0 ${bar} param)
  if(param MATCHES "^gpu:(.*)$")
    set(param "${CMAKE_MATCH_1}")
    if(NOT HAVE_CUDA)
      math(EXPR skipped "${skipped} + 1")
      continue()
    endif()
  endif()
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
if(skipped GREATER 0)
  message(STATUS "all bad inputs rejected (${skipped} cases of the GPU backend's checks skipped: built without CUDA)")
else()
  message(STATUS "all bad inputs rejected")
endif()
