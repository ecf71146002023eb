#!/usr/bin/env bash
# DynaSOAr on the GPU (issue 15), on the device machine from the repository root: the GPU tests of
# these allocators (their own file, and the generic contract, workload and registry tests, which
# iterate over every GPU allocator), compute-sanitizer (memcheck, racecheck, synccheck) on small
# cases, then the alloc workload at 2^20 threads x one object of 16 / 64 / 256 B (the page = the
# object: one type, N_T = 64) in an 8 GiB pool, cold (the heap pristine before every timed phase)
# and warm (after a warm-up on the same heap), with the allocators' own counts, then the other
# workload families at smaller scale. Every run checks the heap after each phase (studies/dynasoar/,
# "The GPU backend"); a failure is a non-zero exit and a line in the log.
# Usage: scripts/gpu-dynasoar.sh OUT_DIR [tests|measure|all|apps|typed]   (default all; tests = build,
# GPU tests, sanitizers; measure = build, the workloads; apps = build, the typed heap's GPU tests,
# compute-sanitizer on small application runs, then linux-scalability at the paper's size
# (16,384 threads x n objects of 64 B in 1 GiB, dynasoar and bitmap-alloc) and Wa-Tor at the
# authors' size (300 x 300 cells, 500 iterations, r = 1, 2, 5), each run verified after every
# batch: apps_gpu_tests.txt, apps_sanitizer.txt, apps_linux_scalability.csv,
# apps_wator_iterations.csv (one row per iteration; the report's claims read the apps_*.csv),
# apps_heap_sweep.csv (Fig. 14B: n = 64 on heaps of 128 MiB to 8 GiB).
# Not part of all: about 2-3 minutes of its own; typed = build, the GPU tests of `workload
# --types`, memcheck on a small typed churn, then alloc, churn, oom and fragmentation of types
# 60,64 for the three allocators with a typed heap: typed_gpu_tests.txt, typed_sanitizer.txt,
# typed_<family>.csv; not part of all, not timed yet)
set -euo pipefail
OUT=$1
STAGE=${2:-all}
TRIALS=${TRIALS:-3}
DS=${DS:-dynasoar,dynasoar-nocoal,dynasoar-norot,bitmap-alloc}
SIZES=${SIZES:-16 64 256}
. scripts/gpu-setup.sh
gpu_log_start dynasoar
stamp configure
gpu_configure
stamp build
gpu_build alloclab gpu_tests
gpu_metadata "$OUT/metadata.json" "$BUILD/cli/alloclab"
AL=$BUILD/cli/alloclab
if [ "$STAGE" = apps ]; then
  # Each step runs whatever the one before it gave (one device call tells as much as it can); the
  # stage fails at the end if any step failed.
  failed=""
  stamp "gpu_tests: the typed heap of byte sizes and the applications"
  if "$BUILD/gpu/gpu_tests" -# "[#dynasoar_apps_gpu_test]" >"$OUT/apps_gpu_tests.txt" 2>&1; then
    tail -3 "$OUT/apps_gpu_tests.txt"
  else
    tail -80 "$OUT/apps_gpu_tests.txt"
    failed="$failed gpu_tests"
  fi
  stamp "sanitizers on small application runs"
  : >"$OUT/apps_sanitizer.txt"
  small_wator="wator --backend gpu --width 24 --height 24 --iterations 6 --pool 1MiB"
  small_ls="linux-scalability --backend gpu --allocator dynasoar,dynasoar-nocoal --pool 256KiB --N 300"
  for c in "memcheck $small_wator" "memcheck $small_ls" "racecheck $small_wator" \
    "synccheck $small_ls"; do
    tool=${c%% *}
    echo "### $c" >>"$OUT/apps_sanitizer.txt"
    # shellcheck disable=SC2086
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$AL" ${c#* } --format csv \
      >>"$OUT/apps_sanitizer.txt" 2>&1 || failed="$failed $tool"
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/apps_sanitizer.txt" | sort | uniq -c || true
  stamp "linux-scalability: 16,384 threads, 64 B, 1 GiB (dynasoar, bitmap-alloc)"
  if "$AL" linux-scalability --backend gpu --allocator dynasoar,bitmap-alloc --format csv \
    >"$OUT/apps_linux_scalability.csv" 2>"$OUT/apps_linux_scalability.err"; then
    cat "$OUT/apps_linux_scalability.csv"
  else
    cat "$OUT/apps_linux_scalability.err"
    failed="$failed linux-scalability"
  fi
  # Fig. 14B: a fixed problem (16,384 threads x 64 objects of 64 B, 64 MiB) on heaps of 128 MiB
  # to 8 GiB, three runs (seeds) each; the claim takes the median alloc kernel per heap.
  stamp "linux-scalability at n = 64 on 128 MiB .. 8 GiB (Fig. 14B), 3 runs"
  : >"$OUT/apps_heap_sweep.csv"
  for seed in 1 2 3; do
    if [ -s "$OUT/apps_heap_sweep.csv" ]; then h="tail -n +2"; else h="cat"; fi
    "$AL" linux-scalability --backend gpu --allocator dynasoar,bitmap-alloc --max-n 64 \
      --pool 128MiB,512MiB,2GiB,8GiB --seed $seed --format csv 2>>"$OUT/apps_heap_sweep.err" |
      $h >>"$OUT/apps_heap_sweep.csv" || failed="$failed heap-sweep"
  done
  cut -c1-200 "$OUT/apps_heap_sweep.csv"
  stamp "Wa-Tor: 300 x 300 cells, 64 MiB, 500 iterations, r = 1, 2, 5"
  if "$AL" wator --backend gpu --width 300 --height 300 --pool 64MiB --iterations 500 \
    --retries 1,2,5 --per-iteration --format csv >"$OUT/apps_wator_iterations.csv" \
    2>"$OUT/apps_wator.err"; then
    # The header and the rows of iterations 250 and 500 (the iteration column's value).
    awk -F'"' 'NR == 1 || $3 ~ /^,[0-9]+,[0-9]+,[0-9]+,(250|500),/' "$OUT/apps_wator_iterations.csv" |
      cut -c1-220
  else
    cat "$OUT/apps_wator.err"
    failed="$failed wator"
  fi
  [ -z "$failed" ] || fail "apps:$failed (see $OUT/apps_*.txt, $OUT/apps_*.err)"
  stamp "done"
  exit 0
