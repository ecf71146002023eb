#!/usr/bin/env bash
# Gallatin on the GPU (issue 14), on the device machine from the repository root: the GPU tests
# that run gallatin (its own and the generic workload cases that iterate every allocator),
# compute-sanitizer (memcheck, racecheck, synccheck) on small cases, then the reference workload
# of reports/peers/gallatin_bench.csv (2^20 threads x one allocation of 16 / 256 / 4096 B,
# 8 GiB pool) cold (the pool pristine before every timed phase) and warm (--warm: the repeats on
# the same instance), timed with --counters off, then once with the counters (the per-request
# counts the simulator reports), then the other workload families on a smaller scale.
# Usage: scripts/gpu-gallatin.sh OUT_DIR [tests|measure|claims|all]   (default all; tests = build,
# GPU tests, sanitizers; measure = build, the workloads; claims = build, the paper's figures the
# report's claims rows read: utilisation at out of memory on 2 GiB, warm-up at 2 KiB, the
# fragmentation rank beside the other allocators). Everything is meant to fit 8 minutes on an
# H200 after the build.
set -euo pipefail
OUT=$1
STAGE=${2:-all}
TRIALS=${TRIALS:-3}  # trials of the reference workload
SIZES=${SIZES:-16 256 4096}
. scripts/gpu-setup.sh
gpu_log_start gallatin
stamp configure
gpu_configure
stamp build
gpu_build alloclab gpu_tests
gpu_metadata "$OUT/metadata.json" "$BUILD/cli/alloclab"
AL=$BUILD/cli/alloclab
if [ "$STAGE" = tests ] || [ "$STAGE" = all ]; then
  stamp "ctest -L gpu (gallatin)"
  (cd "$BUILD" && ctest -L gpu --output-on-failure -j1 \
    -R 'gallatin|every GPU allocator|GPU churn|GPU oom: the queue|GPU repeats') \
    >"$OUT/ctest.txt" 2>&1 || {
    tail -60 "$OUT/ctest.txt"
    fail "GPU tests"
  }
  tail -3 "$OUT/ctest.txt"
  stamp sanitizers
  : >"$OUT/sanitizer.txt"
  bad=0
  for tool in memcheck racecheck synccheck; do
    # One segment (2^20 units of 16 B) at 16 B and 256 B, four segments at 4096 B: measure runs
    # the allocation kernel twice and the free kernel once.
    # Above 4096 B: 2 x 4 KiB slices, whole 64 KiB blocks, and 2-segment runs from the back on 8
    # segments (4 fit: the other 6 get null).
    for args in "--N 3000 --T 1048576 --free 1 --pages 1" "--N 3000 --T 1048576 --free 1 --pages 16" \
      "--N 5000 --T 4194304 --free 1 --pages 256" "--N 3000 --T 4194304 --free 1 --pages 512" \
      "--N 500 --T 4194304 --free 1 --pages 4096" "--N 10 --T 8388608 --free 1 --pages 1048577"; do
      echo "### $tool measure --allocator gallatin $args" >>"$OUT/sanitizer.txt"
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 9 "$AL" measure --allocator gallatin $args \
        --repeats 1 --warmup 1 --format csv >>"$OUT/sanitizer.txt" 2>&1 || bad=1
    done
    # Frees that give blocks and segments back, and allocations after them.
    echo "### $tool workload churn" >>"$OUT/sanitizer.txt"
    compute-sanitizer --tool $tool --error-exitcode 9 "$AL" workload --backend gpu \
      --allocator gallatin --workload churn --N 4096 --size 256 --rounds 2 --pool 16MiB \
      --trials 1 --format csv >>"$OUT/sanitizer.txt" 2>&1 || bad=1
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.txt" | sort | uniq -c
  [ $bad = 0 ] || fail "a sanitizer reported an error (see $OUT/sanitizer.txt)"
fi
[ "$STAGE" = tests ] && {
  stamp done
  exit 0
}
claims() {
  # §6.11, Fig. 6c: batches of 100,000 until a null, on a 2 GB pool (the paper: 89.1% at 256 B).
  stamp "claims: utilisation at out of memory, 2 GiB, batches of 100,000"
  local f=$OUT/claims_utilisation.csv
  for size in 16 64 256 1024 4096; do
    if [ -s "$f" ]; then h="tail -n +2"; else h=cat; fi
    "$AL" workload --backend gpu --format csv --allocator gallatin --workload oom --size $size \
      --pool 2GiB --batch 100000 --trials 1 | $h >>"$f"
  done
  # §6.9: the same allocations on a fresh and on a used allocator (the paper: 2 KB, 2.13197 ->
  # 2.15344 ms, under 1%).
  stamp "claims: warm-up, 2^20 x 2 KiB cold and warm"
  f=$OUT/claims_warmup.csv
  "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc --N '2^20' \
    --size 2048 --page-bytes 2048 --pool 8GiB --trials 5 --counters off >"$f"
  "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc --N '2^20' \
    --size 2048 --page-bytes 2048 --pool 8GiB --trials 5 --counters off --warm | tail -n +2 >>"$f"
  # §6.10, Fig. 6a: the address range of a static set of allocations, beside the allocators the
  # paper ranks (the Ouroboros family first, Gallatin third) and CUDA's malloc.
  stamp "claims: fragmentation rank, 2^20 x 256 B, 8 GiB"
  "$AL" workload --backend gpu --format csv --workload fragmentation --N '2^20' --size 256 \
    --pool 8GiB --trials 1 --allocator \
    gallatin,ouro-p-s,ouro-p-va,ouro-p-vl,ouro-c-s,ouro-c-va,ouro-c-vl,queue,cudamalloc \
    >"$OUT/claims_fragmentation.csv"
}
if [ "$STAGE" = claims ]; then
  claims
  stamp done
  exit 0
fi
stamp "reference workload"
f=$OUT/alloc.csv
for warm in "" --warm; do
  for size in $SIZES; do
    if [ -s "$f" ]; then h="tail -n +2"; else h=cat; fi
    # shellcheck disable=SC2086
    "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc --N '2^20' \
      --size $size --page-bytes $size --pool 8GiB --trials $TRIALS --counters off $warm |
      $h >>"$f"
  done
done
cut -d, -f6,18,20,33 "$f" # size, alloc_ms, init_ms, verified
stamp "counters"
sizes=${SIZES// /,}
"$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc --N '2^20' \
  --size "$sizes" --pool 8GiB --trials 1 >"$OUT/alloc_counters.csv"
"$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc --N '2^20' \
  --size "$sizes" --pool 8GiB --trials 1 --warm | tail -n +2 >>"$OUT/alloc_counters.csv"
stamp "families"
for fam in mixed churn oom fragmentation; do
  extra="--pool 1GiB"
  [ $fam = mixed ] && extra="--size 16..4096 --N 2^18 --pool 1GiB"
  [ $fam = churn ] && extra="--size 256 --N 2^18 --rounds 10 --pool 1GiB"
  [ $fam = oom ] && extra="--size 256 --pool 256MiB --batch 65536"
  [ $fam = fragmentation ] && extra="--size 16 --N 100000 --pool 1GiB"
  # shellcheck disable=SC2086
  "$AL" workload --backend gpu --format csv --allocator gallatin --workload $fam \
    --trials 2 $extra >"$OUT/$fam.csv" 2>"$OUT/$fam.err" || echo "$fam FAILED: $(tail -2 "$OUT/$fam.err")"
done
claims
stamp done
