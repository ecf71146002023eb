#!/usr/bin/env bash
# The GPU workload results committed under reports/data/<gpu>/workloads/ (docs/workloads.md):
# every workload family for every allocator with a GPU backend, including the reference workload
# of reports/peers/ (2^20 threads x {16, 256, 4096} B on an 8 GiB pool, block 256), so that our
# allocators and later ones are compared with Ouroboros, Gallatin and CUDA malloc on the same terms.
# Usage: scripts/gpu-workloads.sh ALLOCLAB_BINARY OUT_DIR   (called by scripts/gpu-pass.sh workloads)
# One CSV per family; each invocation is its own process (CUDA's malloc heap is sized once per
# process, for that invocation's largest pool).
set -euo pipefail
AL=$1
OUT=$2
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "== [$(($(date +%s) - t0)) s] workloads: $*"; }
ALL=queue,rw,rwbm,corw,rwmalloc,cudamalloc
csv() { # FILE ARGS...: one workload invocation appended to FILE (header once)
  local file=$1
  shift
  if [ -s "$file" ]; then
    "$AL" workload --backend gpu --format csv "$@" | tail -n +2 >>"$file"
  else
    "$AL" workload --backend gpu --format csv "$@" >"$file"
  fi
}

# The reference workload: the page allocators with pages of the object's size (T = 8 GiB / size),
# RW_malloc also with 256 B pages for 4096 B objects (runs of 16 pages); times without counters
# (as the peers'), 5 trials. CUDA malloc at 2^20 x 4096 B: the peers' run timed out after 80 s.
stamp "reference: alloc, 2^20 threads, 16/256/4096 B, 8 GiB"
for size in 16 256 4096; do
  csv "$OUT/alloc.csv" --allocator queue,rw,rwbm,corw,rwmalloc --workload alloc --N '2^20' \
    --size $size --page-bytes $size --pool 8GiB --trials 5 --counters off
done
csv "$OUT/alloc.csv" --allocator rwmalloc --workload alloc --N '2^20' --size 4096 \
  --page-bytes 256 --pool 8GiB --trials 5 --counters off
# The rotated bit order (registry option, not the papers' rule) of RW-BM and CoRW on the same
# workload: what spreading the threads of a word over its bits buys at 4096 B pages.
for size in 16 256 4096; do
  csv "$OUT/alloc.csv" --allocator rwbm,corw --bit-choice rotated --workload alloc --N '2^20' \
    --size $size --page-bytes $size --pool 8GiB --trials 5 --counters off
done
csv "$OUT/alloc.csv" --allocator cudamalloc --workload alloc --N '2^20' --size 16,256 \
  --pool 8GiB --trials 2
stamp "scaling: alloc over N = 2^0 .. 2^20, 256 B, counters on"
csv "$OUT/scaling.csv" --allocator queue,rw,rwbm,corw,rwmalloc --workload scaling --size 256 \
  --pool 8GiB --trials 3
csv "$OUT/scaling.csv" --allocator cudamalloc --workload scaling --N '1..262144*4' --size 256 \
  --pool 8GiB --trials 2
stamp "mixed: 16..4096 B, warp-uniform and divergent"
csv "$OUT/mixed.csv" --allocator queue,rw,rwbm,corw --workload mixed --N '2^20' \
  --size 16..4096 --page-bytes 4096 --pool 8GiB --trials 3
csv "$OUT/mixed.csv" --allocator rwmalloc,cudamalloc --workload mixed --N '2^20' \
  --size 16..4096 --warp-uniform --pool 8GiB --trials 3
csv "$OUT/mixed.csv" --allocator cudamalloc --workload mixed --N '2^18' --size 16..4096 \
  --pool 8GiB --trials 2
stamp "churn: 2^20 objects of 256 B on 512 MiB, 10 rounds of 50%"
csv "$OUT/churn.csv" --allocator queue,rw,rwbm,corw,rwmalloc --workload churn --N '2^20' \
  --size 256 --pool 512MiB --rounds 10 --free-fraction 0.5 --trials 3
csv "$OUT/churn.csv" --allocator cudamalloc --workload churn --N '2^16' --size 256 \
  --pool 512MiB --rounds 10 --free-fraction 0.5 --trials 2
stamp "oom: 256 B objects on 64 MiB in batches of 2^14"
csv "$OUT/oom.csv" --allocator $ALL --workload oom --size 256 --pool 64MiB --batch 16384 \
  --max-steps 4096 --trials 3
stamp "fragmentation: 2^20 objects, 256 B, 8 GiB"
csv "$OUT/fragmentation.csv" --allocator $ALL --workload fragmentation --N '2^20' --size 256 \
  --pool 8GiB --trials 2
stamp "done"
