#!/usr/bin/env bash
# Why the bitmap allocators lose speed at 16 B and 4096 B pages (run on the device machine from
# the repository root): builds gpu_page_size_study only, records the device (nvidia-smi, driver,
# CUDA, clocks, date, commit: scripts/gpu-setup.sh), then measures a fresh pool, 2^20 threads,
# T = 2^21..2^31 pages: the atomic floor, RW-BM, CoRW and RW, RW-BM's bit choices, fewer threads
# on 4096 B pages, and the bench's candidate kernels (gpu/bench/page_size_study.cpp says what
# and why). About 2 minutes of device time from a bare machine (the build is most of it).
#   OUT=DIR scripts/gpu-page-size-study.sh      (results under $OUT, default ./out/page-size-study)
# $OUT: study.json (alloclab-page-size-study/1, every point), study.txt (a line per point),
# metadata.json, log.txt, build.txt; sanitizer.txt only when the study failed (compute-sanitizer
# memcheck of a small run, to say where). Then commit $OUT under reports/data/<device>/ and fit:
#   alloclab fit-time reports/standard --study DIR/study.json --bitmap-features --out DIR
# Needs the Debian dev packages of scripts/device-deps.sh in .devdeps/ (carried); set
# ALLOCLAB_COMMIT / ALLOCLAB_DIRTY when .git does not travel. REPEATS (default 25) and
# STUDY_TIMEOUT_S (default 150) override the study's repeats and its time limit; the JSON is
# rewritten after every point, so a study cut short keeps what it measured.
set -euo pipefail
OUT=${OUT:-$PWD/out/page-size-study}
# shellcheck source=scripts/gpu-setup.sh
. scripts/gpu-setup.sh # gpu_log_start, stamp, fail, gpu_configure, gpu_build, gpu_metadata
gpu_log_start gpu-page-size-study

stamp "configure"
gpu_configure
stamp "build"
gpu_build gpu_page_size_study
STUDY=$BUILD/gpu/gpu_page_size_study

stamp "metadata"
gpu_metadata "$OUT/metadata.json"

stamp "study"
rc=0
timeout "${STUDY_TIMEOUT_S:-150}" "$STUDY" --json "$OUT/study.json" --repeats "${REPEATS:-25}" \
  2>&1 | tee "$OUT/study.txt" || rc=$?
if [ "$rc" -ne 0 ]; then
  # 3: a point failed verification (its row says which); 1: a CUDA error; 124: the time limit.
  if [ "$rc" -eq 1 ] || [ "$rc" -eq 3 ]; then
    stamp "compute-sanitizer memcheck, small run"
    timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$STUDY" --log2-N 12 \
      --log2-T 14 --main-log2-T 14 --contention-log2-T 14 --contention-log2-N 10 --repeats 1 \
      --warmup 0 >"$OUT/sanitizer.txt" 2>&1 || true
    grep -E "ERROR SUMMARY|ERROR" "$OUT/sanitizer.txt" | head -20 || true
  fi
  fail "study (exit $rc; the points measured are in $OUT/study.json)"
fi
stamp "done: $OUT/study.json"
