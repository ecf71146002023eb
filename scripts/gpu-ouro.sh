#!/usr/bin/env bash
# Ouroboros on the GPU (issue 12), on the device machine from the repository root: the GPU tests,
# compute-sanitizer (memcheck, racecheck, synccheck) on small cases of each variant, then the reference
# workload of reports/peers/ouroboros_bench.csv (2^20 threads x one allocation of 16 / 256 /
# 4096 B, 8 GiB pool) cold (the pool pristine before every timed phase) and warm (as the public
# benchmark times it: after a warm-up on the same instance), with RW-BM rotated and the queue
# beside it for the same session, then the other workload families.
# Usage: scripts/gpu-ouro.sh OUT_DIR [tests|measure|all|probe|claims]   (default all; the two halves
# fit one device call each: tests = build, GPU tests, sanitizers; measure = build, the
# workloads; probe = build, then how the cold alloc workload grows with N at one size, with the
# allocators' own counts per request: PROBE_SIZE (default 4096), PROBE_N (default "2^14 2^16
# 2^18"), each run cut at PROBE_LIMIT seconds (default 60; a cut run is a line in probe.txt);
# claims = build, then the churn rounds and the comparison with CUDA's malloc the claims read)
set -euo pipefail
OUT=$1
STAGE=${2:-all}
TRIALS=${TRIALS:-5}  # trials of the reference workload
OURO=${OURO:-ouro-p-s,ouro-c-s}  # the Ouroboros allocators measured
# Sizes of the reference workload (all six at 16 / 256 / 4096 B, 3 trials, fit one call since
# b755329: studies/ouroboros/measured.md, "Measured: all six").
SIZES=${SIZES:-16 256 4096}
. scripts/gpu-setup.sh
gpu_log_start ouro
stamp configure
gpu_configure
stamp build
gpu_build alloclab gpu_tests
gpu_metadata "$OUT/metadata.json" "$BUILD/cli/alloclab"
AL=$BUILD/cli/alloclab
if [ "$STAGE" = probe ]; then
  stamp "probe"
  f=$OUT/probe.csv
  for algo in ${OURO//,/ }; do
    for n in ${PROBE_N:-2^14 2^16 2^18}; do
      if [ -s "$f" ]; then h="tail -n +2"; else h=cat; fi
      start=$(date +%s%N)
      timeout "${PROBE_LIMIT:-60}" "$AL" workload --backend gpu --format csv --allocator "$algo" \
        --workload alloc --N "$n" --size "${PROBE_SIZE:-4096}" --pool 8GiB --trials 1 \
        2>>"$OUT/probe.txt" | $h >>"$f" || echo "$algo N=$n: cut or failed (status $?)" >>"$OUT/probe.txt"
      echo "$algo N=$n: $((($(date +%s%N) - start) / 1000000)) ms wall" >>"$OUT/probe.txt"
    done
  done
  cat "$OUT/probe.txt"
  stamp done
  exit 0
fi
if [ "$STAGE" = claims ]; then
  # The rows the report's claims of seed 002 read beyond the reference workload: churn rounds at
  # 16 and 256 B with the counters on (C's walk against the refill model, model/ouro_walk.hpp), and
  # §6.1.1's comparison with CUDA's malloc at 10,000 and 100,000 allocations of 16 B .. 8 KiB on a
  # 2 GiB pool (warm: the allocators reused, as the paper's 100 runs reuse them).
  stamp "claims: churn"
  "$AL" workload --backend gpu --format csv --allocator ouro-c-s,ouro-p-s --workload churn \
    --size 16,256 --N '2^18' --rounds 3 --free-fraction 0.5 --pool 1GiB --trials 2 \
    >"$OUT/churn.csv"
  stamp "claims: against CUDA's malloc"
  "$AL" workload --backend gpu --format csv --allocator ouro-p-s,ouro-c-s,cudamalloc \
    --workload alloc --N 10000,100000 --size 16,64,256,1024,4096,8192 --pool 2GiB --trials 3 \
    --counters off --warm >"$OUT/alloc_vs_cuda.csv"
  stamp done
  exit 0
fi
if [ "$STAGE" != measure ]; then
stamp "ctest -L gpu"
(cd "$BUILD" && ctest -L gpu --output-on-failure -j1) >"$OUT/ctest.txt" 2>&1 || {
  tail -60 "$OUT/ctest.txt"
  fail "GPU tests"
}
tail -3 "$OUT/ctest.txt"
stamp sanitizers
: >"$OUT/sanitizer.txt"
bad=0
for tool in memcheck racecheck synccheck; do
  for algo in ${OURO//,/ }; do
  for args in "--N 3000 --T 1e6 --free 1 --pages 1" "--N 3000 --T 262144 --free 1 --pages 64" \
    "--N 10000 --T 8192 --free 1 --pages 1"; do
    echo "### $tool measure --allocator $algo $args" >>"$OUT/sanitizer.txt"
    # shellcheck disable=SC2086
    compute-sanitizer --tool $tool --error-exitcode 9 "$AL" measure --allocator $algo $args \
      --repeats 1 --warmup 1 --format csv >>"$OUT/sanitizer.txt" 2>&1 || bad=1
  done
  done
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.txt" | sort | uniq -c
[ $bad = 0 ] || fail "a sanitizer reported an error (see $OUT/sanitizer.txt)"
fi
[ "$STAGE" = tests ] && { stamp done; exit 0; }
stamp "reference workload"
f=$OUT/alloc.csv
for warm in "" --warm; do
  for size in $SIZES; do
    if [ -s "$f" ]; then h="tail -n +2"; else h=cat; fi
    # shellcheck disable=SC2086
    "$AL" workload --backend gpu --format csv --allocator $OURO,queue,rwbm --bit-choice lowest \
      --workload alloc --N '2^20' --size $size --page-bytes $size --pool 8GiB --trials $TRIALS \
      --counters off $warm | $h >>"$f"
  done
done
stamp "counters"
sizes=${SIZES// /,}
"$AL" workload --backend gpu --format csv --allocator $OURO --workload alloc --N '2^20' \
  --size "$sizes" --pool 8GiB --trials 2 >"$OUT/alloc_counters.csv"
"$AL" workload --backend gpu --format csv --allocator $OURO --workload alloc --N '2^20' \
  --size "$sizes" --pool 8GiB --trials 2 --warm | tail -n +2 >>"$OUT/alloc_counters.csv"
stamp "families"
for fam in mixed churn oom fragmentation; do
  extra="--pool 1GiB"
  [ $fam = mixed ] && extra="--size 16..4096 --N 2^18 --pool 1GiB"
  [ $fam = churn ] && extra="--size 16 --N 2^18 --rounds 10 --pool 1GiB"
  [ $fam = oom ] && extra="--size 16 --pool 64MiB --batch 65536"
  [ $fam = fragmentation ] && extra="--size 16 --N 100000 --pool 1GiB"
  # shellcheck disable=SC2086
  "$AL" workload --backend gpu --format csv --allocator $OURO --workload $fam \
    --trials 2 $extra >"$OUT/$fam.csv" 2>"$OUT/$fam.err" || echo "$fam FAILED: $(tail -2 "$OUT/$fam.err")"
done
# Out of memory where the pool, not the class's 2^20-page count, is the limit: 16 MiB is 2048
# chunks, 2^20 pages of 16 B (a virtualized queue keeps a fifth of them for its Queue-Chunks).
"$AL" workload --backend gpu --format csv --allocator $OURO --workload oom --size 16 \
  --pool 16MiB --batch 65536 --trials 2 >"$OUT/oom_16MiB.csv" 2>"$OUT/oom_16MiB.err" ||
  echo "oom 16MiB FAILED: $(tail -2 "$OUT/oom_16MiB.err")"
stamp done
