#!/usr/bin/env bash
# The standard grid of the validation report, on a GPU machine: every algorithm of paper 000's
# evaluation over `--grid standard` (T = 10^6 and 2^25, the paper's five free fractions, N from
# 1024 up to what the pool allows, N <= A; w = 32 and 64), 20 trials, GPU backend only. Model
# and simulation are added on any machine: scripts/main-job.sh takes these rows with
# `alloclab sweep --gpu-from reports/standard`.
#   scripts/gpu-standard-sweep.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
build=${1:-build}
out=${2:-reports/standard}
# Not `all`: paper 000's one-page allocators, the committed rows (rwmalloc: reports/rwmalloc-gpu).
"$build/cli/alloclab" sweep --allocator queue,rw,rwbm,corw --backend gpu --grid standard \
  --trials 20 --repeats 3 --seed 1 --out "$out"
