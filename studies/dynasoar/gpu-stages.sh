# shellcheck shell=bash
# DynaSOAr (Springer & Masuhara, ECOOP'19) on the GPU: `scripts/gpu.sh dynasoar STAGE [OUT]`
# (docs/gpu-device.md). The GPU tests of these allocators (their own file, and the generic
# contract, workload and registry tests, which iterate over every GPU allocator), compute-sanitizer
# (memcheck, racecheck, synccheck) on small cases, then the alloc workload at 2^20 threads x one
# object of 16 / 64 / 256 B (the page = the object: one type, N_T = 64) in an 8 GiB pool, cold (the
# heap pristine before every timed phase) and warm (after a warm-up on the same heap), with the
# allocators' own counts, then the other workload families at smaller scale. Every run checks the
# heap after each phase (studies/dynasoar/, "The GPU backend"); a failure is a non-zero exit and a
# line in the log. Sourced by scripts/gpu.sh after scripts/gpu-setup.sh. Knobs (environment): DS,
# the allocators (default: the registry's below), TRIALS (default 3), SIZES (default "16 64 256"),
# TYPED (the typed stage's allocators).
# shellcheck disable=SC2034 # GPU_DEFAULT_STAGE and GPU_ALLOCATORS: read by scripts/gpu.sh
GPU_DEFAULT_STAGE=tests
# The allocators these stages cover (scripts/gpu-stages.sh leaves them out).
GPU_ALLOCATORS='^(dynasoar(-.*)?|bitmap-alloc)$'

# The registry's GPU allocators these stages cover (options: alloclab list's filters).
dynasoar_allocators() {
  if [ -n "${DS:-}" ]; then
    echo "$DS"
    return
  fi
  gpu_allocators "$@" | tr , '\n' | { grep -E "$GPU_ALLOCATORS" || true; } | paste -sd, -
}

stage_tests() { # their GPU tests and the generic ones, compute-sanitizer on small cases
  gpu_prepare alloclab gpu_tests
  dynasoar_tests
}

stage_measure() { # the alloc workload (2^20 x 16/64/256 B, 8 GiB) cold and warm, the families
  gpu_prepare alloclab
  dynasoar_measure
}

stage_all() { # tests, then measure
  gpu_prepare alloclab gpu_tests
  dynasoar_tests
  dynasoar_measure
}

dynasoar_tests() {
  gpu_ctest "$OUT/gpu_tests.txt" dynasoar_gpu_test gpu_test workload_test registry_test ||
    fail "GPU tests (see $OUT/gpu_tests.txt)"
  gpu_sanitize_begin "$OUT/sanitizer.txt"
  # Small cases: each allocator alone on a half-free pool (one-page objects use the free slots of
  # the application's blocks), three-page objects on a free one, and a churn whose frees empty
  # blocks (invalidation, deletion, re-initialisation). memcheck on all of them; racecheck and
  # synccheck (shared memory and warp synchronisation: __match_any_sync, __syncwarp) on dynasoar's
  # coalesced kernels and bitmap-alloc's.
  local algo half="--N 3000 --T 65536 --free 0.5 --pages 1 --repeats 1 --warmup 1"
  local churn="--workload churn --N 4096 --size 64 --page-bytes 64 --pool 1MiB --rounds 2"
  churn="$churn --trials 1"
  # shellcheck disable=SC2086
  {
    for algo in $(dynasoar_allocators | tr , ' '); do
      gpu_sanitize memcheck "$AL" measure --allocator "$algo" $half --format csv
    done
    gpu_sanitize memcheck "$AL" measure --allocator dynasoar --N 3000 --T 65536 --free 1 --pages 3 \
      --repeats 1 --format csv
    gpu_sanitize memcheck "$AL" workload --backend gpu --allocator dynasoar $churn --format csv
    gpu_sanitize "racecheck synccheck" "$AL" measure --allocator dynasoar $half --format csv
    gpu_sanitize "racecheck synccheck" "$AL" measure --allocator bitmap-alloc $half --format csv
    gpu_sanitize "racecheck synccheck" "$AL" workload --backend gpu --allocator dynasoar $churn \
      --format csv
  }
  gpu_sanitize_end || fail "a sanitizer or a run reported an error (see $OUT/sanitizer.txt)"
}

