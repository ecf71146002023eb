# shellcheck shell=bash
# The set-up every device script shares (gpu-pass.sh, gpu-page-size-study.sh): sourced, not run,
# from the repository root after OUT is set:
#   gpu_log_start NAME      log all output to $OUT/log.txt too; stamp and fail say NAME
#   stamp MESSAGE           "== [seconds since the start] MESSAGE"
#   fail MESSAGE            "NAME: FAILED: MESSAGE" on stderr, exit 1
#   gpu_configure           unpacks .devdeps/*.deb into /tmp/deps (never into /; the Debian dev
#                           packages of scripts/device-deps.sh, carried to the device, Open MPI
#                           among them: $MPIEXEC), then
#                           configures $BUILD (default build-gpu-pass: the scripts share it, so
#                           a warm machine rebuilds only what changed)
#   gpu_build TARGET...     builds only those targets (build log: $OUT/build.txt)
#   gpu_metadata FILE [AL]  nvidia-smi's device, driver, clocks and power, nvcc, the date and the
#                           commit (ALLOCLAB_COMMIT / ALLOCLAB_DIRTY when .git does not travel)
#                           as JSON; with AL (the alloclab binary) also its view of the device
# Each step that fails stops the script with a non-zero exit status and says which step.

gpu_log_start() {
  GPU_SCRIPT=$1
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/log.txt") 2>&1
  GPU_T0=$(date +%s)
}

stamp() { echo "== [$(($(date +%s) - GPU_T0)) s] $*"; }

fail() {
  echo "$GPU_SCRIPT: FAILED: $*" >&2
  exit 1
}

DEPS=/tmp/deps
BUILD=${BUILD:-build-gpu-pass}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$DEPS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
# Open MPI unpacked under $DEPS instead of /usr: OPAL_PREFIX moves every path it derives from its
# prefix (libraries, components, wrapper data), OPAL_SYSCONFDIR its configuration. The machines
# run as root; Open MPI's mpirun refuses root unless both OMPI_ALLOW_RUN_AS_ROOT* variables are 1.
MPI_LIBDIR=$DEPS/usr/lib/x86_64-linux-gnu/openmpi/lib
export OPAL_PREFIX=$DEPS/usr OPAL_SYSCONFDIR=$DEPS/etc/openmpi PATH=$PATH:$DEPS/usr/bin
export LD_LIBRARY_PATH=$MPI_LIBDIR:$LD_LIBRARY_PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIEXEC=$DEPS/usr/bin/mpiexec.openmpi

gpu_configure() {
  if [ -d .devdeps ] && [ ! -d $DEPS/usr ]; then
    mkdir -p $DEPS
    for f in .devdeps/*.deb; do dpkg -x "$f" $DEPS; done # never into /
  fi
  local mpi=()
  [ -x $DEPS/usr/bin/mpicxx.openmpi ] &&
    mpi=(-DMPI_CXX_COMPILER=$DEPS/usr/bin/mpicxx.openmpi -DMPIEXEC_EXECUTABLE=$MPIEXEC)
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$DEPS/usr \
    -DBoost_ROOT=$DEPS/usr -DEigen3_DIR=$DEPS/usr/share/eigen3/cmake -DALLOCLAB_TSAN=OFF "${mpi[@]}" \
    >"$OUT/build.txt" 2>&1 || {
    tail -40 "$OUT/build.txt"
    fail "configure (see $OUT/build.txt)"
  }
}

gpu_build() {
  ninja -C "$BUILD" -j"$(nproc)" "$@" >>"$OUT/build.txt" 2>&1 || {
    tail -60 "$OUT/build.txt"
    fail "build of $* (see $OUT/build.txt)"
  }
}

gpu_metadata() {
  local file=$1 al=${2:-}
  python3 - "$file" <<PY
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
})
if "$al":
  meta["alloclab_device"] = sh("$al measure --allocator rwbm --N 32 --A 1000 --T 10000 --repeats 1 --format json")
meta.update({"hostname": sh("hostname"), "nvidia_smi_q_clocks": sh("nvidia-smi -q -d CLOCK")})
json.dump(meta, open(sys.argv[1], "w"), indent=1)
print(json.dumps({k: meta[k] for k in list(meta)[:12]}, indent=1))
PY
}
