#!/usr/bin/env bash
# The main job (README, "Set-up"): the default report, on a machine without a GPU.
#   1. start from the hardware rows of the committed sweep (reports/standard/, measured on an
#      H200 by scripts/gpu-standard-sweep.sh), if present;
#   2. add fresh model values for the whole standard grid, plus the N = 500..5000 curves of the
#      paper's Figure 4;
#   3. add fresh simulations (sequential and lockstep, 20 trials) for T = 10^6 (a T = 2^25 pool
#      costs ~2.5 s per trial to build on one core, so the CPU job leaves that half to the GPU);
#   4. a few sequential and lockstep simulations at T = 2^25 where hardware departs most from
#      the model;
#   5. RW-BM bit choices (lowest, random, rotated) at high N/T for the collisions section;
#   6. validate and write out/report/report.html and report.md.
#   scripts/main-job.sh [BUILD_DIR]        (ALLOCLAB_OUT overrides out/report)
set -euo pipefail
build=${1:-build}
out=${ALLOCLAB_OUT:-out/report}
alloclab="$build/cli/alloclab"
fractions=0.5,0.1,0.01,0.007,0.005

rm -rf "$out"
mkdir -p "$out"
if [ -f reports/standard/sweep.csv ]; then
  # Only the hardware rows: model and simulation are recomputed here, not copied.
  # (Lowest-bit rows: the other RW-BM bit choices come from reports/bit-choice/ below.)
  awk -F, 'NR == 1 { bc = ($10 == "bit_choice") }
           NR == 1 || ($2 == "gpu" && (!bc || $10 == "lowest"))' reports/standard/sweep.csv \
    >"$out/sweep.csv"
  cp reports/standard/sweep.json "$out/"
  echo "main job: starting from the committed GPU rows of reports/standard/sweep.csv"
else
  echo "main job: no committed GPU sweep found; the report will hold model and simulation only"
fi
"$alloclab" sweep --algos queue,rw,rwbm --backends model --w 32,64 --N '1024..1048576*2' \
  --free "$fractions" --T '1e6,2^25' --out "$out"
# The parallel-rounds model (not in the paper; `model --schedule rounds`), rw and rwbm on the
# standard grid: model rows with mode=rounds, validated against the lockstep simulation. ~2 s.
"$alloclab" sweep --algos rw,rwbm --backends model --modes rounds --w 32,64 --N '1024..1048576*2' \
  --free "$fractions" --T '1e6,2^25' --out "$out"
"$alloclab" sweep --algos queue,rw,rwbm --backends model --w 32 --N 500:5000:500 \
  --free "$fractions" --T 1e6 --out "$out"
# The warp chains of CoRW and RW_malloc (models the paper lacks; seconds): CoRW on the standard
# grid, RW_malloc's run probabilities, rounds and utilisation for several request sizes n, and a
# small sequential RW_malloc simulation (n = 2) to check the chain against.
"$alloclab" sweep --algos corw --backends model --w 32,64 --N '1024..1048576*2' \
  --free "$fractions" --T '1e6,2^25' --out "$out"
for n in 1 2 3 4 5 8 16 32; do
  "$alloclab" sweep --algos rwmalloc --backends model --pages "$n" --w 32,64 --N 1024 \
    --free 0.5,0.1,0.01 --T 1e6 --out "$out"
done
"$alloclab" sweep --algos rwmalloc --backends model,sim --modes sequential --pages 2 --w 32 \
  --N '1024..16384*2' --free 0.5,0.1 --T 1e6 --trials 5 --seed 1 --out "$out"
"$alloclab" sweep --algos queue,rw,rwbm,corw --backends sim --modes sequential,lockstep \
  --w 32,64 --N '1024..1048576*2' --free "$fractions" --T 1e6 --trials 20 --seed 1 --out "$out"
# At T = 2^25, hardware RW warps wait much longer than the model's service-order warps; the
# sequential and lockstep simulations bracket the hardware. A few points, 5 trials (a T = 2^25
# pool alone costs ~2.5 s per trial to build on one core).
"$alloclab" sweep --algos rw --backends sim --modes sequential,lockstep --N '32768..262144*2' \
  --free 0.01,0.007,0.005 --T '2^25' --trials 5 --seed 1 --out "$out"
# CoRW at T = 2^25 with N >= 32768: hardware warps run concurrently, so its rounds lie between
# the warp chain's (warps one at a time = the sequential simulation) and the lockstep
# simulation's (every warp reads at the start of each round); 3 trials, ~5 min.
"$alloclab" sweep --algos corw --backends sim --modes sequential,lockstep --w 32,64 \
  --N '32768..1048576*2' --free 0.1,0.01,0.007,0.005 --T '2^25' --trials 3 --seed 1 --out "$out"
# The kernel-time model (issue 6): fit time to work on the committed GPU rows; the report adds
# its section when $out/time_fit.json exists. reports/data/<device>/time_fit.json, which
# `alloclab model --device` reads, is the same command run on reports/standard.
if grep -q '^[^,]*,gpu,' "$out/sweep.csv" 2>/dev/null; then
  meta=()
  [ -f reports/standard/device_metadata.json ] &&
    meta=(--device-metadata reports/standard/device_metadata.json)
  "$alloclab" fit-time "$out" "${meta[@]}" -o "$out/time_fit.json"
fi
# Collisions (issue 6, item 4): RW-BM's bit choices (lowest, random, rotated) in the simulator at
# high N/T, lockstep and 2 host threads, 5 trials; the report's collisions section puts them
# beside the model. GPU rows of other bit choices come from reports/bit-choice/ when committed
# (scripts/gpu-bit-choice.sh); its lowest rows would duplicate the standard grid's.
if [ -f reports/bit-choice/sweep.csv ] && head -n 1 reports/bit-choice/sweep.csv | grep -q bit_choice
then
  awk -F, '$2 == "gpu" && $10 != "lowest"' reports/bit-choice/sweep.csv >>"$out/sweep.csv"
fi
"$alloclab" sweep --algos rwbm --backends sim --modes lockstep,threads --threads 2 \
  --bit-choice lowest,random,rotated --w 32,64 --N '65536..262144*2' --free 0.5 --T 1e6 \
  --trials 5 --seed 1 --out "$out"
"$alloclab" sweep --algos rwbm --backends sim --modes lockstep,threads --threads 2 \
  --bit-choice lowest,random,rotated --w 32 --N '1024..8192*2' --free 0.01 --T 1e6 \
  --trials 5 --seed 1 --out "$out"
if "$alloclab" validate "$out" >"$out/validate.txt"; then
  echo "main job: validation passed ($(tail -1 "$out/validate.txt"))"
else
  echo "main job: validation found unexplained failures: see $out/validate.txt" >&2
fi
"$alloclab" report "$out"
