#!/usr/bin/env bash
# The real-hardware pass of gpu/ (run on the device machine from the repository root):
#   build -> metadata (nvidia-smi, nvcc, date, commit) -> ctest -L gpu -> compute-sanitizer
#   memcheck + racecheck on small cases -> gpu_bench -> the sweep of every GPU allocator, CUDA
#   malloc included, over the standard grid (`alloclab sweep --algos all --backends gpu --grid
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
# set ALLOCLAB_COMMIT / ALLOCLAB_DIRTY when .git does not travel.
set -euo pipefail
MODE=${1:-full}
case "$MODE" in smoke | full | standard | workloads) ;; *)
  echo "usage: scripts/gpu-pass.sh [smoke|full|standard|workloads]" >&2
  exit 2
  ;;
esac
OUT=${OUT:-$PWD/out/gpu-pass}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
exec > >(tee -a "$LOG") 2>&1
t0=$(date +%s)
stamp() { echo "== [$(($(date +%s) - t0)) s] $*"; }
fail() {
  echo "gpu-pass: FAILED: $*" >&2
  exit 1
}

DEPS=/tmp/deps
if [ -d .devdeps ] && [ ! -d $DEPS/usr ]; then
  mkdir -p $DEPS
  for f in .devdeps/*.deb; do dpkg -x "$f" $DEPS; done # never into /
fi
export LD_LIBRARY_PATH=$DEPS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${BUILD:-build-gpu-pass}

stamp "configure"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$DEPS/usr \
  -DBoost_ROOT=$DEPS/usr -DEigen3_DIR=$DEPS/usr/share/eigen3/cmake -DALLOCLAB_TSAN=OFF \
  >"$OUT/build.txt" 2>&1 || {
  tail -40 "$OUT/build.txt"
  fail "configure (see $OUT/build.txt)"
}
stamp "build"
ninja -C "$BUILD" -j16 alloclab gpu_tests gpu_bench >>"$OUT/build.txt" 2>&1 || {
  tail -60 "$OUT/build.txt"
  fail "build (see $OUT/build.txt)"
}
AL=$BUILD/cli/alloclab

stamp "metadata"
# nvidia-smi's view of the device, for the record (a JSON object; no measurement here).
python3 - "$OUT/metadata.json" <<PY
import json, subprocess, sys, datetime
def sh(c):
    r = subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"metadata: '{c}' failed: {r.stderr.strip()}")
    return r.stdout.strip()
q = "name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,pstate,persistence_mode"
meta = dict(zip(q.split(","), sh(f"nvidia-smi --query-gpu={q} --format=csv,noheader").split(", ")))
meta.update({
  "date_utc": datetime.datetime.utcnow().isoformat() + "Z",
  "commit": "${ALLOCLAB_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}",
  "tree_dirty": "${ALLOCLAB_DIRTY:-unknown}",
  "nvcc": sh("nvcc --version | tail -2"),
  "cuda_runtime_from_nvidia_smi": sh("nvidia-smi | grep -o 'CUDA Version: [0-9.]*'"),
  "alloclab_device": sh("$AL measure --algo rwbm --N 32 --A 1000 --T 10000 --repeats 1 --format json"),
  "hostname": sh("hostname"), "nvidia_smi_q_clocks": sh("nvidia-smi -q -d CLOCK"),
})
json.dump(meta, open(sys.argv[1], "w"), indent=1)
print(json.dumps({k: meta[k] for k in list(meta)[:12]}, indent=1))
PY

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
  sanitize "$tool" measure --algo queue,rw,rwbm,corw,rwmalloc --N 1000 --free 0.1 --T 1e5 \
    --repeats 1 --warmup 0 --format csv
  sanitize "$tool" measure --algo rwmalloc --pages 3 --N 300 --free 0.5 --T 1e5 --repeats 1 \
    --warmup 0 --per-thread 2 --format csv
  sanitize "$tool" measure --algo rwbm --bit-choice random,rotated --N 1000 --free 0.5 --T 1e4 \
    --repeats 1 --warmup 0 --format csv
done
sanitize memcheck measure --algo cudamalloc --N 1000 --A 10 --T 10 --repeats 1 --warmup 0 \
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
  "$AL" measure --algo all --N 1024,65536 --free 0.5,0.005 --T '2^25' --format table
  stamp "smoke done"
  exit 0
fi

stamp "sweep"
# Every GPU allocator over the standard grid's N, A/T and T (N <= A for the pools of pages), one
# word width, 2 trials of 5 timed repeats: a first look at a new device (gpu-standard-sweep.sh is
# the report's run). CUDA's device malloc has no steps to count: kernel time and failures only;
# the sweep sizes its heap once, for the largest N.
"$AL" sweep --algos all --backends gpu --grid standard --w 32 --trials 2 --repeats 5 --seed 1 \
  --out "$OUT/sweep"
# Model curves over the measured points (no device needed for them), figures and tables; the
# plots need gnuplot, which a bare device machine may lack: then the report is made elsewhere.
if command -v gnuplot >/dev/null; then
  "$AL" report "$OUT/sweep"
else
  echo "gpu-pass: no gnuplot here: make the report elsewhere with alloclab report $OUT/sweep"
fi
stamp "done: $OUT/sweep (sweep.csv), $OUT/bench.json"
