#!/usr/bin/env bash
# Final run (issue 12): GPU tests and sanitizers on the change, then the change against its
# baseline (da025fc, built beside it) on the same device.
R=$OUT; export OUT=/tmp/o; mkdir -p $OUT
export ALLOCLAB_COMMIT=${ALLOCLAB_COMMIT:-8110808}
. scripts/gpu-setup.sh
T0=$(date +%s); st() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
BUILD=build-gpu-pass; gpu_configure
mkdir -p /tmp/base && tar -xf build-base-src/src.tar -C /tmp/base
( cd /tmp/base && BUILD=build-base && gpu_configure && ninja -C build-base -j8 alloclab > $OUT/build-base.txt 2>&1 || echo "BASE BUILD FAILED" ) &
ninja -C build-gpu-pass -j12 alloclab gpu_tests > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; echo "BUILD FAILED"; }
wait
st built
gpu_metadata "$R/metadata.json" build-gpu-pass/cli/alloclab
(cd build-gpu-pass && ctest -L gpu --output-on-failure -j1) > $OUT/ctest.txt 2>&1; echo "ctest rc=$?" >> $OUT/ctest.txt
tail -4 $OUT/ctest.txt; tail -40 $OUT/ctest.txt > $R/ctest-tail.txt
st ctest
AL=build-gpu-pass/cli/alloclab; BASE=/tmp/base/build-base/cli/alloclab
: > $R/sanitizer.txt
for tool in memcheck racecheck synccheck; do
  for algo in ouro-p-s ouro-p-va ouro-p-vl; do
    for args in "--N 3000 --T 1e6 --free 1 --pages 1" "--N 10000 --T 8192 --free 1 --pages 1"; do
      echo "### $tool measure --algo $algo $args" >> $R/sanitizer.txt
      compute-sanitizer --tool $tool --error-exitcode 9 $AL measure --algo $algo $args --repeats 1 --warmup 1 --format csv >> $R/sanitizer.txt 2>&1 || echo "SANITIZER ERROR $tool $algo $args"
    done
  done
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $R/sanitizer.txt | sort | uniq -c
st sanitizers
run() {  # label binary args...
  local l=$1 b=$2; shift 2
  $b workload --backend gpu --workload alloc --N '2^20' --pool 8GiB --format csv "$@" | tail -n +2 | sed "s/^/$l,/" >> $R/alloc.csv
}
$AL workload --backend gpu --allocator ouro-p-s --workload alloc --N 1024 --size 16 --pool 8GiB --format csv | head -1 | sed 's/^/build,/' > $R/alloc.csv
for rep in 1 2; do
  run base $BASE --allocator ouro-p-s --size 16,256,4096 --trials 5 --warm --counters off
  run change $AL --allocator ouro-p-s --size 16,256,4096 --trials 5 --warm --counters off
done
st warm
run base $BASE --allocator ouro-p-va,ouro-p-vl --size 16,256,4096 --trials 3 --warm --counters off
run change $AL --allocator ouro-p-va,ouro-p-vl --size 16,256,4096 --trials 3 --warm --counters off
for rep in 1 2; do
  run base $BASE --allocator ouro-p-s --size 16,256 --trials 5 --counters off
  run change $AL --allocator ouro-p-s --size 16,256 --trials 5 --counters off
done
run base $BASE --allocator ouro-p-s --size 4096 --trials 3 --counters off
run change $AL --allocator ouro-p-s --size 4096 --trials 3 --counters off
st cold-s
run base $BASE --allocator ouro-p-va,ouro-p-vl --size 16,256,4096 --trials 2 --counters off
run change $AL --allocator ouro-p-va,ouro-p-vl --size 16,256,4096 --trials 2 --counters off
st cold-v
$AL workload --backend gpu --format csv --allocator ouro-p-s,ouro-p-va,ouro-p-vl --workload alloc --N '2^20' --size 16,256,4096 --pool 8GiB --trials 1 --warm > $R/alloc_counters.csv
$AL workload --backend gpu --format csv --allocator ouro-p-s --workload alloc --N '2^20' --size 16,256,4096 --pool 8GiB --trials 1 | tail -n +2 >> $R/alloc_counters.csv
st counters
timeout 60 ncu --kernel-name regex:ouro_page_alloc --launch-skip 1 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
  --metrics l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_local_op_st.sum \
  $AL workload --backend gpu --allocator ouro-p-s --workload alloc --N '2^20' --size 256 --pool 8GiB --warm --counters off --trials 1 > $OUT/ncu.txt 2>&1
timeout 60 ncu --kernel-name regex:ouro_page_alloc --launch-skip 1 --launch-count 1 --section SpeedOfLight \
  --metrics l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_local_op_st.sum \
  $BASE workload --backend gpu --allocator ouro-p-s --workload alloc --N '2^20' --size 256 --pool 8GiB --warm --counters off --trials 1 > $OUT/ncu-base.txt 2>&1
cat $OUT/ncu.txt $OUT/ncu-base.txt | grep -v "^==PROF" > $R/ncu.txt
st done
