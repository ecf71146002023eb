# shellcheck shell=bash
# The set-up every device stage shares (docs/gpu-device.md), sourced by scripts/gpu.sh from the
# repository root after OUT is set; the stages (scripts/gpu-stages.sh, studies/*/gpu-stages.sh)
# use these and nothing else to build, run and check:
#   gpu_log_start NAME       log all output to $OUT/log.txt too; stamp and fail say NAME
#   stamp MESSAGE            "== [seconds since the start] MESSAGE"
#   fail MESSAGE             "NAME: FAILED: MESSAGE" on stderr, exit 1
#   gpu_prepare TARGET...    configure, build those targets, record the device (metadata.json)
#   gpu_do COMMAND...        run COMMAND; under GPU_DRY_RUN=1 print "+ COMMAND" instead
#   gpu_csv FILE COMMAND...  COMMAND's CSV appended to FILE, its header once
#   gpu_table FILE FIELDS    FILE's columns FIELDS (cut -f) aligned, for the log
#   gpu_allocators [OPTIONS] the registry's GPU allocators, comma-separated (`alloclab list
#                            --backend gpu --names OPTIONS`; --requests pages, --bit-choice ...)
#   gpu_ctest FILE TEST...   the GPU tests of gpu/tests/<TEST>.cpp (their ctest label), or `all`
#   gpu_sanitize_begin FILE, gpu_sanitize "TOOLS" COMMAND..., gpu_sanitize_end: compute-sanitizer
#   gpu_free_mib, gpu_count  the first device's free memory (MiB), the devices nvidia-smi lists
# GPU_DRY_RUN=1: configure, build, nvidia-smi and every command run through gpu_do, gpu_csv,
# gpu_ctest and gpu_sanitize are printed, not run; queries of the registry still run where
# $AL exists (BUILD=build: a CPU build answers them).
# Each step that fails stops the stage with a non-zero exit status and says which step.

gpu_log_start() {
  GPU_SCRIPT=$1
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/log.txt") 2>&1
  exec 3>&1 # the log: dry-run lines reach it whatever a command's output is redirected to
  GPU_T0=$(date +%s)
}

stamp() { echo "== [$(($(date +%s) - GPU_T0)) s] $*"; }

fail() {
  echo "$GPU_SCRIPT: FAILED: $*" >&2
  exit 1
}

gpu_dry() { [ "${GPU_DRY_RUN:-0}" = 1 ]; }

gpu_do() {
  if gpu_dry; then
    echo "+ $*" >&3
    return 0
  fi
  "$@"
}

DEPS=/tmp/deps
BUILD=${BUILD:-build-gpu-pass}
AL=$BUILD/cli/alloclab
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

