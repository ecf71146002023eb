#!/usr/bin/env bash
# The reference workload's rows with the rotated bit order (RW-BM and CoRW, --bit-choice rotated;
# 2^20 threads x {16, 256, 4096} B, 8 GiB, 5 trials, counters off) after the GPU tests, on the
# device machine from the repository root: made the rotated rows of
# reports/data/nvidia-h200/workloads/alloc.csv (scripts/gpu-workloads.sh has the same rows in the
# full pass). Usage: scripts/gpu-rotated-rows.sh OUT_DIR (about 1 minute with the build).
set -euo pipefail
OUT=$1
. scripts/gpu-setup.sh
gpu_log_start rotated
gpu_configure
gpu_build alloclab gpu_tests
gpu_metadata "$OUT/metadata.json" "$BUILD/cli/alloclab"
(cd "$BUILD" && ctest -L gpu --output-on-failure -j1) >"$OUT/ctest.txt" 2>&1 || { tail -30 "$OUT/ctest.txt"; exit 1; }
tail -3 "$OUT/ctest.txt"
AL=$BUILD/cli/alloclab
f=$OUT/alloc_rotated.csv
for size in 16 256 4096; do
  if [ -s "$f" ]; then h="tail -n +2"; else h=cat; fi
  "$AL" workload --backend gpu --format csv --allocator rwbm,corw --bit-choice rotated --workload alloc --N '2^20' \
    --size $size --page-bytes $size --pool 8GiB --trials 5 --counters off | $h >>"$f"
done
cut -d, -f1,6,7,15- "$f" | cut -c1-150
