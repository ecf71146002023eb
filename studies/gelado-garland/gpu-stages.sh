# shellcheck shell=bash
# Gelado & Garland (PPoPP'19) on the GPU: `scripts/gpu.sh gelado-garland STAGE [OUT]`
# (docs/gpu-device.md). The bulk semaphore's Figure 5, TBuddy, UAlloc and gg-malloc's Figure 7,
# and the RCU list's Figure 6; each stage builds alloclab and the GPU tests and records the device.
# Sourced by scripts/gpu.sh after scripts/gpu-setup.sh. Knobs (environment): LIMIT (seconds a
# point), REPEATS, FIG5_N, BACKOFF_SCAN, FIG6_N, and Figure 7's below.
# shellcheck disable=SC2034 # GPU_DEFAULT_STAGE and GPU_ALLOCATORS: read by scripts/gpu.sh
GPU_DEFAULT_STAGE=tests
# The allocators these stages cover (scripts/gpu-stages.sh leaves them out).
GPU_ALLOCATORS='^gg-'

stage_tests() { # the semaphore bench's GPU tests, compute-sanitizer on small semaphore runs
  gpu_prepare alloclab gpu_tests
  gelado_semaphore_tests
}

stage_measure() { # Figure 5: bulk against counting semaphore, N = 2^10 .. 2^20, blocks 32..1024
  gpu_prepare alloclab gpu_tests
  gelado_figure5
}

stage_all() { # tests, then Figure 5
  gpu_prepare alloclab gpu_tests
  gelado_semaphore_tests
  gelado_figure5
}

gelado_semaphore_tests() {
  gpu_ctest "$OUT/ctest.txt" semaphore_bench_gpu_test || fail "GPU tests"
  gpu_sanitize_begin "$OUT/sanitizer.txt"
  local args
  for args in "--N 5000 --batch 64" "--N 3000 --batch 16 --batches 20"; do
    # shellcheck disable=SC2086
    gpu_sanitize "memcheck racecheck synccheck" "$AL" semaphore --backend gpu $args --repeats 1 \
      --warmup 0 --format csv
  done
  gpu_sanitize_end || fail "a sanitizer reported an error (see $OUT/sanitizer.txt)"
}

# Figure 5 (`alloclab semaphore --backend gpu`: the bulk against the counting semaphore, each
# thread one unit) into OUT/figure5.csv. One command per point (rows stream out; each cut at LIMIT
# seconds, which the log records and the stage then fails on: a wait that long is a defect). Each
# thread for itself, as the paper: the paper's batch (512) at three block sizes, then batches of 64
# and 4096 at 256 threads a block, up to N = 2^16 (a launch's time grows as N^2: 2^18 once, at
# batch 512, block 256; 2^20 would take minutes). Then the same with warp aggregation (--warp) up
# to N = 2^20 (the paper averaged blocks of 1 .. 1024).
gelado_figure5() {
  stamp "figure 5"
  GELADO_BAD=0
  GELADO_FILE=$OUT/figure5.csv
  : >"$GELADO_FILE"
  local n warp block batch cap
  if [ -n "${BACKOFF_SCAN:-}" ]; then # the back-off cap's effect: batch 512, block 256
    for n in ${FIG5_N:-65536 262144}; do
      for cap in $BACKOFF_SCAN; do gelado_fig5_point 512 256 "$n" --backoff-max-ns "$cap"; done
    done
  else
    for n in ${FIG5_N:-1024 4096 16384 65536 262144 1048576}; do
      for warp in "" --warp; do
        if [ -z "$warp" ] && [ "$n" -gt 65536 ]; then
          [ "$n" -le 262144 ] && gelado_fig5_point 512 256 "$n"
          continue
        fi
        for block in 32 256 1024; do gelado_fig5_point 512 $block "$n" $warp; done
        for batch in 64 4096; do gelado_fig5_point $batch 256 "$n" $warp; done
      done
    done
  fi
  if ! gpu_dry; then
    grep wall "$OUT/figure5.log" | tail -60
    gpu_table "$GELADO_FILE" 1,4,5,6,7,8,9,13,15,16,17,22
  fi
  [ $GELADO_BAD = 0 ] || fail "figure 5: a point was cut or failed (see $OUT/figure5.log)"
}

