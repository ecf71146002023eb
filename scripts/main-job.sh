#!/usr/bin/env bash
# The main job (README, "Set-up"): the default report, on a machine without a GPU.
#   scripts/main-job.sh [--full] [BUILD_DIR]     (ALLOCLAB_OUT overrides out/report)
# Writes out/report/report.html, report.md and validate.txt. Exits 0 when every verdict passes
# or is an explained departure, 1 when validation finds an unexplained failure (the report is
# written either way, with the verdicts), and non-zero as soon as any step fails.
#
# The hardware rows come from committed sweeps measured on an H200 (no GPU needed here):
# reports/standard/ (scripts/gpu.sh engine standard) and reports/bit-choice/ (scripts/gpu.sh
# engine bit-choice), selected by `alloclab sweep --gpu-from DIR` on the grid asked for.
# To them the job adds fresh model values, fresh simulations, validates and reports.
#
# quick (default; about 75-100 s on 2 cores): the hardware rows at T = 10^6 and N = 4^k * 1024,
# simulations at exactly those points (and RW-BM's bit choices at those N) with the same seeds
# and trials as --full, so every sequential and lockstep value is the full job's, and the
# verdicts' family-wise threshold, over fewer comparisons, is if anything stricter; the models
# over the whole grid (CoRW's warp chain at T = 10^6); the committed kernel-time fit
# (reports/standard/time_fit.json, which --full recomputes from the same rows).
# --full (about 14 minutes on 2 cores): every N and both T = 10^6 and 2^25, with
# the T = 2^25 simulations where hardware departs most from the model, and the fit recomputed.
set -euo pipefail
kind=quick
build=
for arg in "$@"; do
  case "$arg" in
  --full) kind=full ;;
  -*)
    echo "main-job: unknown option '$arg' (usage: scripts/main-job.sh [--full] [BUILD_DIR])" >&2
    exit 2
    ;;
  *)
    if [ -n "$build" ]; then
      echo "main-job: one build directory, got '$build' and '$arg'" >&2
      exit 2
    fi
    build=$arg
    ;;
  esac
done
build=${build:-build}
if [ ! -x "$build/cli/alloclab" ]; then
  echo "main-job: no alloclab in '$build' (build first: scripts/setup.sh report)" >&2
  exit 2
fi
out=${ALLOCLAB_OUT:-out/report}
alloclab="$build/cli/alloclab"
t0=$(date +%s)
step() { echo "== main job ($kind) [$(($(date +%s) - t0)) s]: $*"; }

# The standard grid's points with hardware rows and simulations (see above).
if [ "$kind" = full ]; then
  measured=(--grid standard)
  simulated=(--grid standard --T 1e6)
  corw_model=(--grid standard)
  factor=2 # N ranges of the bit-choice part: every power of two
else
  measured=(--grid standard --T 1e6 --N '1024..1048576*4')
  simulated=("${measured[@]}")
  corw_model=(--grid standard --T 1e6)
  factor=4
fi

rm -rf "$out"
mkdir -p "$out"

# 1. The hardware rows: the standard grid's lowest-bit GPU measurements (the other RW-BM bit
#    choices come from reports/bit-choice/ below).
step "H200 rows of the standard grid from reports/standard"
# Not `all`: the allocators reports/standard measured on the GPU (paper 000's one-page ones).
"$alloclab" sweep --allocator queue,rw,rwbm,corw --backend gpu "${measured[@]}" \
  --gpu-from reports/standard --out "$out"

# 2. Models (seconds): the paper's model, the parallel-rounds model (rw, rwbm; not in the paper),
#    the paper's Figure 4 curves, and the warp chains of CoRW and RW_malloc (models the paper
#    lacks): RW_malloc's run probabilities, rounds and utilisation for several request sizes n.
step "models"
# Not `all`: the paper's model per allocator here; corw and rwmalloc have their own grids below.
"$alloclab" sweep --allocator queue,rw,rwbm --backend model --grid standard --out "$out"
"$alloclab" sweep --allocator rw,rwbm --backend model --modes rounds --grid standard --out "$out"
"$alloclab" sweep --allocator queue,rw,rwbm --backend model --grid figure4 --out "$out"
"$alloclab" sweep --allocator corw --backend model "${corw_model[@]}" --out "$out"
for n in 1 2 3 4 5 8 16 32; do
  "$alloclab" sweep --allocator rwmalloc --backend model --pages "$n" --w 32,64 --N 1024 \
    --free 0.5,0.1,0.01 --T 1e6 --out "$out"
done

# 3. Simulations: a small sequential RW_malloc one (n = 2) to check its chain against; then
#    sequential and lockstep simulations at T = 10^6 (a 2^25-page pool costs ~2.5 s per trial
#    to build on one core), 20 trials.
step "simulations, T = 10^6"
"$alloclab" sweep --allocator rwmalloc --backend model,sim --modes sequential --pages 2 --w 32 \
  --N '1024..16384*2' --free 0.5,0.1 --T 1e6 --trials 5 --seed 1 --out "$out"
