#!/usr/bin/env bash
# The real-hardware pass of gpu/ (run on the device machine from the repository root):
#   build -> ctest -L gpu -> compute-sanitizer memcheck + racecheck on small cases -> the sweep
#   (N = 1024..2^20 with N <= A, A/T in {50,10,1,0.7,0.5}%, T in {10^6, 2^25}, every allocator)
#   -> gpu_bench -> metadata (nvidia-smi, nvcc, date, commit).
# Usage: scripts/gpu-pass.sh [smoke|full|standard]  (standard: the validation report's grid,
#   scripts/gpu-standard-sweep.sh, after the same build)   (results under $OUT, default ./out/gpu-pass)
# Needs the Debian dev packages from scripts/device-deps.sh in .devdeps/ (carried to the device);
# set ALLOCLAB_COMMIT / ALLOCLAB_DIRTY when .git does not travel.
set -uo pipefail
MODE=${1:-full}
OUT=${OUT:-$PWD/out/gpu-pass}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
exec > >(tee -a "$LOG") 2>&1
t0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - t0 )) s] $*"; }

DEPS=/tmp/deps
if [ -d .devdeps ] && [ ! -d $DEPS/usr ]; then
  mkdir -p $DEPS
  for f in .devdeps/*.deb; do dpkg -x "$f" $DEPS; done  # never into /
fi
export LD_LIBRARY_PATH=$DEPS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${BUILD:-build-gpu-pass}

stamp "configure"
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$DEPS/usr \
  -DBoost_ROOT=$DEPS/usr -DEigen3_DIR=$DEPS/usr/share/eigen3/cmake -DALLOCLAB_TSAN=OFF >"$OUT/build.txt" 2>&1 \
  || { tail -40 "$OUT/build.txt"; exit 1; }
stamp "build"
ninja -C $BUILD -j16 alloclab gpu_tests gpu_bench >>"$OUT/build.txt" 2>&1 || { tail -60 "$OUT/build.txt"; exit 1; }
AL=$BUILD/cli/alloclab

stamp "metadata"
python3 - "$OUT/metadata.json" <<PY
import json, subprocess, sys, datetime
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as e: return str(e)
q = "name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,pstate,persistence_mode"
vals = sh(f"nvidia-smi --query-gpu={q} --format=csv,noheader").split(", ")
meta = dict(zip(q.split(","), vals))
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
  # The validation report's standard grid (issue 5): 20 trials per point, GPU backend only.
  stamp "standard sweep"
  scripts/gpu-standard-sweep.sh $BUILD "$OUT/standard"
  stamp "standard done"
  exit 0
fi

stamp "ctest -L gpu"
(cd $BUILD && ctest -L gpu --output-on-failure -j1 2>&1) >"$OUT/ctest.txt"; tail -25 "$OUT/ctest.txt"

stamp "compute-sanitizer"
{
  for tool in memcheck racecheck; do
    echo "### $tool"
    compute-sanitizer --tool $tool --error-exitcode 9 $AL measure --algo queue,rw,rwbm,corw,rwmalloc \
      --N 1000 --free 0.1 --T 1e5 --repeats 1 --warmup 0 --format csv; echo "rc=$?"
    compute-sanitizer --tool $tool --error-exitcode 9 $AL measure --algo rwmalloc --pages 3 \
      --N 300 --free 0.5 --T 1e5 --repeats 1 --warmup 0 --per-thread 2 --format csv; echo "rc=$?"
    compute-sanitizer --tool $tool --error-exitcode 9 $AL measure --algo rwbm \
      --bit-choice random,rotated --N 1000 --free 0.5 --T 1e4 --repeats 1 --warmup 0 \
      --format csv; echo "rc=$?"
  done
  echo "### memcheck cudamalloc"
  compute-sanitizer --tool memcheck --error-exitcode 9 $AL measure --algo cudamalloc --N 1000 \
    --A 10 --T 10 --repeats 1 --warmup 0 --format csv; echo "rc=$?"
} >"$OUT/sanitizer.txt" 2>&1
grep -E "^###|rc=|ERROR SUMMARY" "$OUT/sanitizer.txt"

stamp "bench"
$BUILD/gpu/gpu_bench --json "$OUT/bench.json" --repeats 50

if [ "$MODE" = smoke ]; then
  $AL measure --algo queue,rw,rwbm,corw,rwmalloc --N 1024,65536 --free 0.5,0.005 --T 2^25 --format table
  stamp "smoke done"; exit 0
fi

stamp "sweep"
for T in 1000000 33554432; do
    for f in 0.5 0.1 0.01 0.007 0.005; do
    A=$(python3 -c "print(round($f*$T))")
    NS=$(python3 -c "print(','.join(str(1<<k) for k in range(10,21) if (1<<k) <= $A))")
    [ -z "$NS" ] && continue
    $AL measure --algo queue,rw,rwbm,corw,rwmalloc --N $NS --free $f --T $T --repeats 5 \
      --format json >"$OUT/part_T${T}_f$f.json" || echo "FAILED: T=$T f=$f rc=$?"
    stamp "T=$T f=$f done"
  done
done
$AL measure --algo cudamalloc --N 1024..1048576*2 --free 0.5 --T 33554432 --repeats 1 --warmup 1 \
  --format json >"$OUT/part_T33554432_fmalloc.json" || echo "FAILED: cudamalloc rc=$?"
for T in 1000000 33554432; do
  python3 -c "
import json,glob
rows=[]
for f in sorted(glob.glob('$OUT/part_T${T}_f*.json')):
    try: rows+=json.load(open(f))
    except Exception as e: print('unreadable', f, e)
json.dump(rows, open('$OUT/sweep_T$T.json','w'), indent=1)
print('T=$T', len(rows), 'rows')
" && rm -f "$OUT"/part_T${T}_f*.json
done
python3 - "$OUT" <<'PY'
import json, sys
for T in (1000000, 33554432):
    rows = json.load(open(f"{sys.argv[1]}/sweep_T{T}.json"))
    print(f"T={T}: algo N A kernel_ms tas was p99 max collisions taken failed")
    for r in rows:
        if r["N"] in (1024, 65536, 1048576) or r["algo"] == "cudamalloc":
            print(r["algo"], r["N"], r["A"], round(r["kernel_ms"], 4), r["tas"], r["was"], r["steps_p99"], r["steps_max"], r["collisions"], r["taken"], r["failed"])
PY
stamp "done"
