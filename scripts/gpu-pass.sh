#!/usr/bin/env bash
# The real-hardware pass of gpu/ (run on the device machine from the repository root):
#   build -> metadata (nvidia-smi, nvcc, date, commit) -> ctest -L gpu -> compute-sanitizer
#   memcheck + racecheck on small cases -> gpu_bench -> the sweep of every GPU allocator, CUDA
#   malloc included, over the standard grid (`alloclab sweep --allocator all --backend gpu --grid
#   standard`; N <= A for the pools of pages).
# Usage: scripts/gpu-pass.sh [smoke|full|standard|workloads]   (results under $OUT, default
#        ./out/gpu-pass)
#   smoke:    build, metadata, GPU tests, sanitizers, bench, a small measure table
#   full:     the same, then the sweep (w = 32, 2 trials) and its report
#   standard: build, metadata, then the validation report's standard grid
#             (scripts/gpu-standard-sweep.sh, 20 trials, w = 32 and 64)
#   workloads: build, metadata, GPU tests, sanitizers, then every workload family for every GPU
#             allocator (scripts/gpu-workloads.sh) into $OUT/workloads
# Any failing step (a GPU test, a sanitizer error, a failed measurement) stops the pass with a
# non-zero exit status and says which step.
# Needs the Debian dev packages from scripts/device-deps.sh in .devdeps/ (carried to the device);
# set ALLOCLAB_COMMIT / ALLOCLAB_DIRTY when .git does not travel. The set-up (deps, configure,
# build, metadata) is scripts/gpu-setup.sh's.
set -euo pipefail
MODE=${1:-full}
case "$MODE" in smoke | full | standard | workloads) ;; *)
  echo "usage: scripts/gpu-pass.sh [smoke|full|standard|workloads]" >&2
  exit 2
  ;;
esac
OUT=${OUT:-$PWD/out/gpu-pass}
# shellcheck source=scripts/gpu-setup.sh
. scripts/gpu-setup.sh # gpu_log_start, stamp, fail, gpu_configure, gpu_build, gpu_metadata
gpu_log_start gpu-pass

stamp "configure"
gpu_configure
stamp "build"
gpu_build alloclab gpu_tests gpu_bench
AL=$BUILD/cli/alloclab

stamp "metadata"
# nvidia-smi's view of the device, for the record (a JSON object; no measurement here).
gpu_metadata "$OUT/metadata.json" "$AL"

if [ "$MODE" = standard ]; then
  stamp "standard sweep"
  scripts/gpu-standard-sweep.sh "$BUILD" "$OUT/standard"
  stamp "standard done"
  exit 0
fi

stamp "ctest -L gpu"
if ! (cd "$BUILD" && ctest -L gpu --output-on-failure -j1) >"$OUT/ctest.txt" 2>&1; then
  tail -40 "$OUT/ctest.txt"
  fail "GPU tests (see $OUT/ctest.txt)"
fi
tail -5 "$OUT/ctest.txt"

stamp "compute-sanitizer"
# Every case runs (the log shows them all); the pass fails afterwards if any reported an error.
sanitizer_failures=()
sanitize() { # TOOL ARGS...: one alloclab measure under compute-sanitizer
  local tool=$1
  shift
  echo "### $tool: alloclab $*" >>"$OUT/sanitizer.txt"
  if ! compute-sanitizer --tool "$tool" --error-exitcode 9 "$AL" "$@" >>"$OUT/sanitizer.txt" 2>&1; then
    sanitizer_failures+=("$tool: alloclab $*")
  fi
}
: >"$OUT/sanitizer.txt"
# The allocators are listed, not `all`: cudamalloc is CUDA's own allocator, checked under
# memcheck only (its own case below), since racecheck would examine the vendor's heap code, not
# ours. A new allocator of this repository goes into this list.
for tool in memcheck racecheck; do
  sanitize "$tool" measure --allocator queue,rw,rwbm,corw,rwmalloc --N 1000 --free 0.1 --T 1e5 \
    --repeats 1 --warmup 0 --format csv
  sanitize "$tool" measure --allocator rwmalloc --pages 3 --N 300 --free 0.5 --T 1e5 --repeats 1 \
    --warmup 0 --per-thread 2 --format csv
  sanitize "$tool" measure --allocator rwbm --bit-choice random,rotated --N 1000 --free 0.5 --T 1e4 \
    --repeats 1 --warmup 0 --format csv