fi
if [ "$STAGE" = typed ]; then
  # `alloclab workload --types` on the GPU's typed heap (studies/dynasoar/, "Typed objects in
  # alloclab workload"); each step runs whatever the one before it gave.
  failed=""
  stamp "gpu_tests: workload --types"
  if "$BUILD/gpu/gpu_tests" -# "[#dynasoar_typed_workload_gpu_test]" >"$OUT/typed_gpu_tests.txt" 2>&1; then
    tail -3 "$OUT/typed_gpu_tests.txt"
  else
    tail -80 "$OUT/typed_gpu_tests.txt"
    failed="$failed gpu_tests"
  fi
  stamp "memcheck on a small typed churn"
  if timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$AL" workload --backend gpu \
    --allocator dynasoar,dynasoar-nocoal --types 60,64 --workload churn --N 2048 --rounds 2 \
    --pool 1MiB --format csv >"$OUT/typed_sanitizer.txt" 2>&1; then
    grep -E "ERROR SUMMARY" "$OUT/typed_sanitizer.txt" || true
  else
    tail -20 "$OUT/typed_sanitizer.txt"
    failed="$failed memcheck"
  fi
  TYPED=${TYPED:-dynasoar,dynasoar-nocoal,dynasoar-norot}
  for family in alloc churn oom fragmentation; do
    case $family in
      alloc | fragmentation) args="--N 1048576 --pool 1GiB" ;;
      churn) args="--N 262144 --rounds 8 --free-fraction 0.5 --pool 256MiB" ;;
      oom) args="--batch 16384 --pool 64MiB" ;;
    esac
    stamp "workload --types 60,64 --workload $family $args"
    # shellcheck disable=SC2086
    if "$AL" workload --backend gpu --allocator "$TYPED" --types 60,64 --workload $family $args \
      --trials "$TRIALS" --format csv >"$OUT/typed_$family.csv" 2>"$OUT/typed_$family.err"; then
      cut -c1-200 "$OUT/typed_$family.csv"
    else
      cat "$OUT/typed_$family.err"
      failed="$failed $family"
    fi
  done
  [ -z "$failed" ] || fail "typed:$failed (see $OUT/typed_*.txt, $OUT/typed_*.err)"
  stamp "done"
  exit 0
