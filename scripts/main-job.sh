#!/usr/bin/env bash
# The main job: for now, the analytic model table of the paper's Figure 4 (T = 10^6, five free
# fractions, N up to 5000) for RW and RW-BM, written to out/ as table, CSV and JSON.
set -euo pipefail
build=${1:-build}
out=${ALLOCLAB_OUT:-out}
mkdir -p "$out"
alloclab="$build/cli/alloclab"
grid=(--N 500:5000:500 --free 0.5,0.1,0.01,0.007,0.005 --T 1e6)
for algo in queue rw rwbm; do
  "$alloclab" model --algo "$algo" "${grid[@]}" --format csv >"$out/model_$algo.csv"
  "$alloclab" model --algo "$algo" "${grid[@]}" --format json >"$out/model_$algo.json"
done
"$alloclab" model --algo rw "${grid[@]}"
echo
echo "main job: wrote $out/model_{queue,rw,rwbm}.{csv,json}"