# Not `all`: the one-page allocators of the standard report (rwmalloc above; no corw-lockmap).
"$alloclab" sweep --allocator queue,rw,rwbm,corw --backend sim --modes sequential,lockstep \
  "${simulated[@]}" --trials 20 --seed 1 --out "$out"

if [ "$kind" = full ]; then
  # 4. At T = 2^25, where hardware departs most from the model: RW warps wait much longer than
  #    the model's service-order warps, and CoRW's rounds lie between the warp chain's (warps
  #    one at a time = the sequential simulation) and the lockstep simulation's (every warp
  #    reads at the start of each round). The two simulations bracket the hardware.
  step "simulations, T = 2^25"
  "$alloclab" sweep --allocator rw --backend sim --modes sequential,lockstep --N '32768..262144*2' \
    --free 0.01,0.007,0.005 --T '2^25' --trials 5 --seed 1 --out "$out"
  "$alloclab" sweep --allocator corw --backend sim --modes sequential,lockstep --w 32,64 \
    --N '32768..1048576*2' --free 0.1,0.01,0.007,0.005 --T '2^25' --trials 3 --seed 1 \
    --out "$out"

  # 5. The kernel-time model: time fitted to work on the GPU rows; the report adds its section
  #    when $out/time_fit.json exists. reports/data/<device>/time_fit.json, which
  #    `alloclab model --device` reads, is the same fit.
  step "kernel-time fit"
  "$alloclab" fit-time "$out" --device-metadata reports/standard/device_metadata.json \
    --out "$out"
else
  step "kernel-time fit: the committed one (reports/standard/time_fit.json)"
  cp reports/standard/time_fit.json "$out/time_fit.json"
fi

# 6. Collisions: RW-BM's bit choices (lowest, random, rotated) on the H200 (the grids of
#    scripts/gpu.sh engine bit-choice; its lowest rows would repeat the standard grid's) and in the
#    simulator at high N/T, lockstep and 2 host threads, 5 trials, beside the model.
step "bit choices"
if [ "$kind" = full ]; then
  "$alloclab" sweep --allocator rwbm --backend gpu --bit-choice random,rotated --w 32,64 \
    --N '1024..262144*2' --free 0.5,0.1,0.01 --T 1e6 --gpu-from reports/bit-choice --out "$out"
  "$alloclab" sweep --allocator rwbm --backend gpu --bit-choice random,rotated --w 32,64 \
    --N '65536..1048576*2' --free 0.5,0.1 --T '2^25' --gpu-from reports/bit-choice --out "$out"
else
  "$alloclab" sweep --allocator rwbm --backend gpu --bit-choice random,rotated --w 32,64 \
    --N '1024..262144*4' --free 0.5,0.1,0.01 --T 1e6 --gpu-from reports/bit-choice --out "$out"
fi
"$alloclab" sweep --allocator rwbm --backend sim --modes lockstep,threads --threads 2 \
  --bit-choice lowest,random,rotated --w 32,64 --N "65536..262144*$factor" --free 0.5 --T 1e6 \
  --trials 5 --seed 1 --out "$out"
"$alloclab" sweep --allocator rwbm --backend sim --modes lockstep,threads --threads 2 \
  --bit-choice lowest,random,rotated --w 32 --N "1024..8192*$factor" --free 0.01 --T 1e6 \
  --trials 5 --seed 1 --out "$out"

# 7. Workloads, for the report's "Allocators side by side": a small fixed grid on the simulator
#    (about 2 s quick, 40 s full, on 2 cores), each `alloclab workload --format csv` output one
#    file of $out/workloads/, which validate and report read (validation/workload_rows.hpp says why
#    these are files of their own and not sweep rows); then the GPUs' committed workload rows,
#    reports/data/<gpu>/workloads/*.csv, copied to $out/workloads/<gpu>/ where there are any.
#    The allocators both the simulator and the GPU run (not corw-lockmap: simulator only);
#    RW_malloc alone takes objects over a page. Pools hold every object with room to spare (the
#    alloc rows' "no failed request on an ample pool" check applies up to a quarter full).
step "workloads: simulator grid, committed GPU rows"
wl="$out/workloads"
mkdir -p "$wl/sim"
allocators=queue,rw,rwbm,corw,rwmalloc
if [ "$kind" = full ]; then
  wl_alloc=(--N '1024..262144*4' --pool 1GiB --trials 5)
else
  wl_alloc=(--N '1024..16384*4' --pool 64MiB --trials 3)
fi
"$alloclab" workload --allocator "$allocators" --workload alloc --size 16,64,256 \
  "${wl_alloc[@]}" --format csv >"$wl/sim/alloc.csv"