dynasoar_measure() {
  stamp "alloc workload, 2^20 threads, 8 GiB"
  local ds warm size fam algos extra f=$OUT/alloc.csv
  ds=$(dynasoar_allocators)
  for warm in "" --warm; do
    for size in ${SIZES:-16 64 256}; do
      # shellcheck disable=SC2086
      gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator "$ds" --workload alloc \
        --N '2^20' --size "$size" --page-bytes "$size" --pool 8GiB --trials "${TRIALS:-3}" $warm
    done
  done
  stamp "families"
  for fam in mixed churn oom fragmentation; do
    algos=$ds
    extra="--size 64 --page-bytes 64 --pool 1GiB"
    # Mixed sizes need requests of several pages: not bitmap-alloc's (one page a request).
    [ $fam = mixed ] && algos=$(dynasoar_allocators --requests pages) &&
      extra="--size 16..1024 --page-bytes 16 --N 2^18 --pool 1GiB"
    [ $fam = churn ] && extra="$extra --N 2^18 --rounds 10"
    [ $fam = oom ] && extra="--size 64 --page-bytes 64 --pool 64MiB --batch 65536"
    [ $fam = fragmentation ] && extra="$extra --N 100000"
    # shellcheck disable=SC2086
    gpu_do "$AL" workload --backend gpu --format csv --allocator "$algos" --workload $fam \
      --trials 2 $extra >"$OUT/$fam.csv" 2>"$OUT/$fam.err" ||
      echo "$fam FAILED: $(tail -2 "$OUT/$fam.err")"
  done
}

stage_apps() { # the typed heap's GPU tests, sanitizers, linux-scalability and Wa-Tor at paper size
  # Linux-scalability at the paper's size (16,384 threads x n objects of 64 B in 1 GiB, dynasoar
  # and bitmap-alloc), Fig. 14B (n = 64 on heaps of 128 MiB to 8 GiB) and Wa-Tor at the authors'
  # size (300 x 300 cells, 500 iterations, r = 1, 2, 5), each run verified after every batch:
  # apps_gpu_tests.txt, apps_sanitizer.txt, apps_linux_scalability.csv, apps_heap_sweep.csv,
  # apps_wator_iterations.csv (one row per iteration; the report's claims read the apps_*.csv).
  # About 2-3 minutes. Each step runs whatever the one before it gave (one device call tells as
  # much as it can); the stage fails at the end if any step failed.
  gpu_prepare alloclab gpu_tests
  local failed="" seed
  gpu_ctest "$OUT/apps_gpu_tests.txt" dynasoar_apps_gpu_test || failed="$failed gpu_tests"
  gpu_sanitize_begin "$OUT/apps_sanitizer.txt"
  local wator=(wator --backend gpu --width 24 --height 24 --iterations 6 --pool 1MiB --format csv)
  # shellcheck disable=SC2054 # commas inside arguments
  local ls=(linux-scalability --backend gpu --allocator dynasoar,dynasoar-nocoal --pool 256KiB
    --N 300 --format csv)
  gpu_sanitize memcheck "$AL" "${wator[@]}"
  gpu_sanitize memcheck "$AL" "${ls[@]}"
  gpu_sanitize racecheck "$AL" "${wator[@]}"
  gpu_sanitize synccheck "$AL" "${ls[@]}"
  gpu_sanitize_end || failed="$failed sanitizers"
  stamp "linux-scalability: 16,384 threads, 64 B, 1 GiB (dynasoar, bitmap-alloc)"
  if gpu_do "$AL" linux-scalability --backend gpu --allocator dynasoar,bitmap-alloc --format csv \
    >"$OUT/apps_linux_scalability.csv" 2>"$OUT/apps_linux_scalability.err"; then
    gpu_dry || cat "$OUT/apps_linux_scalability.csv"
  else
    cat "$OUT/apps_linux_scalability.err"
    failed="$failed linux-scalability"
  fi
  # Fig. 14B: a fixed problem (16,384 threads x 64 objects of 64 B, 64 MiB) on heaps of 128 MiB
  # to 8 GiB, three runs (seeds) each; the claim takes the median alloc kernel per heap.
  stamp "linux-scalability at n = 64 on 128 MiB .. 8 GiB (Fig. 14B), 3 runs"
  : >"$OUT/apps_heap_sweep.csv"
  for seed in 1 2 3; do
    gpu_csv "$OUT/apps_heap_sweep.csv" "$AL" linux-scalability --backend gpu \
      --allocator dynasoar,bitmap-alloc --max-n 64 --pool 128MiB,512MiB,2GiB,8GiB --seed $seed \
      --format csv 2>>"$OUT/apps_heap_sweep.err" || failed="$failed heap-sweep"
  done
  gpu_dry || cut -c1-200 "$OUT/apps_heap_sweep.csv"
  stamp "Wa-Tor: 300 x 300 cells, 64 MiB, 500 iterations, r = 1, 2, 5"
  if gpu_do "$AL" wator --backend gpu --width 300 --height 300 --pool 64MiB --iterations 500 \
    --retries 1,2,5 --per-iteration --format csv >"$OUT/apps_wator_iterations.csv" \
    2>"$OUT/apps_wator.err"; then
    # The header and the rows of iterations 250 and 500 (the iteration column's value).
    gpu_dry || awk -F'"' 'NR == 1 || $3 ~ /^,[0-9]+,[0-9]+,[0-9]+,(250|500),/' \
      "$OUT/apps_wator_iterations.csv" | cut -c1-220
  else
    cat "$OUT/apps_wator.err"
    failed="$failed wator"
  fi
  [ -z "$failed" ] || fail "apps:$failed (see $OUT/apps_*.txt, $OUT/apps_*.err)"
}

