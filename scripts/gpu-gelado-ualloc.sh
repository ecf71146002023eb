# shellcheck shell=bash
# The `ualloc` stage of scripts/gpu-gelado.sh (sourced from it after the build; uses OUT, AL, BUILD,
# stamp and fail): gg-ualloc's and gg-malloc's GPU tests (and the generic workload tests that enrol
# every GPU allocator), compute-sanitizer on small runs, then Figure 7 (Gelado & Garland §5.3):
# each thread one malloc of a fixed size, just enough threads to exhaust the pool, gg-malloc
# against CUDA's malloc (`cudamalloc`) in the same command. Sizes 8 B .. 512 B: 2^20 threads on a
# pool of 2^20 x size (8 MiB .. 512 MiB); 1 KB: 512 MiB (2^19 threads); 2 KB .. 512 KB (TBuddy's
# pages): a pool of $BIG_POOL (default 64 MiB, 2^15 .. 2^7 threads; the paper's 512 MiB gives
# TBuddy 2^18 threads at 2 KB, whose per-thread semaphore waits take tens of seconds: see
# studies/gelado-garland/). Timed with the counters off (fig7.csv), then 64 B, 512 B, 1 KB and 2 KB
# again with gg-malloc's counts (fig7-counts.csv; COUNT_SIZES chooses them). Each point is cut at $LIMIT seconds (logged in
# fig7.log), and once the figure has run $FIG7_BUDGET seconds (default 180) the remaining points are
# skipped (logged), so that the stage stays near 4 minutes of device time; FIG7_FROM=SIZE skips
# the smaller sizes of the timed figure (a run that continues an earlier one); a point that fails
# verification fails the stage.

ualloc_stage() {
  local bad=0 f h n size pool rc
  [ "${UALLOC_TESTS:-1}" = 1 ] && ualloc_tests
  ualloc_figure7
}

# The GPU tests and compute-sanitizer (UALLOC_TESTS=0 skips them: a second figure in one call).
ualloc_tests() {
  local bad=0
  stamp "ctest -L gpu -R gg-ualloc|gg-malloc|generic workloads"
  (cd "$BUILD" && ctest -L gpu --output-on-failure -j1 -R \
    "gg-ualloc|gg-malloc|every GPU allocator serves an alloc|GPU churn|GPU oom|GPU repeats|pools' and allocators|warp-collective|only allocators whose|size limits of a run|registry") \
    >"$OUT/ctest-ualloc.txt" 2>&1 || {
    tail -60 "$OUT/ctest-ualloc.txt"
    fail "GPU tests"
  }
  tail -3 "$OUT/ctest-ualloc.txt"

  stamp "ualloc sanitizers"
  : >"$OUT/sanitizer-ualloc.txt"
  local runs=(
    "measure --allocator gg-ualloc --N 2000 --A 131072 --T 131072 --pages 8 --repeats 1 --warmup 0 --max-steps 100000"
    "measure --allocator gg-malloc --N 600 --A 131072 --T 131072 --pages 256 --repeats 1 --warmup 0 --max-steps 100000"
    "workload --backend gpu --allocator gg-malloc --workload mixed --N 2000 --size 64..16384 --pool 16MiB --warmup 0 --max-steps 100000"
  )
  for tool in memcheck racecheck; do
    for args in "${runs[@]}"; do
      [ $tool = racecheck ] && [[ $args == workload* ]] && continue
      echo "### $tool $args" >>"$OUT/sanitizer-ualloc.txt"
      # shellcheck disable=SC2086
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$AL" $args --format csv \
        >>"$OUT/sanitizer-ualloc.txt" 2>&1 || bad=1
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-ualloc.txt" | sort | uniq -c
  [ $bad = 0 ] || fail "a sanitizer reported an error (see $OUT/sanitizer-ualloc.txt)"
}

# Figure 7 into OUT/fig7.csv and OUT/fig7-counts.csv; CHUNK_MUTEX=single runs gg-malloc with
# every grower taking the chunk mutex alone (the comparison with the collective default).
ualloc_figure7() {
  local bad=0 f h n size pool rc
  stamp "figure 7${CHUNK_MUTEX:+ (--chunk-mutex $CHUNK_MUTEX)}"
  LIMIT=${LIMIT:-45}
  BIG_POOL=${BIG_POOL:-64MiB}
  : >"$OUT/fig7.log"
  FIG7_BUDGET=${FIG7_BUDGET:-180}
  local fig7_start
  fig7_start=$(date +%s)
  fig7_point() { # FILE COUNTERS SIZE N POOL ALLOCATORS
    local file=$1 counters=$2 size=$3 n=$4 pool=$5 algos=$6 start
    if [ $(($(date +%s) - fig7_start)) -ge "$FIG7_BUDGET" ]; then
      echo "$algos $size B N $n pool $pool counters $counters: skipped (budget)" >>"$OUT/fig7.log"
      return
    fi
    h="cat"
    [ -s "$file" ] && h="tail -n +2"
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    { timeout "$LIMIT" "$AL" workload --backend gpu --format csv --allocator "$algos" \
      --workload alloc --N "$n" --size "$size" --pool "$pool" --cuda-heap 4GiB --trials 1 \
      --counters "$counters" ${ARENAS:+--arenas $ARENAS} ${CHUNK_MUTEX:+--chunk-mutex $CHUNK_MUTEX} \
      2>>"$OUT/fig7.log" | $h >>"$file"; } &&
      rc=0 || rc=$?
    echo "$algos $size B N $n pool $pool counters $counters: status $rc," \
      "$((($(date +%s%N) - start) / 1000000)) ms wall" >>"$OUT/fig7.log"
    [ "$rc" = 0 ] || [ "$rc" = 124 ] || bad=1
  }
  # One point of the figure: its thread count and pool by the size (above).
  fig7_size() { # FILE COUNTERS SIZE ALLOCATORS
    local size=$3
    if [ "$size" -le 512 ]; then
      fig7_point "$1" "$2" "$size" 1048576 $((size * 1048576)) "$4"
    elif [ "$size" = 1024 ]; then
      fig7_point "$1" "$2" 1024 524288 512MiB "$4"
    else
      fig7_point "$1" "$2" "$size" $(($(numfmt --from=iec "${BIG_POOL%iB}") / size)) "$BIG_POOL" "$4"
    fi
  }
  f=$OUT/fig7.csv
  : >"$f"
  # FIG7_SIZES: the sizes timed (default all 17); FIG7_ALLOCATORS: gg-malloc and CUDA's malloc.
  for size in ${FIG7_SIZES:-8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536 131072 262144 524288}; do
    [ "$size" -lt "${FIG7_FROM:-0}" ] && continue
    fig7_size "$f" off "$size" "${FIG7_ALLOCATORS:-gg-malloc,cudamalloc}"
  done
  f=$OUT/fig7-counts.csv
  : >"$f"
  for size in ${COUNT_SIZES:-64 512 1024 2048}; do
    fig7_size "$f" on "$size" gg-malloc
  done
  cat "$OUT/fig7.log"
  cut -d, -f1,5,6,7,17,18,22 "$OUT/fig7.csv" | (column -s, -t 2>/dev/null || cat)
  [ $bad = 0 ] || fail "figure 7: a point failed (see $OUT/fig7.log)"
}