done
sanitize memcheck measure --allocator cudamalloc --N 1000 --A 10 --T 10 --repeats 1 --warmup 0 \
  --format csv
# The workload driver's launches (active masks, per-thread pages, frees of a subset, the
# verification kernels) on small pools.
for tool in memcheck racecheck; do
  sanitize "$tool" workload --backend gpu --allocator queue,rw,rwbm,corw,rwmalloc \
    --workload churn --N 1000 --size 256 --pool 512KiB --rounds 2 --free-fraction 0.3 --format csv
  sanitize "$tool" workload --backend gpu --allocator rwmalloc --workload mixed --N 1000 \
    --size 256..2048 --warp-uniform --pool 2MiB --format csv
  sanitize "$tool" workload --backend gpu --allocator queue,rw,rwbm,corw,rwmalloc \
    --workload oom --size 256 --pool 256KiB --batch 300 --max-steps 512 --format csv
done
# The rotated bit order and repeats on the same small pools.
for tool in memcheck racecheck; do
  sanitize "$tool" workload --backend gpu --allocator rwbm,corw --bit-choice rotated \
    --workload churn --N 1000 --size 256 --pool 512KiB --rounds 2 --repeats 2 --format csv
done
# The device-side heap (PageHeap over every page allocator, divergent callers) as its tests run
# it; synccheck for the warp-collective allocators' ballots and shuffles over coalesced groups.
for tool in memcheck racecheck synccheck; do
  echo "### $tool: gpu_tests [page_heap]" >>"$OUT/sanitizer.txt"
  if ! compute-sanitizer --tool "$tool" --error-exitcode 9 "$BUILD/gpu/gpu_tests" "[page_heap]" \
    >>"$OUT/sanitizer.txt" 2>&1; then
    sanitizer_failures+=("$tool: gpu_tests [page_heap]")
  fi
done
sanitize memcheck workload --backend gpu --allocator cudamalloc --workload churn --N 1000 \
  --size 256 --pool 64MiB --rounds 2 --format csv
grep -E "^###|ERROR SUMMARY" "$OUT/sanitizer.txt"
if ((${#sanitizer_failures[@]})); then
  printf '  %s\n' "${sanitizer_failures[@]}" >&2
  fail "compute-sanitizer found errors in ${#sanitizer_failures[@]} case(s) (see $OUT/sanitizer.txt)"
fi

if [ "$MODE" = workloads ]; then
  stamp "workloads"
  scripts/gpu-workloads.sh "$AL" "$OUT/workloads"
  stamp "workloads done"
  exit 0
fi

stamp "bench"
"$BUILD/gpu/gpu_bench" --json "$OUT/bench.json" --repeats 50

if [ "$MODE" = smoke ]; then
  "$AL" measure --allocator all --N 1024,65536 --free 0.5,0.005 --T '2^25' --format table
  stamp "smoke done"
  exit 0
fi

stamp "sweep"
# Every GPU allocator over the standard grid's N, A/T and T (N <= A for the pools of pages), one
# word width, 2 trials of 5 timed repeats: a first look at a new device (gpu-standard-sweep.sh is
# the report's run). CUDA's device malloc has no steps to count: kernel time and failures only;
# the sweep sizes its heap once, for the largest N.
"$AL" sweep --allocator all --backend gpu --grid standard --w 32 --trials 2 --repeats 5 --seed 1 \
  --out "$OUT/sweep"
# Model curves over the measured points (no device needed for them), figures and tables; the
# plots need gnuplot, which a bare device machine may lack: then the report is made elsewhere.
if command -v gnuplot >/dev/null; then
  "$AL" report "$OUT/sweep"
else
  echo "gpu-pass: no gnuplot here: make the report elsewhere with alloclab report $OUT/sweep"
fi
stamp "done: $OUT/sweep (sweep.csv), $OUT/bench.json"
