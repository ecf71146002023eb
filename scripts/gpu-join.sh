#!/usr/bin/env bash
# The hash join case study on the GPU (issue 17; paper 000 §5.2.3, Figure 12), on the device
# machine from the repository root: the GPU tests of the join, compute-sanitizer memcheck on a
# small join with every page source, then Figure 12's sweep (`alloclab join`): R and S of 16K,
# 64K, 256K, 1M, 4M and 10M tuples each, Direct Output and every allocator with a page heap,
# uniform keys and Zipf skew 1, 3 timed joins after a warm-up, one CSV per skew.
# The pool (--pool, bytes: PAGES x 256): Figure 12's 128M pages (2^27 x 256 B = 32 GiB) where the device has that much free
# beside 4 GiB for the tables and the pools (an 80 GB H100 and an H200 do), else the largest
# power of two that fits; the metadata records the value (PAGES overrides it). gg-tbuddy's pool
# holds at most 2^22 pages: it runs at that size (its rows' `pages` say so); gg-ualloc and
# gg-malloc (chunks from a TBuddy of 2^22 pages of 4 KB) at 2^26.
# Usage: scripts/gpu-join.sh OUT_DIR [tests|measure|all]   (default all)
set -euo pipefail
OUT=$1
STAGE=${2:-all}
. scripts/gpu-setup.sh
gpu_log_start join
stamp configure
gpu_configure
stamp build
gpu_build alloclab gpu_tests
gpu_metadata "$OUT/metadata.json" "$BUILD/cli/alloclab"
AL=$BUILD/cli/alloclab
if [ "$STAGE" != measure ]; then
  stamp "ctest -L gpu -R ^join"
  (cd "$BUILD" && ctest -L gpu -R "^join" --output-on-failure -j1) >"$OUT/ctest.txt" 2>&1 || {
    tail -60 "$OUT/ctest.txt"
    fail "GPU tests"
  }
  tail -3 "$OUT/ctest.txt"
  stamp "compute-sanitizer memcheck"
  : >"$OUT/sanitizer.txt"
  bad=0
  for skew in 0 1; do
    echo "### memcheck join --skew $skew" >>"$OUT/sanitizer.txt"
    compute-sanitizer --tool memcheck --error-exitcode 9 "$AL" join --tuples 20000 \
      --pool 16MiB --skew $skew --repeats 1 --format csv >>"$OUT/sanitizer.txt" 2>&1 || bad=1
  done
  grep -E "ERROR SUMMARY" "$OUT/sanitizer.txt" | sort | uniq -c
  [ $bad = 0 ] || fail "memcheck reported an error (see $OUT/sanitizer.txt)"
fi
[ "$STAGE" = tests ] && {
  stamp done
  exit 0
}
if [ -z "${PAGES:-}" ]; then
  free_mib=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1)
  PAGES=$((1 << 27))
  while [ $((PAGES / 4096 + 4096)) -gt "$free_mib" ]; do PAGES=$((PAGES / 2)); done
fi
echo "{\"pages\": $PAGES}" >"$OUT/pages.json"
stamp "figure 12: $PAGES pages (--pool $((PAGES * 256)))"
# Every page source the join has (its --help lists them). A search bound of 2^22 steps for all:
# the blocking allocators' waits are steps (Ouroboros' and gg-tbuddy's semaphores), and a hot
# partition's threads asking at once wait past the join's default 2^16; the probing allocators
# never come near it on these ample pools. gg-tbuddy's tree holds at most 2^22 pages (its order-0
# semaphore's count), and its time grows faster than linearly in the requests in flight (1.5 s
# at 65536 tuples, 17 s at 262144 on the H200): it runs at 2^22 pages, up to 65536 tuples.
ALL=$("$AL" join --help | sed -n 's/.*comma list of output page sources: \([^ ]*\) .*/\1/p')
SMALL=gg-tbuddy
SMALL_PAGES=$((PAGES < (1 << 22) ? PAGES : (1 << 22)))
SMALL_TUPLES=16384,65536
# UAlloc's chunks come from a TBuddy of at most 2^22 pages of 4 KB: gg-ualloc and gg-malloc run
# at 2^26 pages of 256 B (16 GiB), every table size (34 ms a join at 1M tuples on the H200).
MID=gg-ualloc,gg-malloc
MID_PAGES=$((PAGES < (1 << 26) ? PAGES : (1 << 26)))
BIG=$(echo "$ALL" | tr , '\n' | grep -vx -e "$SMALL" -e gg-ualloc -e gg-malloc | paste -sd, -)
TUPLES=16384,65536,262144,1048576,4194304,10000000
MID_TUPLES=${MID_TUPLES:-$TUPLES}
BOUND=4194304
for skew in 0 1; do
  f=$OUT/figure12-skew$skew.csv
  # One command a skew and pool: the host reference is computed once per table size for all.
  timeout "${LIMIT:-400}" "$AL" join --allocator "$BIG" --tuples $TUPLES --max-steps $BOUND \
    --pool "$((PAGES * 256))" --skew $skew --repeats 3 --format csv >"$f" 2>"$OUT/figure12-skew$skew.log" ||
    fail "figure 12, skew $skew (see $OUT/figure12-skew$skew.log)"
  timeout "${LIMIT:-400}" "$AL" join --allocator "$SMALL" --tuples $SMALL_TUPLES \
    --pool "$((SMALL_PAGES * 256))" --max-steps $BOUND --skew $skew --repeats 3 --format csv 2>>"$OUT/figure12-skew$skew.log" |
    tail -n +2 >>"$f" || fail "figure 12, skew $skew, $SMALL (see $OUT/figure12-skew$skew.log)"
  timeout "${LIMIT:-400}" "$AL" join --allocator "$MID" --tuples "$MID_TUPLES" \
    --pool "$((MID_PAGES * 256))" --max-steps $BOUND --skew $skew --repeats 3 --format csv 2>>"$OUT/figure12-skew$skew.log" |
    tail -n +2 >>"$f" || fail "figure 12, skew $skew, $MID (see $OUT/figure12-skew$skew.log)"
  cut -d, -f1,2,6,7,8,9,10,11,12,14 "$f" | (column -s, -t 2>/dev/null || cat)
done
stamp done
