#!/usr/bin/env bash
# Gelado & Garland on the GPU (issue 13), on the device machine from the repository root: the
# GPU tests, compute-sanitizer (memcheck, racecheck, synccheck) on small semaphore runs, then
# Figure 5 (`alloclab semaphore --backend gpu`: the bulk against the counting semaphore, each
# thread one unit, batches of 512 as the paper, and of 64 and 4096 beside it) over N = 2^10 ..
# 2^20 and the block sizes 32, 256 and 1024 (the paper averaged 1 .. 1024).
# Usage: scripts/gpu-gelado.sh OUT_DIR [tests|measure|all|tbuddy|ualloc|rcu]   (default all; tbuddy =
# gg-tbuddy's GPU tests, compute-sanitizer on small measures, and the alloc workload on a 1 GiB
# pool of 256 B pages, 2^14 .. 2^20 requests of 256 B and 2^14 .. 2^18 of 4 KiB, with the counters
# on and off; ualloc = gg-ualloc's and gg-malloc's GPU tests, compute-sanitizer on small runs, and
# Figure 7 (scripts/gpu-gelado-ualloc.sh); rcu = Figure 6: the list benchmark's GPU tests, memcheck
# on a small run, and `alloclab rcu --backend gpu` over N and writers:threads ratios into
# OUT/figure6.csv, both barriers at each point, about a minute of GPU time)
set -euo pipefail
OUT=$1
STAGE=${2:-all}
NS=${NS:-1024..1048576*4}
. scripts/gpu-setup.sh
gpu_log_start gelado
stamp configure
gpu_configure
stamp build
gpu_build alloclab gpu_tests
gpu_metadata "$OUT/metadata.json" "$BUILD/cli/alloclab"
AL=$BUILD/cli/alloclab
if [ "$STAGE" = ualloc ]; then
  . scripts/gpu-gelado-ualloc.sh
  ualloc_stage
  stamp done
  exit 0
fi
if [ "$STAGE" = rcu ]; then
  stamp "ctest -L gpu -R rcu"
  (cd "$BUILD" && ctest -L gpu -R "rcu bench" --output-on-failure -j1) >"$OUT/ctest-rcu.txt" 2>&1 || {
    tail -60 "$OUT/ctest-rcu.txt"
    fail "GPU tests"
  }
  tail -3 "$OUT/ctest-rcu.txt"
  stamp "rcu memcheck"
  compute-sanitizer --tool memcheck --error-exitcode 9 "$AL" rcu --backend gpu --N 2048 \
    --ratio 1,16 --repeats 1 --warmup 0 --format csv >"$OUT/sanitizer-rcu.txt" 2>&1 ||
    fail "memcheck reported an error (see $OUT/sanitizer-rcu.txt)"
  grep -E "ERROR SUMMARY" "$OUT/sanitizer-rcu.txt" | sort | uniq -c
  stamp "figure 6"
  # One command per point (rows stream out; each cut at LIMIT seconds, which the log records and
  # the pass then fails on). The work grows as N^2 / ratio (every thread walks the list), so
  # ratio 1 stops at N = 16384. Block 256, then 32 and 1024 at one point (the paper averaged
  # blocks of 1 .. 1024).
  LIMIT=${LIMIT:-60}
  f=$OUT/figure6.csv
  : >"$f"
  bad=0
  rcu_point() { # N RATIO BLOCK
    local h=cat start
    [ -s "$f" ] && h="tail -n +2"
    start=$(date +%s%N)
    timeout "$LIMIT" "$AL" rcu --backend gpu --N "$1" --ratio "$2" --block "$3" \
      --repeats "${REPEATS:-3}" --format csv 2>>"$OUT/figure6.log" | $h >>"$f" || {
      echo "N $1 ratio $2 block $3: cut or failed" >>"$OUT/figure6.log"
      bad=1
    }
    echo "N $1 ratio $2 block $3: $((($(date +%s%N) - start) / 1000000)) ms wall" >>"$OUT/figure6.log"
  }
  for n in ${FIG6_N:-1024 4096 16384 65536}; do
    for ratio in 1 4 16 64 256; do
      [ "$ratio" -gt "$n" ] && continue
      [ "$n" -gt 16384 ] && [ "$ratio" -lt 4 ] && continue
      rcu_point "$n" "$ratio" 256
    done
  done
  for block in 32 1024; do rcu_point 16384 4 $block; done
  grep wall "$OUT/figure6.log" | tail -40
  cut -d, -f3-6,8,9,23,24,26 "$f" | (column -s, -t 2>/dev/null || cat)
  [ $bad = 0 ] || fail "figure 6: a point was cut or failed (see $OUT/figure6.log)"
  stamp done
  exit 0