"$alloclab" workload --allocator rwmalloc --workload alloc --size 1KiB,2KiB \
  "${wl_alloc[@]}" --format csv >"$wl/sim/alloc_pages.csv"
"$alloclab" workload --allocator "$allocators" --workload oom --size 16,64,256 --pool 4MiB \
  --batch 1024 --format csv >"$wl/sim/oom.csv"
"$alloclab" workload --allocator "$allocators" --workload fragmentation --N 1024,16384 \
  --size 64,256 --pool 16MiB --format csv >"$wl/sim/fragmentation.csv"
"$alloclab" workload --allocator "$allocators" --workload churn --N 16384 --size 256 \
  --pool 16MiB --rounds 8 --free-fraction 0.5 --trials 3 --format csv >"$wl/sim/churn.csv"
for gpu_rows in reports/data/*/workloads; do
  [ -d "$gpu_rows" ] || continue
  gpu=$(basename "$(dirname "$gpu_rows")")
  mkdir -p "$wl/$gpu"
  cp -r "$gpu_rows"/. "$wl/$gpu/"
done
# Gelado & Garland's Figure 5 on the GPUs (`alloclab semaphore --backend gpu`), for the report's
# claims of seed 001: reports/data/<gpu>/semaphore/*.csv to $out/semaphore/<gpu>/.
for sem_rows in reports/data/*/semaphore; do
  [ -d "$sem_rows" ] || continue
  gpu=$(basename "$(dirname "$sem_rows")")
  mkdir -p "$out/semaphore/$gpu"
  cp "$sem_rows"/*.csv "$out/semaphore/$gpu/"
done

# Gelado & Garland's Figure 7 on the GPUs (`scripts/gpu.sh gelado-garland ualloc`, issue 13):
# every run's fig7*.csv to $out/ualloc/<gpu>/, each name starting with its run's date, so that a
# later run's row of a size comes after an earlier one's (runs continue each other: FIG7_FROM).
for run in reports/data/*/ualloc-*; do
  compgen -G "$run/fig7*.csv" >/dev/null || continue
  gpu=$(basename "$(dirname "$run")")
  date=$(sed -n 's/.*"date_utc": *"\([^"]*\)".*/\1/p' "$run/metadata.json" 2>/dev/null | head -1)
  mkdir -p "$out/ualloc/$gpu"
  for f in "$run"/fig7*.csv; do
    cp "$f" "$out/ualloc/$gpu/${date:-0000}-$(basename "$run")-$(basename "$f")"
  done
done

# The newest run reports/data/<gpu>/PREFIX-* that holds a file matching PATTERN (by its
# metadata.json's date_utc; ISO dates sort as text, a run without one counts as oldest), or
# nothing. One run a GPU, so that no claim counts a measurement twice.
newest_run() {
  local gpu_dir=$1 prefix=$2 pattern=$3 best="" best_date="" d date
  for d in "$gpu_dir/$prefix"-*; do
    compgen -G "$d/$pattern" >/dev/null || continue
    date=""
    if [ -f "$d/metadata.json" ]; then
      date=$(sed -n 's/.*"date_utc": *"\([^"]*\)".*/\1/p' "$d/metadata.json" | head -1)
    fi
    if [ -z "$best" ] || [[ "$date" > "$best_date" ]]; then
      best=$d
      best_date=$date
    fi
  done
  echo "$best"
}