# Unpacks .devdeps/*.deb into /tmp/deps (never into /: the Debian dev packages of
# scripts/device-deps.sh, carried to the device, Open MPI among them), then configures $BUILD
# (default build-gpu-pass: every stage shares it, so a warm machine rebuilds only what changed).
gpu_configure() {
  if [ -d .devdeps ] && [ ! -d $DEPS/usr ] && ! gpu_dry; then
    mkdir -p $DEPS
    for f in .devdeps/*.deb; do dpkg -x "$f" $DEPS; done # never into /
  fi
  local mpi=()
  [ -x $DEPS/usr/bin/mpicxx.openmpi ] &&
    mpi=("-DMPI_CXX_COMPILER=$DEPS/usr/bin/mpicxx.openmpi" "-DMPIEXEC_EXECUTABLE=$MPIEXEC")
  gpu_do cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$DEPS/usr \
    -DBoost_ROOT=$DEPS/usr -DEigen3_DIR=$DEPS/usr/share/eigen3/cmake -DALLOCLAB_TSAN=OFF "${mpi[@]}" \
    >"$OUT/build.txt" 2>&1 || {
    tail -40 "$OUT/build.txt"
    fail "configure (see $OUT/build.txt)"
  }
}

gpu_build() {
  gpu_do ninja -C "$BUILD" -j"$(nproc)" "$@" >>"$OUT/build.txt" 2>&1 || {
    tail -60 "$OUT/build.txt"
    fail "build of $* (see $OUT/build.txt)"
  }
}

# nvidia-smi's device, driver, clocks and power, nvcc, the date and the commit (ALLOCLAB_COMMIT /
# ALLOCLAB_DIRTY when .git does not travel) as JSON in FILE; with AL (the alloclab binary) also its
# view of the device.
gpu_metadata() {
  local file=$1 al=${2:-}
  if gpu_dry; then
    echo "+ metadata: nvidia-smi, nvcc, date, commit${al:+, $al measure} > $file" >&3
    return 0
  fi
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

# The first steps of every stage: configure, build TARGETs, the device's metadata (with
# alloclab's view of it where alloclab is among them).
gpu_prepare() {
  stamp "configure"
  gpu_configure
  stamp "build $*"
  gpu_build "$@"
  stamp "metadata"
  local al=""
  [[ " $* " == *" alloclab "* ]] && al=$AL
  gpu_metadata "$OUT/metadata.json" "$al"
}

# COMMAND's CSV appended to FILE: its header only where FILE is empty. Returns COMMAND's status.
gpu_csv() {
  local file=$1
  shift
  if gpu_dry; then
    echo "+ $* >> $file" >&3
    return 0
  fi
  if [ -s "$file" ]; then
    "$@" | tail -n +2 >>"$file"
  else
    "$@" >>"$file"
  fi
}

# FILE's comma-separated columns FIELDS (a cut -f list) as an aligned table, for the log.
gpu_table() {
  gpu_dry && return 0
  cut -d, -f"$2" "$1" | (column -s, -t 2>/dev/null || cat)
}

# Read-only queries of alloclab (list, --help): run where the binary exists, also in a dry run.
gpu_query() {
  if [ -x "$AL" ]; then
    "$AL" "$@"
  elif gpu_dry; then
    echo "+ (no $AL to ask) alloclab $*" >&3
  else
    fail "$AL not built (alloclab $*)"
  fi
}

# The registry's GPU allocators, comma-separated, in its order: `alloclab list --backend gpu
# --names` with further filters (e.g. --requests pages, --bit-choice rotated).
gpu_allocators() {
  gpu_query list --backend gpu --names "$@" | paste -sd, -
}

# The GPU tests of gpu/tests/<TEST>.cpp for each TEST (each file's cases carry its name as a ctest
# label: cmake/AlloclabTesting.cmake), or `all` (label gpu), output to FILE. Returns 1 on a failed
# test or none selected, after showing the end of FILE.
gpu_ctest() {
  local file=$1 label
  shift
  if [ "$1" = all ]; then
    label='^gpu$'
  else
    label="^($(
      IFS='|'
      echo "$*"
    ))\$"
  fi
  stamp "GPU tests: $*"
  if gpu_dry; then
    echo "+ (cd $BUILD && ctest -L '$label' --output-on-failure -j1) > $file" >&3
    return 0
  fi
  if ! (cd "$BUILD" && ctest -L "$label" --output-on-failure -j1) >"$file" 2>&1 ||
    grep -q "No tests were found" "$file"; then
    tail -60 "$file"
    echo "GPU tests failed or none found (label $label; see $file)" >&2
    return 1
  fi
  tail -3 "$file"
}

# compute-sanitizer on commands, each under every tool of a list, all into one file:
#   gpu_sanitize_begin FILE                  (empties FILE)
#   gpu_sanitize "memcheck racecheck" COMMAND...   (a "### TOOL: COMMAND" line, then its output)
#   gpu_sanitize_end || fail "..."           (the summaries; status 1 where any case failed)
# Every case runs (the file shows them all); a case fails on an error found, on its command's own
# failure, or past SANITIZE_TIMEOUT seconds (default 300).
gpu_sanitize_begin() {
  GPU_SANITIZE_FILE=$1
  GPU_SANITIZE_FAILED=()
  : >"$GPU_SANITIZE_FILE"
  stamp "compute-sanitizer into $GPU_SANITIZE_FILE"
}

gpu_sanitize() {
  local tool tools=$1
  shift
  for tool in $tools; do
    echo "### $tool: $*" >>"$GPU_SANITIZE_FILE"
    gpu_do timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$@" >>"$GPU_SANITIZE_FILE" 2>&1 || GPU_SANITIZE_FAILED+=("$tool: $*")
  done
}

gpu_sanitize_end() {
  gpu_dry && return 0
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$GPU_SANITIZE_FILE" | sort | uniq -c || true
  echo "$(grep -c '^###' "$GPU_SANITIZE_FILE") sanitizer runs, ${#GPU_SANITIZE_FAILED[@]} failed"
  ((${#GPU_SANITIZE_FAILED[@]} == 0)) && return 0
  printf '  %s\n' "${GPU_SANITIZE_FAILED[@]}" >&2
  return 1
}

# The free memory of the first device in MiB, and the number of devices.
gpu_free_mib() {
  if gpu_dry; then
    echo "+ nvidia-smi --query-gpu=memory.free (a dry run takes 80000 MiB)" >&3
    echo 80000
    return 0
  fi
  nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1
}

gpu_count() {
  if gpu_dry; then
    echo "+ nvidia-smi -L (a dry run takes 2 GPUs)" >&3
    echo 2
    return 0
  fi
  nvidia-smi -L | grep -c '^GPU '
}