gelado_fig5_point() { # BATCH BLOCK N [extra options]
  local batch=$1 block=$2 n=$3 start
  shift 3
  start=$(date +%s%N)
  gpu_csv "$GELADO_FILE" timeout "${LIMIT:-60}" "$AL" semaphore --backend gpu --N "$n" \
    --batch "$batch" --block "$block" --repeats "${REPEATS:-5}" --format csv "$@" \
    2>>"$OUT/figure5.log" || {
    echo "batch $batch block $block N $n $*: cut or failed" >>"$OUT/figure5.log"
    GELADO_BAD=1
  }
  echo "batch $batch block $block N $n $*: $((($(date +%s%N) - start) / 1000000)) ms wall" \
    >>"$OUT/figure5.log"
}

stage_rcu() { # Figure 6: RCU delegation against classical RCU over N and writers:threads ratios
  gpu_prepare alloclab gpu_tests
  gpu_ctest "$OUT/ctest-rcu.txt" rcu_list_gpu_test || fail "GPU tests"
  gpu_sanitize_begin "$OUT/sanitizer-rcu.txt"
  gpu_sanitize memcheck "$AL" rcu --backend gpu --N 2048 --ratio 1,16 --repeats 1 --warmup 0 \
    --format csv
  gpu_sanitize_end || fail "memcheck reported an error (see $OUT/sanitizer-rcu.txt)"
  stamp "figure 6"
  # One command per point (rows stream out; each cut at LIMIT seconds, which the log records and
  # the stage then fails on) into OUT/figure6.csv, both barriers at each point, about a minute of
  # GPU time. The work grows as N^2 / ratio (every thread walks the list), so ratio 1 stops at
  # N = 16384. Block 256, then 32 and 1024 at one point (the paper averaged blocks of 1 .. 1024).
  GELADO_BAD=0
  GELADO_FILE=$OUT/figure6.csv
  : >"$GELADO_FILE"
  local n ratio block
  for n in ${FIG6_N:-1024 4096 16384 65536}; do
    for ratio in 1 4 16 64 256; do
      [ "$ratio" -gt "$n" ] && continue
      [ "$n" -gt 16384 ] && [ "$ratio" -lt 4 ] && continue
      gelado_rcu_point "$n" "$ratio" 256
    done
  done
  for block in 32 1024; do gelado_rcu_point 16384 4 $block; done
  if ! gpu_dry; then
    grep wall "$OUT/figure6.log" | tail -40
    gpu_table "$GELADO_FILE" 3-6,8,9,23,24,26
  fi
  [ $GELADO_BAD = 0 ] || fail "figure 6: a point was cut or failed (see $OUT/figure6.log)"
}

gelado_rcu_point() { # N RATIO BLOCK
  local start
  start=$(date +%s%N)
  gpu_csv "$GELADO_FILE" timeout "${LIMIT:-60}" "$AL" rcu --backend gpu --N "$1" --ratio "$2" \
    --block "$3" --repeats "${REPEATS:-3}" --format csv 2>>"$OUT/figure6.log" || {
    echo "N $1 ratio $2 block $3: cut or failed" >>"$OUT/figure6.log"
    GELADO_BAD=1
  }
  echo "N $1 ratio $2 block $3: $((($(date +%s%N) - start) / 1000000)) ms wall" >>"$OUT/figure6.log"
}