fi
if [ "$STAGE" != measure ]; then
  stamp "gpu_tests: dynasoar, and the generic tests over every GPU allocator"
  # -#: Catch2 tags each test with its file ([#file]); a comma is "or".
  "$BUILD/gpu/gpu_tests" -# "[#dynasoar_gpu_test],[#gpu_test],[#workload_test],[#registry_test]" \
    >"$OUT/gpu_tests.txt" 2>&1 || {
    tail -80 "$OUT/gpu_tests.txt"
    fail "GPU tests (see $OUT/gpu_tests.txt)"
  }
  tail -3 "$OUT/gpu_tests.txt"
  stamp sanitizers
  : >"$OUT/sanitizer.txt"
  bad=0
  # Small cases: each allocator alone on a half-free pool (one-page objects use the free slots of
  # the application's blocks), three-page objects on a free one, and a churn whose frees empty
  # blocks (invalidation, deletion, re-initialisation). memcheck on all of them; racecheck and
  # synccheck (shared memory and warp synchronisation: __match_any_sync, __syncwarp) on dynasoar's
  # coalesced kernels and bitmap-alloc's.
  half="--N 3000 --T 65536 --free 0.5 --pages 1 --repeats 1 --warmup 1"
  churn="--workload churn --N 4096 --size 64 --page-bytes 64 --pool 1MiB --rounds 2 --trials 1"
  cases=()
  for algo in ${DS//,/ }; do cases+=("memcheck measure --allocator $algo $half"); done
  cases+=("memcheck measure --allocator dynasoar --N 3000 --T 65536 --free 1 --pages 3 --repeats 1"
    "memcheck workload --backend gpu --allocator dynasoar $churn")
  for tool in racecheck synccheck; do
    cases+=("$tool measure --allocator dynasoar $half" "$tool measure --allocator bitmap-alloc $half"
      "$tool workload --backend gpu --allocator dynasoar $churn")
  done
  for c in "${cases[@]}"; do
    tool=${c%% *}
    echo "### $c" >>"$OUT/sanitizer.txt"
    # shellcheck disable=SC2086
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$AL" ${c#* } --format csv \
      >>"$OUT/sanitizer.txt" 2>&1 || bad=1
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.txt" | sort | uniq -c
  [ $bad = 0 ] || fail "a sanitizer or a run reported an error (see $OUT/sanitizer.txt)"
fi
[ "$STAGE" = tests ] && {
  stamp "done"
  exit 0
}
stamp "alloc workload, 2^20 threads, 8 GiB"
f=$OUT/alloc.csv
for warm in "" --warm; do
  for size in $SIZES; do
    if [ -s "$f" ]; then h="tail -n +2"; else h="cat"; fi
    # shellcheck disable=SC2086
    "$AL" workload --backend gpu --format csv --allocator "$DS" --workload alloc --N '2^20' \
      --size "$size" --page-bytes "$size" --pool 8GiB --trials "$TRIALS" $warm | $h >>"$f"
  done
done
stamp "families"
for fam in mixed churn oom fragmentation; do
  algos=$DS
  extra="--size 64 --page-bytes 64 --pool 1GiB"
  # bitmap-alloc serves one page per request: mixed sizes are the three DynaSOAr allocators'.
  [ $fam = mixed ] && algos=${DS//,bitmap-alloc/} &&
    extra="--size 16..1024 --page-bytes 16 --N 2^18 --pool 1GiB"
  [ $fam = churn ] && extra="$extra --N 2^18 --rounds 10"
  [ $fam = oom ] && extra="--size 64 --page-bytes 64 --pool 64MiB --batch 65536"
  [ $fam = fragmentation ] && extra="$extra --N 100000"
  # shellcheck disable=SC2086
  "$AL" workload --backend gpu --format csv --allocator "$algos" --workload $fam \
    --trials 2 $extra >"$OUT/$fam.csv" 2>"$OUT/$fam.err" || echo "$fam FAILED: $(tail -2 "$OUT/$fam.err")"
done
stamp "done"
