# shellcheck shell=bash
# The hash join case study (paper 000 §5.2.3, Figure 12) on the GPU: `scripts/gpu.sh hash-join
# STAGE [OUT]` (docs/gpu-device.md). The GPU tests of the join, compute-sanitizer memcheck on a
# small join with every page source, then Figure 12's sweep (`alloclab join`): R and S of 16K,
# 64K, 256K, 1M, 4M and 10M tuples each, Direct Output and every allocator with a page heap,
# uniform keys and Zipf skew 1, 3 timed joins after a warm-up, one CSV per skew. Sourced by
# scripts/gpu.sh after scripts/gpu-setup.sh. Knobs (environment): PAGES, LIMIT (default 400 s a
# command), MID_TUPLES.
# shellcheck disable=SC2034 # GPU_DEFAULT_STAGE and GPU_ALLOCATORS: read by scripts/gpu.sh
GPU_DEFAULT_STAGE=tests

stage_tests() { # the join's GPU tests, memcheck on a join of 20,000 tuples (skew 0 and 1)
  gpu_prepare alloclab gpu_tests
  join_tests
}

stage_measure() { # Figure 12: every page source over 16K .. 10M tuples, skew 0 and 1
  gpu_prepare alloclab
  join_figure12
}

stage_all() { # tests, then Figure 12
  gpu_prepare alloclab gpu_tests
  join_tests
  join_figure12
}

join_tests() {
  gpu_ctest "$OUT/ctest.txt" join_gpu_test || fail "GPU tests"
  gpu_sanitize_begin "$OUT/sanitizer.txt"
  local skew
  for skew in 0 1; do
    gpu_sanitize memcheck "$AL" join --tuples 20000 --pool 16MiB --skew $skew --repeats 1 \
      --format csv
  done
  gpu_sanitize_end || fail "memcheck reported an error (see $OUT/sanitizer.txt)"
}

# The pool (--pool, bytes: pages x 256): Figure 12's 128M pages (2^27 x 256 B = 32 GiB) where the device has that much free
# beside 4 GiB for the tables and the pools (an 80 GB H100 and an H200 do), else the largest power
# of two that fits; pages.json records the value (PAGES overrides it). gg-tbuddy's pool holds at
# most 2^22 pages: it runs at that size (its rows' `pages` say so); gg-ualloc and gg-malloc
# (chunks from a TBuddy of 2^22 pages of 4 KB) at 2^26.
join_figure12() {
  local pages=${PAGES:-} free_mib
  if [ -z "$pages" ]; then
    free_mib=$(gpu_free_mib)
    pages=$((1 << 27))
    while [ $((pages / 4096 + 4096)) -gt "$free_mib" ]; do pages=$((pages / 2)); done
  fi
  echo "{\"pages\": $pages}" >"$OUT/pages.json"
  stamp "figure 12: $pages pages (--pool $((pages * 256)))"
  # Every page source the join has (its --help lists them). A search bound of 2^22 steps for all:
  # the blocking allocators' waits are steps (Ouroboros' and gg-tbuddy's semaphores), and a hot
  # partition's threads asking at once wait past the join's default 2^16; the probing allocators
  # never come near it on these ample pools. gg-tbuddy's tree holds at most 2^22 pages (its
  # order-0 semaphore's count), and its time grows faster than linearly in the requests in flight
  # (1.5 s at 65536 tuples, 17 s at 262144 on the H200): it runs at 2^22 pages, up to 65536
  # tuples. UAlloc's chunks come from a TBuddy of at most 2^22 pages of 4 KB: gg-ualloc and
  # gg-malloc run at 2^26 pages of 256 B (16 GiB), every table size (34 ms a join at 1M tuples on
  # the H200).
  local all small=gg-tbuddy mid=gg-ualloc,gg-malloc big
  all=$(gpu_query join --help | sed -n 's/.*comma list of output page sources: \([^ ]*\) .*/\1/p')
  big=$(echo "$all" | tr , '\n' | { grep -vx -e "$small" -e gg-ualloc -e gg-malloc || true; } |
    paste -sd, -)
  local small_pages=$((pages < (1 << 22) ? pages : (1 << 22)))
  local mid_pages=$((pages < (1 << 26) ? pages : (1 << 26)))
  local tuples=16384,65536,262144,1048576,4194304,10000000 bound=4194304 skew f log
  for skew in 0 1; do
    f=$OUT/figure12-skew$skew.csv
    log=$OUT/figure12-skew$skew.log
    : >"$f"
    # One command a skew and pool: the host reference is computed once per table size for all.
    gpu_csv "$f" timeout "${LIMIT:-400}" "$AL" join --allocator "$big" --tuples $tuples \
      --max-steps $bound --pool "$((pages * 256))" --skew $skew --repeats 3 --format csv 2>"$log" ||
      fail "figure 12, skew $skew (see $log)"
    gpu_csv "$f" timeout "${LIMIT:-400}" "$AL" join --allocator "$small" --tuples 16384,65536 \
      --pool "$((small_pages * 256))" --max-steps $bound --skew $skew --repeats 3 --format csv 2>>"$log" ||
      fail "figure 12, skew $skew, $small (see $log)"
    gpu_csv "$f" timeout "${LIMIT:-400}" "$AL" join --allocator "$mid" \
      --tuples "${MID_TUPLES:-$tuples}" --pool "$((mid_pages * 256))" --max-steps $bound --skew $skew \
      --repeats 3 --format csv 2>>"$log" || fail "figure 12, skew $skew, $mid (see $log)"
    gpu_table "$f" 1,2,6,7,8,9,10,11,12,14
  done
}
