#!/usr/bin/env bash
# Gelado & Garland on the GPU (issue 13), on the device machine from the repository root: the
# GPU tests, compute-sanitizer (memcheck, racecheck, synccheck) on small semaphore runs, then
# Figure 5 (`alloclab semaphore --backend gpu`: the bulk against the counting semaphore, each
# thread one unit, batches of 512 as the paper, and of 64 and 4096 beside it) over N = 2^10 ..
# 2^20 and the block sizes 32, 256 and 1024 (the paper averaged 1 .. 1024).
# Usage: scripts/gpu-gelado.sh OUT_DIR [tests|measure|all]   (default all)
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
"$AL" semaphore --backend gpu --N "$NS" --batch 512,64,4096 --block 32,256,1024 --repeats 5 \
  --format csv >"$OUT/figure5.csv" 2>"$OUT/figure5.log" || fail "figure 5 (see $OUT/figure5.log)"
column -s, -t <"$OUT/figure5.csv" | cut -c1-200 | head -80
stamp done
