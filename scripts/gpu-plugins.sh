#!/usr/bin/env bash
# Plug-in allocators on a GPU (issue 36, docs/plugin-allocators.md), on the device machine from the
# repository root (with .devdeps carried, as every device script):
#   tests     build; the GPU tests (ctest -L gpu: the contract tests enrol every plug-in, the
#             plug-ins' own tests, the faulty plug-ins of gpu_plugin_faults_tests) and the
#             discovery test; compute-sanitizer memcheck and racecheck on small runs of each
#             plug-in
#   compare   ext-bump, ext-bump-warp, ext-corw and the registry's corw in every workload family,
#             the four in one invocation per family (one process, one device state), then
#             $OUT/comparison.txt: ext-corw against corw point by point (counts, time ratio)
#   reference every other GPU allocator of the registry on the reference workload of
#             reports/peers/ (2^20 threads x 16 / 256 / 4096 B, 8 GiB, counters off: what compare
#             runs for its four), each allocator and size in a process of its own, so that the
#             report's "× ext-bump" column has every GPU allocator of this device beside the floor
#             (an allocator that does not take a size says so in failures.txt: an input error)
#   all       the three (default)
# Usage: scripts/gpu-plugins.sh OUT_DIR [tests|compare|reference|all]
# Rows go to OUT_DIR/compare/workloads/gpu/<family>.csv and OUT_DIR/reference/workloads/gpu/
# alloc.csv (`alloclab report` reads each directory); OUT_DIR/metadata.json has the device,
# driver, CUDA, clocks, date and commit. To commit them where the main job copies GPU rows from
# (reports/data/<gpu>/workloads/, read recursively), a directory per run with its metadata:
#   d=reports/data/<gpu>/workloads/reference-<commit>; mkdir -p $d
#   cp OUT_DIR/reference/workloads/gpu/alloc.csv OUT_DIR/metadata.json OUT_DIR/failures.txt $d/
# (reports/data/nvidia-h200/workloads/plugins-b042d4c and reference-36bd242 are such runs).
# A point whose kernel hangs writes a row that says so
# (--watchdog) and ends only its own invocation; an invocation that fails is listed in
# OUT_DIR/failures.txt and the script goes on.
set -euo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
STAGE=${2:-all}
case "$STAGE" in tests | compare | reference | all) ;; *)
  echo "usage: scripts/gpu-plugins.sh OUT_DIR [tests|compare|reference|all]" >&2
  exit 2
  ;;
esac
WATCHDOG=${WATCHDOG:-120}  # seconds a kernel may run before its row says hung
# shellcheck source=scripts/gpu-setup.sh
. scripts/gpu-setup.sh # gpu_log_start, stamp, fail, gpu_configure, gpu_build, gpu_metadata
gpu_log_start plugins
stamp configure
gpu_configure
stamp build
gpu_build alloclab gpu_tests gpu_plugin_faults_tests
gpu_metadata "$OUT/metadata.json" "$BUILD/cli/alloclab"
AL=$BUILD/cli/alloclab
: >"$OUT/failures.txt"

# One invocation appending to DIR's rows (--out: resumes, refuses rows of other columns). Exit 5:
# a point hung, its row is written and the process ended; the same command again skips the
# points written (the hung one too) and goes on with the next. Any other failure is recorded,
# not fatal.
run() { # DIR ARGS...
  local dir=$1 rc attempt
  shift
  for attempt in $(seq 100); do
    rc=0
    "$AL" workload --backend gpu --watchdog "$WATCHDOG" --out "$dir" "$@" || rc=$?
    [ "$rc" -eq 5 ] || break
    echo "hung (attempt $attempt): alloclab workload --out $dir $*" | tee -a "$OUT/failures.txt"
  done
  if [ "$rc" -ne 0 ]; then
    echo "exit $rc: alloclab workload --backend gpu --out $dir $*" | tee -a "$OUT/failures.txt"
  fi
}

if [ "$STAGE" = tests ] || [ "$STAGE" = all ]; then
  stamp "ctest -L gpu and the discovery test"
  if ! (cd "$BUILD" && ctest -L gpu --output-on-failure -j1 &&
    ctest -R 'plugin_discovery|cli_workload_plugins' --output-on-failure) >"$OUT/ctest.txt" 2>&1; then
    tail -40 "$OUT/ctest.txt"
    fail "GPU tests (see $OUT/ctest.txt)"
  fi
  tail -5 "$OUT/ctest.txt"
  stamp "compute-sanitizer"
  : >"$OUT/sanitizer.txt"
  for tool in memcheck racecheck; do
    for family in "alloc --N 3000" "churn --N 2048 --rounds 2 --free-fraction 0.5" \
      "oom --batch 512 --max-steps 256"; do
      # shellcheck disable=SC2086
      if ! compute-sanitizer --tool $tool --error-exitcode 9 "$AL" workload --backend gpu \
        --allocator ext-bump,ext-bump-warp,ext-corw --workload $family --size 200 --pool 1MiB \
        --format csv >>"$OUT/sanitizer.txt" 2>&1; then
        echo "$tool: $family" >>"$OUT/failures.txt"
      fi
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.txt" || true
fi