stage_tbuddy() { # gg-tbuddy's GPU tests, sanitizers, the alloc workload on 1 GiB of 256 B pages
  gpu_prepare alloclab gpu_tests
  # Its own tests and the generic ones that run every GPU allocator.
  gpu_ctest "$OUT/ctest-tbuddy.txt" gg_tbuddy_gpu_test gpu_test workload_test registry_test ||
    fail "GPU tests"
  gpu_sanitize_begin "$OUT/sanitizer-tbuddy.txt"
  local args counters point f
  for args in "--N 3000 --A 8192 --T 16384 --pages 1" "--N 3000 --A 2000 --T 4096 --pages 3"; do
    # shellcheck disable=SC2086
    gpu_sanitize "memcheck racecheck synccheck" "$AL" measure --allocator gg-tbuddy $args --repeats 1 \
      --warmup 1 --format csv
  done
  gpu_sanitize_end || fail "a sanitizer reported an error (see $OUT/sanitizer-tbuddy.txt)"
  stamp "tbuddy workloads"
  # 2^14 .. 2^20 requests of 256 B and 2^14 .. 2^18 of 4 KiB, with the counters on and off: 1 GiB
  # of 256 B pages is 2^22, TBuddy's largest tree; 4 KiB requests take 16 pages, so 2^18 of them
  # fill it.
  for counters in on off; do
    for point in "256 16384..1048576*4" "4096 16384..262144*4"; do
      # shellcheck disable=SC2086
      set -- $point
      f=$OUT/tbuddy-alloc-counters-$counters.csv
      gpu_csv "$f" timeout 120 "$AL" workload --backend gpu --format csv --allocator gg-tbuddy \
        --workload alloc --N "$2" --size "$1" --pool 1GiB --page-bytes 256 --trials 2 \
        --counters $counters ||
        echo "tbuddy alloc $1 B (counters $counters): failed or cut (status $?)"
    done
  done
}

stage_ualloc() { # gg-ualloc's and gg-malloc's GPU tests and sanitizers, then Figure 7 (fig7.csv)
  gpu_prepare alloclab gpu_tests
  [ "${UALLOC_TESTS:-1}" = 1 ] && gelado_ualloc_tests
  gelado_figure7
}

# The GPU tests (theirs, and the generic workload and registry tests that enrol every GPU
# allocator) and compute-sanitizer on small runs (UALLOC_TESTS=0 skips them: a second figure in
# one call).
gelado_ualloc_tests() {
  gpu_ctest "$OUT/ctest-ualloc.txt" gg_ualloc_gpu_test workload_test registry_test ||
    fail "GPU tests"
  gpu_sanitize_begin "$OUT/sanitizer-ualloc.txt"
  local steps="--repeats 1 --warmup 0 --max-steps 100000"
  # shellcheck disable=SC2086
  {
    gpu_sanitize "memcheck racecheck" "$AL" measure --allocator gg-ualloc --N 2000 --A 131072 \
      --T 131072 --pages 8 $steps --format csv
    gpu_sanitize "memcheck racecheck" "$AL" measure --allocator gg-malloc --N 600 --A 131072 \
      --T 131072 --pages 256 $steps --format csv
    gpu_sanitize memcheck "$AL" workload --backend gpu --allocator gg-malloc --workload mixed \
      --N 2000 --size 64..16384 --pool 16MiB --warmup 0 --max-steps 100000 --format csv
  }
  gpu_sanitize_end || fail "a sanitizer reported an error (see $OUT/sanitizer-ualloc.txt)"
}

