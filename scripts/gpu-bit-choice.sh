#!/usr/bin/env bash
# RW-BM's bit choice on a GPU (issue 6, item 4): collisions, steps and kernel time with the lowest
# free bit (the paper's), a random free bit and a lane-rotated one, at high N/T where many threads
# read the same word at once. 20 trials per point; lowest repeats the standard grid's RW-BM points
# so that all three come from one run. About a minute of GPU time on an H200.
#   scripts/gpu-bit-choice.sh OUT_DIR [BUILD_DIR]
# Then: commit OUT_DIR as reports/bit-choice/ (scripts/main-job.sh adds its GPU rows to the
# report), or run `alloclab report OUT_DIR` for the collisions section on its own.
set -euo pipefail
out=${1:?usage: scripts/gpu-bit-choice.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
alloclab="$build/cli/alloclab"
# T = 10^6: N/T up to 0.26 at half free (N <= A); at 1% free N/A is high but N/T small.
"$alloclab" sweep --allocator rwbm --backend gpu --bit-choice lowest,random,rotated --w 32,64 \
  --N '1024..262144*2' --free 0.5,0.1,0.01 --T 1e6 --trials 20 --repeats 3 --seed 1 --out "$out"
# T = 2^25: N up to 2^20 (N/T = 1/32), the standard grid's largest GPU points.
"$alloclab" sweep --allocator rwbm --backend gpu --bit-choice lowest,random,rotated --w 32,64 \
  --N '65536..1048576*2' --free 0.5,0.1 --T '2^25' --trials 20 --repeats 3 --seed 1 --out "$out"
# The model needs no device: the report computes it for every point that has measurements.
"$alloclab" report "$out"
echo "gpu-bit-choice: wrote $out/sweep.csv and $out/report.html (section 'Collisions')"