stage_typed() { # workload --types 60,64 (alloc, churn, oom, fragmentation) on the typed heap
  # `alloclab workload --types` on the GPU's typed heap (studies/dynasoar/, "Typed objects in
  # alloclab workload"): its GPU tests, memcheck on a small typed churn, then the four families
  # for the three allocators with a typed heap (TYPED): typed_gpu_tests.txt, typed_sanitizer.txt,
  # typed_<family>.csv. Each step runs whatever the one before it gave.
  gpu_prepare alloclab gpu_tests
  local failed="" family args typed
  typed=${TYPED:-$(dynasoar_allocators --requests pages)}
  gpu_ctest "$OUT/typed_gpu_tests.txt" dynasoar_typed_workload_gpu_test ||
    failed="$failed gpu_tests"
  gpu_sanitize_begin "$OUT/typed_sanitizer.txt"
  gpu_sanitize memcheck "$AL" workload --backend gpu --allocator dynasoar,dynasoar-nocoal \
    --types 60,64 --workload churn --N 2048 --rounds 2 --pool 1MiB --format csv
  gpu_sanitize_end || failed="$failed memcheck"
  for family in alloc churn oom fragmentation; do
    case $family in
      alloc | fragmentation) args="--N 1048576 --pool 1GiB" ;;
      churn) args="--N 262144 --rounds 8 --free-fraction 0.5 --pool 256MiB" ;;
      oom) args="--batch 16384 --pool 64MiB" ;;
    esac
    stamp "workload --types 60,64 --workload $family $args"
    # shellcheck disable=SC2086
    if gpu_do "$AL" workload --backend gpu --allocator "$typed" --types 60,64 --workload $family \
      $args --trials "${TRIALS:-3}" --format csv >"$OUT/typed_$family.csv" \
      2>"$OUT/typed_$family.err"; then
      gpu_dry || cut -c1-200 "$OUT/typed_$family.csv"
    else
      cat "$OUT/typed_$family.err"
      failed="$failed $family"
    fi
  done
  [ -z "$failed" ] || fail "typed:$failed (see $OUT/typed_*.txt, $OUT/typed_*.err)"
}