# Copies the files matching PATTERN (and the EXTRA patterns, where present) of the newest
# reports/data/<gpu>/PREFIX-* run holding PATTERN to $out/DEST/<gpu>/, each GPU's; NAMING `run`
# prefixes each file with its run's name, `plain` keeps the name.
copy_newest() {
  local prefix=$1 pattern=$2 dest=$3 naming=$4 gpu_dir run gpu p f
  shift 4
  for gpu_dir in reports/data/*; do
    run=$(newest_run "$gpu_dir" "$prefix" "$pattern")
    [ -n "$run" ] || continue
    gpu=$(basename "$gpu_dir")
    mkdir -p "$out/$dest/$gpu"
    for p in "$pattern" "$@"; do
      for f in "$run"/$p; do
        [ -f "$f" ] || continue
        if [ "$naming" = run ]; then
          cp "$f" "$out/$dest/$gpu/$(basename "$run")-$(basename "$f")"
        else
          cp "$f" "$out/$dest/$gpu/"
        fi
      done
    done
  done
}

# The hash join's Figure 12 on the GPUs (`scripts/gpu.sh hash-join all`, issue 17), for the
# report's case study.
copy_newest join 'figure12-*.csv' join plain
# DynaSOAr's alloc rows on the GPUs (`scripts/gpu.sh dynasoar measure`), for the report's claims of
# seed 004 (rotation, coalescing).
copy_newest dynasoar alloc.csv dynasoar run
# DynaSOAr's linux-scalability at the paper's size on the GPUs (`alloclab measure --per-thread
# 1024` and 1025), beside the alloc rows (the claims tell the two apart by their columns).
copy_newest dynasoar 'linux_scalability_*.csv' dynasoar run
# DynaSOAr's applications on the GPUs' typed heap (`scripts/gpu.sh dynasoar apps`:
# linux-scalability at the paper's size, Wa-Tor's fragmentation per iteration for r = 1, 2, 5).
copy_newest dynasoar 'apps_*.csv' dynasoar run
# Gallatin on the GPUs (`scripts/gpu.sh gallatin all`), for the report's claims of seed 003
# (utilisation, initialisation, warm-up, fragmentation) and issue 14's speed against the public
# Gallatin: the run with the claims stage, and its alloc.csv.
copy_newest gallatin 'claims_*.csv' gallatin plain alloc.csv
# The simulator's rows of two of those claims, too long for this job (the buffers pre-booted,
# 2 GiB of 16 B slices): scripts/sim-gallatin-claims.sh's newest committed run,
# reports/data/cpu-simulator/gallatin-claims-*/, to $out/gallatin/cpu-simulator/.
copy_newest gallatin-claims 'sim_claims_*.csv' gallatin plain
# Gelado & Garland's Figure 6 on the GPUs (`scripts/gpu.sh gelado-garland rcu`, its OUT committed
# as reports/data/<gpu>/rcu-<commit>/), for the report's claim of RCU delegation (DIR/rcu/).
copy_newest rcu figure6.csv rcu plain

# 7b. Interleavings checked (issue 38; docs/checking.md), for the report's section of that name:
#    the CI-sized case over every family (alloclab's rules, nulls checked: at most 3 preemptions,
#    then the exhaustive ones; a violation is reported, not fatal), and the printed rules' known bugs, each found by the checker
#    (exit 3, expected: the section lists them as found under the printed rule). Seconds.
step "interleavings checked"
ck="$out/check"
rm -rf "$ck"
mkdir -p "$ck/schedules"
# Exit 3 here is a finding, not a failure of the job: UAlloc's and DynaSOAr's spurious nulls under
# alloclab's own rules (docs/checking.md), which the section highlights.
rc=0
"$alloclab" check --allocator all --N 3 --ops alloc:1,free --pool 2 --preemptions 3 \
  --format json --out "$ck/schedules" >"$ck/1-ci-preemptions.json" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
  echo "main job: check --allocator all: exit $rc" >&2
  exit 1
fi
"$alloclab" check --allocator gg-bulk-semaphore,gg-counting-semaphore,ouro-index-queue,bitmap-alloc \
  --N 3 --ops alloc:1,free --pool 2 --preemptions exhaustive --format json \
  --out "$ck/schedules" >"$ck/2-ci-exhaustive.json"
printed_bug() { # NAME ARGS...: a printed rule's bug, which must be found (exit 3)
  local name=$1 rc=0
  shift
  "$alloclab" check "$@" --rule printed --format json --out "$ck/schedules" \
    >"$ck/$name.json" 2>"$ck/schedules/$name.stderr" || rc=$?
  if [ "$rc" -ne 3 ]; then
    echo "main job: check $* --rule printed: exit $rc, expected 3 (the bug found)" >&2
    exit 1
  fi
}
printed_bug 3-printed-bulk-semaphore --allocator gg-bulk-semaphore --N 3 --ops alloc:1 --pool 8 \
  --preemptions exhaustive
printed_bug 4-printed-tbuddy-merge --allocator gg-tbuddy --N 3 --ops alloc:1,free --pool 4 \
  --preemptions 2 --null-check off
printed_bug 5-printed-tbuddy-null --allocator gg-tbuddy --N 3 --ops alloc:1,free --pool 2 \
  --preemptions 3
printed_bug 6-printed-index-queue --allocator ouro-index-queue --N 1 --ops free --pool 1 \
  --preemptions exhaustive

# 8. Validate, then write the report whatever the verdicts (it shows them).
# The explorer page (issue 16) beside the report, which links to it: built where Emscripten is
# installed (scripts/setup.sh installs it).
if [ -f "$build/explorer/explorer.html" ]; then
  cp "$build/explorer/explorer.html" "$out/explorer.html"
else
  echo "main job: no explorer page in $build/explorer (Emscripten not found at configure time)" >&2
fi
step "validate and report"
validation=0
"$alloclab" validate "$out" >"$out/validate.txt" || validation=$?
"$alloclab" report "$out"
step "done"
if [ "$validation" -ne 0 ]; then
  echo "main job: validation FAILED (exit $validation): see $out/validate.txt" >&2
  exit 1
fi
echo "main job: validation passed ($(tail -1 "$out/validate.txt"))"
