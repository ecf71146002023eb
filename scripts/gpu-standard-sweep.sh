#!/usr/bin/env bash
# The standard grid of the validation report, on a GPU machine (issue 5): every algorithm of
# paper 000's evaluation, T = 10^6 and 2^25, the paper's five free fractions, N from 1024 up to
# what the pool allows (N <= A), 20 trials, GPU backend only. Model and simulation are added
# later on any machine (scripts/main-job.sh resumes the same directory with --backends model,sim).
#   scripts/gpu-standard-sweep.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
build=${1:-build}
out=${2:-reports/standard}
"$build/cli/alloclab" sweep --algos queue,rw,rwbm,corw --backends gpu --w 32,64 \
  --N '1024..1048576*2' --free 0.5,0.1,0.01,0.007,0.005 --T '1e6,2^25' \
  --trials 20 --repeats 3 --seed 1 --out "$out"
"$build/cli/alloclab" validate "$out" --format csv >"$out/verdicts_gpu_only.csv" || true