fi
if [ "$STAGE" = tbuddy ]; then
  stamp "ctest -L gpu -R tbuddy"
  (cd "$BUILD" && ctest -L gpu -R "tbuddy|GPU" --output-on-failure -j1) >"$OUT/ctest-tbuddy.txt" 2>&1 || {
    tail -60 "$OUT/ctest-tbuddy.txt"
    fail "GPU tests"
  }
  tail -3 "$OUT/ctest-tbuddy.txt"
  stamp "tbuddy sanitizers"
  : >"$OUT/sanitizer-tbuddy.txt"
  bad=0
  for tool in memcheck racecheck synccheck; do
    for args in "--N 3000 --A 8192 --T 16384 --pages 1" "--N 3000 --A 2000 --T 4096 --pages 3"; do
      echo "### $tool measure --allocator gg-tbuddy $args" >>"$OUT/sanitizer-tbuddy.txt"
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 9 "$AL" measure --allocator gg-tbuddy $args \
        --repeats 1 --warmup 1 --format csv >>"$OUT/sanitizer-tbuddy.txt" 2>&1 || bad=1
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-tbuddy.txt" | sort | uniq -c
  [ $bad = 0 ] || fail "a sanitizer reported an error (see $OUT/sanitizer-tbuddy.txt)"
  stamp "tbuddy workloads"
  for counters in on off; do
    # 1 GiB of 256 B pages is 2^22, TBuddy's largest tree; 4 KiB requests take 16 pages, so
    # 2^18 of them fill it.
    for point in "256 16384..1048576*4" "4096 16384..262144*4"; do
      set -- $point
      f=$OUT/tbuddy-alloc-counters-$counters.csv
      h=cat
      [ -s "$f" ] && h="tail -n +2"
      timeout 120 "$AL" workload --backend gpu --format csv --allocator gg-tbuddy \
        --workload alloc --N "$2" --size "$1" --pool 1GiB --page-bytes 256 --trials 2 \
        --counters $counters | $h >>"$f" ||
        echo "tbuddy alloc $1 B (counters $counters): failed or cut (status $?)"
    done
  done
  stamp done
  exit 0
fi
if [ "$STAGE" != measure ]; then
  stamp "ctest -L gpu -R semaphore"
  (cd "$BUILD" && ctest -L gpu -R semaphore --output-on-failure -j1) >"$OUT/ctest.txt" 2>&1 || {
    tail -60 "$OUT/ctest.txt"
    fail "GPU tests"
  }
  tail -3 "$OUT/ctest.txt"
  stamp sanitizers
  : >"$OUT/sanitizer.txt"
  bad=0
  for tool in memcheck racecheck synccheck; do
    for args in "--N 5000 --batch 64" "--N 3000 --batch 16 --batches 20"; do
      echo "### $tool semaphore $args" >>"$OUT/sanitizer.txt"
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 9 "$AL" semaphore --backend gpu $args \
        --repeats 1 --warmup 0 --format csv >>"$OUT/sanitizer.txt" 2>&1 || bad=1
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.txt" | sort | uniq -c
  [ $bad = 0 ] || fail "a sanitizer reported an error (see $OUT/sanitizer.txt)"
fi
[ "$STAGE" = tests ] && {
  stamp done
  exit 0
}
stamp "figure 5"
# One command per point (rows stream out; each cut at LIMIT seconds, which the log records and
# the pass then fails on: a wait that long is a defect). Each thread for itself, as the paper:
# the paper's batch (512) at three block sizes, then batches of 64 and 4096 at 256 threads a
# block, up to N = 2^16 (a launch's time grows as N^2: 2^18 once, at batch 512, block 256; 2^20
# would take minutes). Then the same with warp aggregation (--warp) up to N = 2^20.
LIMIT=${LIMIT:-60}
f=$OUT/figure5.csv
: >"$f"
bad=0
point() { # BATCH BLOCK N [extra options]
  local h=cat start batch=$1 block=$2 n=$3
  shift 3
  [ -s "$f" ] && h="tail -n +2"
  start=$(date +%s%N)
  timeout "$LIMIT" "$AL" semaphore --backend gpu --N "$n" --batch "$batch" --block "$block" \
    --repeats "${REPEATS:-5}" --format csv "$@" 2>>"$OUT/figure5.log" | $h >>"$f" || {
    echo "batch $batch block $block N $n $*: cut or failed" >>"$OUT/figure5.log"
    bad=1
  }
  echo "batch $batch block $block N $n $*: $((($(date +%s%N) - start) / 1000000)) ms wall" \
    >>"$OUT/figure5.log"
}
if [ -n "${BACKOFF_SCAN:-}" ]; then # the back-off cap's effect: batch 512, block 256
  for n in ${FIG5_N:-65536 262144}; do
    for cap in $BACKOFF_SCAN; do point 512 256 "$n" --backoff-max-ns "$cap"; done
  done
else
  for n in ${FIG5_N:-1024 4096 16384 65536 262144 1048576}; do
    for warp in "" --warp; do
      if [ -z "$warp" ] && [ "$n" -gt 65536 ]; then
        [ "$n" -le 262144 ] && point 512 256 "$n"
        continue
      fi
      for block in 32 256 1024; do point 512 $block "$n" $warp; done
      for batch in 64 4096; do point $batch 256 "$n" $warp; done
    done
  done
fi
grep wall "$OUT/figure5.log" | tail -60
cut -d, -f1,4,5,6,7,8,9,13,15,16,17,22 "$f" | (column -s, -t 2>/dev/null || cat)
[ $bad = 0 ] || fail "figure 5: a point was cut or failed (see $OUT/figure5.log)"
stamp done