# Figure 7 (Gelado & Garland §5.3) into OUT/fig7.csv and OUT/fig7-counts.csv: each thread one
# malloc of a fixed size, just enough threads to exhaust the pool, gg-malloc against CUDA's malloc
# (`cudamalloc`) in the same command. Sizes 8 B .. 512 B: 2^20 threads on a pool of 2^20 x size
# (8 MiB .. 512 MiB); 1 KB: 512 MiB (2^19 threads); 2 KB .. 512 KB (TBuddy's pages): a pool of
# $BIG_POOL (default 64 MiB, 2^15 .. 2^7 threads; the paper's 512 MiB gives TBuddy 2^18 threads at
# 2 KB, whose per-thread semaphore waits take tens of seconds: see studies/gelado-garland/). Timed
# with the counters off (fig7.csv), then 64 B, 512 B, 1 KB and 2 KB again with gg-malloc's counts
# (fig7-counts.csv; COUNT_SIZES chooses them). Each point is cut at $LIMIT seconds (default 45,
# logged in fig7.log), and once the figure has run $FIG7_BUDGET seconds (default 180) the
# remaining points are skipped (logged), so that the stage stays near 4 minutes of device time;
# FIG7_SIZES chooses the sizes timed, FIG7_FROM=SIZE skips the smaller ones (a run that continues
# an earlier one), FIG7_ALLOCATORS the allocators (default gg-malloc,cudamalloc), ARENAS and
# CHUNK_MUTEX=single gg-malloc's options (single: every grower takes the chunk mutex alone, the
# comparison with the collective default). A point that fails verification fails the stage.
gelado_figure7() {
  stamp "figure 7${CHUNK_MUTEX:+ (--chunk-mutex $CHUNK_MUTEX)}"
  GELADO_BAD=0
  GELADO_FIG7_START=$(date +%s)
  : >"$OUT/fig7.log"
  local size f=$OUT/fig7.csv
  local sizes="8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536 131072 262144 524288"
  : >"$f"
  for size in ${FIG7_SIZES:-$sizes}; do
    [ "$size" -lt "${FIG7_FROM:-0}" ] && continue
    gelado_fig7_size "$f" off "$size" "${FIG7_ALLOCATORS:-gg-malloc,cudamalloc}"
  done
  f=$OUT/fig7-counts.csv
  : >"$f"
  for size in ${COUNT_SIZES:-64 512 1024 2048}; do
    gelado_fig7_size "$f" on "$size" gg-malloc
  done
  if ! gpu_dry; then
    cat "$OUT/fig7.log"
    gpu_table "$OUT/fig7.csv" 1,5,6,7,17,18,22
  fi
  [ $GELADO_BAD = 0 ] || fail "figure 7: a point failed (see $OUT/fig7.log)"
}

# One point of the figure: its thread count and pool by the size (above).
gelado_fig7_size() { # FILE COUNTERS SIZE ALLOCATORS
  local size=$3 big=${BIG_POOL:-64MiB}
  if [ "$size" -le 512 ]; then
    gelado_fig7_point "$1" "$2" "$size" 1048576 $((size * 1048576)) "$4"
  elif [ "$size" = 1024 ]; then
    gelado_fig7_point "$1" "$2" 1024 524288 512MiB "$4"
  else
    gelado_fig7_point "$1" "$2" "$size" $(($(numfmt --from=iec "${big%iB}") / size)) "$big" "$4"
  fi
}

gelado_fig7_point() { # FILE COUNTERS SIZE N POOL ALLOCATORS
  local file=$1 counters=$2 size=$3 n=$4 pool=$5 algos=$6 start rc sweep=${GELADO_SWEEP:-}
  [ "$counters" = on ] && sweep='' # counts need one block size, not a mean
  if [ $(($(date +%s) - GELADO_FIG7_START)) -ge "${FIG7_BUDGET:-180}" ]; then
    echo "$algos $size B N $n pool $pool counters $counters: skipped (budget)" >>"$OUT/fig7.log"
    return
  fi
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  gpu_csv "$file" timeout "${LIMIT:-45}" "$AL" workload --backend gpu --format csv \
    --allocator "$algos" --workload alloc --N "$n" --size "$size" --pool "$pool" \
    --cuda-heap 4GiB --trials 1 --counters "$counters" ${ARENAS:+--arenas $ARENAS} \
    ${CHUNK_MUTEX:+--chunk-mutex $CHUNK_MUTEX} ${GG_ORDER:+--gg-order $GG_ORDER} \
    ${GG_WAIT:+--gg-wait $GG_WAIT} $sweep 2>>"$OUT/fig7.log" && rc=0 || rc=$?
  echo "$algos $size B N $n pool $pool counters $counters: status $rc," \
    "$((($(date +%s%N) - start) / 1000000)) ms wall" >>"$OUT/fig7.log"
  [ "$rc" = 0 ] || [ "$rc" = 124 ] || GELADO_BAD=1
}