if [ "$STAGE" = compare ] || [ "$STAGE" = all ]; then
  C=$OUT/compare
  FOUR=corw,ext-corw,ext-bump,ext-bump-warp
  stamp "compare: alloc (the reference workload), 2^20 threads, 16/256/4096 B, 8 GiB"
  for size in 16 256 4096; do
    run "$C" --allocator $FOUR --workload alloc --N '2^20' --size $size --page-bytes $size \
      --pool 8GiB --trials 5 --counters off
  done
  stamp "compare: scaling, 256 B, N = 2^0 .. 2^20"
  run "$C" --allocator $FOUR --workload scaling --size 256 --pool 8GiB --trials 3
  stamp "compare: mixed, 16..4096 B on 4096 B pages"
  run "$C" --allocator $FOUR --workload mixed --N '2^20' --size 16..4096 --page-bytes 4096 \
    --pool 8GiB --trials 3
  stamp "compare: churn, 2^20 x 256 B on 512 MiB, 10 rounds of 50%"
  run "$C" --allocator $FOUR --workload churn --N '2^20' --size 256 --pool 512MiB --rounds 10 \
    --free-fraction 0.5 --trials 3
  stamp "compare: oom, 256 B on 64 MiB in batches of 2^14"
  run "$C" --allocator $FOUR --workload oom --size 256 --pool 64MiB --batch 16384 \
    --max-steps 4096 --trials 3
  stamp "compare: fragmentation, 2^20 x 256 B on 8 GiB"
  run "$C" --allocator $FOUR --workload fragmentation --N '2^20' --size 256 --pool 8GiB --trials 2
  stamp "compare: ext-corw against corw"
  python3 - "$C/workloads/gpu" >"$OUT/comparison.txt" <<'PY'
import csv, glob, os, sys
# ext-corw against corw at every point both measured: the counts (equal where the run is
# deterministic: every request served, or the pool filled), and the time ratio (issue 36: within
# 10 %).
keys = ("workload", "N", "size", "pool_bytes", "page_bytes", "round", "batch", "block")
counts = ("requests", "allocs", "failed", "count_at_failure", "utilisation")
rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    for r in csv.DictReader(open(path)):
        rows[(r["allocator"],) + tuple(r.get(k, "") for k in keys)] = r
print(f"{'point':58} {'corw ms':>10} {'ext-corw ms':>12} {'ratio':>7}  counts")
worst = 0.0
for key, mine in sorted(rows.items()):
    if key[0] != "ext-corw" or ("corw",) + key[1:] not in rows:
        continue
    theirs = rows[("corw",) + key[1:]]
    point = " ".join(f"{k}={v}" for k, v in zip(keys, key[1:]) if v)
    a, b = float(theirs["alloc_ms"] or "nan"), float(mine["alloc_ms"] or "nan")
    differ = [c for c in counts if mine.get(c, "") != theirs.get(c, "")]
    ratio = b / a if a > 0 else float("nan")
    if key[1] == "alloc":
        worst = max(worst, abs(ratio - 1))
    print(f"{point:58} {a:10.4f} {b:12.4f} {ratio:7.3f}  "
          f"{'equal' if not differ else 'differ: ' + ', '.join(differ)}")
print(f"reference workload (alloc): largest |ext-corw / corw - 1| = {worst:.3f}")
PY
  cat "$OUT/comparison.txt"
fi

if [ "$STAGE" = reference ] || [ "$STAGE" = all ]; then
  R=$OUT/reference
  stamp "reference: the registry's other GPU allocators, 2^20 x 16/256/4096 B, 8 GiB"
  for algo in queue rw rwbm rwmalloc bitmap-alloc gg-tbuddy gg-ualloc gg-malloc dynasoar \
    dynasoar-nocoal dynasoar-norot gallatin ouro-p-s ouro-c-s ouro-p-va ouro-p-vl ouro-c-va \
    ouro-c-vl; do
    for size in 16 256 4096; do
      run "$R" --allocator $algo --workload alloc --N '2^20' --size $size --page-bytes $size \
        --pool 8GiB --trials 3 --counters off
    done
  done
  # CUDA's malloc: 2^20 x 4096 B ran past 80 s in the peers' harness (reports/peers/).
  run "$R" --allocator cudamalloc --workload alloc --N '2^20' --size 16,256 --pool 8GiB --trials 2
fi
stamp "done ($(wc -l <"$OUT/failures.txt") failed invocations, listed in $OUT/failures.txt)"