stage_speed() { # issue 37 in 8 minutes: GG GPU tests, sanitizers, Fig. 7 both settings, TBuddy, Fig. 5
  # The whole stage, build included, ends within SPEED_BUDGET seconds (default 460): every step's
  # own limit (seconds, environment) is cut to what is left, and a step with nothing left is
  # skipped and logged. TESTS_LIMIT 90; SANITIZE_TIMEOUT 30 a case (6 cases); PAPER_BUDGET 110
  # and FIXED_BUDGET 45 (Figure 7: a point starts only within its budget, FIG7_LIMIT 30 s a
  # point); TBUDDY_LIMIT 12 a point; FIG5_LIMIT 8 a point. Everything lands under OUT:
  # ctest-speed.txt, sanitizer-speed.txt, fig7-paper.csv and fig7-256.csv (each with its
  # -counts.csv: atomics, waits, growers a request, and its .log), tbuddy-speed.csv,
  # figure5-speed.csv.
  GELADO_SPEED_BAD=0
  GELADO_SPEED_END=$(($(date +%s) + ${SPEED_BUDGET:-460}))
  gpu_prepare alloclab gpu_tests
  gelado_speed_tests
  gelado_speed_sanitizers
  # Figure 7 in the paper's setting: each point's times the mean over blocks of 1 .. 1024
  # threads (--block-sweep), TBuddy's sizes on the paper's 512 MiB; then blocks of 256.
  GELADO_SWEEP=--block-sweep BIG_POOL=512MiB LIMIT=$(gelado_left "${FIG7_LIMIT:-30}") \
    FIG7_BUDGET=$(gelado_left "${PAPER_BUDGET:-110}") \
    COUNT_SIZES=${COUNT_SIZES:-8 64 512 1024} gelado_figure7_into paper
  GELADO_SWEEP='' BIG_POOL=${FIXED_POOL:-64MiB} LIMIT=$(gelado_left "${FIG7_LIMIT:-30}") \
    FIG7_BUDGET=$(gelado_left "${FIXED_BUDGET:-45}") \
    COUNT_SIZES=${COUNT_SIZES:-8 64 512 1024} gelado_figure7_into 256
  gelado_speed_tbuddy
  gelado_speed_figure5
  [ "$GELADO_SPEED_BAD" = 0 ] || fail "a step failed or was cut (see the log)"
}

# min(LIMIT, the seconds left of SPEED_BUDGET), at least 1 (a step that gets 1 s is cut at once,
# and logged as such).
gelado_left() { # LIMIT
  local left=$((GELADO_SPEED_END - $(date +%s)))
  [ "$left" -lt 1 ] && left=1
  [ "$1" -lt "$left" ] && left=$1
  echo "$left"
}

gelado_speed_tests() {
  stamp "GG GPU tests (limit ${TESTS_LIMIT:-90} s)"
  if gpu_dry; then
    echo "+ (cd $BUILD && timeout ${TESTS_LIMIT:-90} ctest -L '^(gg_tbuddy_gpu_test|gg_ualloc_gpu_test|semaphore_bench_gpu_test|rcu_list_gpu_test)\$' --output-on-failure -j1) > $OUT/ctest-speed.txt" >&3
    return 0
  fi
  (cd "$BUILD" && timeout "$(gelado_left "${TESTS_LIMIT:-90}")" ctest \
    -L '^(gg_tbuddy_gpu_test|gg_ualloc_gpu_test|semaphore_bench_gpu_test|rcu_list_gpu_test)$' \
    --output-on-failure -j1) >"$OUT/ctest-speed.txt" 2>&1 || {
    tail -40 "$OUT/ctest-speed.txt"
    echo "GG GPU tests failed or were cut (see $OUT/ctest-speed.txt)" >&2
    GELADO_SPEED_BAD=1
  }
  tail -3 "$OUT/ctest-speed.txt" 2>/dev/null || true
}

gelado_speed_sanitizers() { # small runs of every GG kernel, each case cut at SANITIZE_TIMEOUT
  local steps="--repeats 1 --warmup 0 --max-steps 100000 --format csv"
  gpu_sanitize_begin "$OUT/sanitizer-speed.txt"
  # shellcheck disable=SC2086
  {
    SANITIZE_TIMEOUT=$(gelado_left "${SANITIZE_TIMEOUT:-30}") gpu_sanitize \
      "memcheck racecheck synccheck" "$AL" measure --allocator gg-malloc --N 600 --A 131072 \
      --T 131072 --pages 8 $steps
    SANITIZE_TIMEOUT=$(gelado_left "${SANITIZE_TIMEOUT:-30}") gpu_sanitize "memcheck synccheck" \
      "$AL" measure --allocator gg-tbuddy --N 2000 --A 8192 --T 16384 --pages 1 $steps
    SANITIZE_TIMEOUT=$(gelado_left "${SANITIZE_TIMEOUT:-30}") gpu_sanitize memcheck "$AL" \
      semaphore --backend gpu --N 3000 --batch 16 --repeats 1 --warmup 0 --format csv
  }
  gpu_sanitize_end || {
    echo "a sanitizer reported an error or was cut (see $OUT/sanitizer-speed.txt)" >&2
    GELADO_SPEED_BAD=1
  }
}

# Figure 7 into OUT/fig7-NAME.csv and OUT/fig7-NAME-counts.csv (gelado_figure7's points, with
# GELADO_SWEEP's option on every command).
gelado_figure7_into() { # NAME
  local name=$1
  (gelado_figure7) || GELADO_SPEED_BAD=1 # a failed point: logged, the stage goes on
  if ! gpu_dry; then
    mv "$OUT/fig7.csv" "$OUT/fig7-$name.csv"
    mv "$OUT/fig7-counts.csv" "$OUT/fig7-$name-counts.csv"
    mv "$OUT/fig7.log" "$OUT/fig7-$name.log"
  fi
}

gelado_speed_tbuddy() { # gg-tbuddy, 2^14 .. 2^20 one-page requests on 1 GiB of 256 B pages
  stamp "gg-tbuddy 2^14 .. 2^20 one-page requests (limit ${TBUDDY_LIMIT:-12} s a point)"
  local n counters f=$OUT/tbuddy-speed.csv
  : >"$f"
  for counters in off on; do
    for n in 16384 65536 262144 1048576; do
      gpu_csv "$f" timeout "$(gelado_left "${TBUDDY_LIMIT:-12}")" "$AL" workload --backend gpu --format csv \
        --allocator gg-tbuddy --workload alloc --N "$n" --size 256 --pool 1GiB --page-bytes 256 \
        --trials 1 --counters $counters ||
        echo "tbuddy N $n counters $counters: failed or cut (status $?)" | tee -a "$OUT/log.txt"
    done
  done
  gpu_table "$f" 1,5,6,7,17,18,22
}

gelado_speed_figure5() { # bulk against counting semaphore, counters on (peak growers, waits)
  stamp "figure 5 (limit ${FIG5_LIMIT:-8} s a point)"
  GELADO_BAD=0
  GELADO_FILE=$OUT/figure5-speed.csv
  : >"$GELADO_FILE"
  local n
  for n in 1024 16384 65536 262144 1048576; do
    LIMIT=$(gelado_left "${FIG5_LIMIT:-8}") REPEATS=3 gelado_fig5_point 512 256 "$n" --warp
    [ "$n" -le 65536 ] && LIMIT=$(gelado_left "${FIG5_LIMIT:-8}") REPEATS=3 \
      gelado_fig5_point 512 256 "$n"
  done
  gpu_table "$GELADO_FILE" 1,4,5,6,7,8,9,13,15,16,17,22
  [ $GELADO_BAD = 0 ] || GELADO_SPEED_BAD=1
}
