# shellcheck shell=bash
# Ouroboros (Winter et al., ICS'20) on the GPU: `scripts/gpu.sh ouroboros STAGE [OUT]`
# (docs/gpu-device.md). The GPU tests, compute-sanitizer on small cases of each variant, then the
# reference workload of reports/peers/ouroboros_bench.csv (2^20 threads x one allocation of 16 /
# 256 / 4096 B, 8 GiB pool) cold (the pool pristine before every timed phase) and warm (as the
# public benchmark times it: after a warm-up on the same instance), with RW-BM and the queue beside
# it for the same session, then the other workload families. Sourced by scripts/gpu.sh after
# scripts/gpu-setup.sh. Knobs (environment): OURO, the variants measured (default
# ouro-p-s,ouro-c-s; `all`: the registry's six), TRIALS of the reference workload (default 5),
# SIZES of it (default "16 256 4096"; all six at 3 sizes and 3 trials fit one call since b755329:
# studies/ouroboros/measured.md, "Measured: all six").
# shellcheck disable=SC2034 # GPU_DEFAULT_STAGE and GPU_ALLOCATORS: read by scripts/gpu.sh
GPU_DEFAULT_STAGE=tests
# The allocators these stages cover (scripts/gpu-stages.sh leaves them out).
GPU_ALLOCATORS='^ouro-'

ouro_variants() {
  if [ "${OURO:-}" = all ]; then
    gpu_allocators | tr , '\n' | { grep -E "$GPU_ALLOCATORS" || true; } | paste -sd, -
  else
    echo "${OURO:-ouro-p-s,ouro-c-s}"
  fi
}

stage_tests() { # every GPU test, compute-sanitizer (memcheck, racecheck, synccheck) per variant
  gpu_prepare alloclab gpu_tests
  ouro_tests
}

stage_measure() { # the reference workload cold and warm, the counters, the other families
  gpu_prepare alloclab
  ouro_measure
}

stage_all() { # tests, then measure
  gpu_prepare alloclab gpu_tests
  ouro_tests
  ouro_measure
}

ouro_tests() {
  gpu_ctest "$OUT/ctest.txt" all || fail "GPU tests"
  gpu_sanitize_begin "$OUT/sanitizer.txt"
  local algo args
  for algo in $(ouro_variants | tr , ' '); do
    for args in "--N 3000 --T 1e6 --free 1 --pages 1" "--N 3000 --T 262144 --free 1 --pages 64" \
      "--N 10000 --T 8192 --free 1 --pages 1"; do
      # shellcheck disable=SC2086
      gpu_sanitize "memcheck racecheck synccheck" "$AL" measure --allocator "$algo" $args --repeats 1 \
        --warmup 1 --format csv
    done
  done
  gpu_sanitize_end || fail "a sanitizer reported an error (see $OUT/sanitizer.txt)"
}

ouro_measure() {
  local ouro warm size f=$OUT/alloc.csv sizes fam extra
  ouro=$(ouro_variants)
  stamp "reference workload"
  for warm in "" --warm; do
    for size in ${SIZES:-16 256 4096}; do
      # shellcheck disable=SC2086
      gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator "$ouro,queue,rwbm" \
        --bit-choice lowest --workload alloc --N '2^20' --size $size --page-bytes $size \
        --pool 8GiB --trials "${TRIALS:-5}" --counters off $warm
    done
  done
  stamp "counters"
  sizes=${SIZES:-16 256 4096}
  sizes=${sizes// /,}
  f=$OUT/alloc_counters.csv
  : >"$f"
  gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator "$ouro" --workload alloc \
    --N '2^20' --size "$sizes" --pool 8GiB --trials 2
  gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator "$ouro" --workload alloc \
    --N '2^20' --size "$sizes" --pool 8GiB --trials 2 --warm
  stamp "families"
  for fam in mixed churn oom fragmentation; do
    extra="--pool 1GiB"
    [ $fam = mixed ] && extra="--size 16..4096 --N 2^18 --pool 1GiB"
    [ $fam = churn ] && extra="--size 16 --N 2^18 --rounds 10 --pool 1GiB"
    [ $fam = oom ] && extra="--size 16 --pool 64MiB --batch 65536"
    [ $fam = fragmentation ] && extra="--size 16 --N 100000 --pool 1GiB"
    # shellcheck disable=SC2086
    gpu_do "$AL" workload --backend gpu --format csv --allocator "$ouro" --workload $fam \
      --trials 2 $extra >"$OUT/$fam.csv" 2>"$OUT/$fam.err" ||
      echo "$fam FAILED: $(tail -2 "$OUT/$fam.err")"
  done
  # Out of memory where the pool, not the class's 2^20-page count, is the limit: 16 MiB is 2048
  # chunks, 2^20 pages of 16 B (a virtualized queue keeps a fifth of them for its Queue-Chunks).
  gpu_do "$AL" workload --backend gpu --format csv --allocator "$ouro" --workload oom --size 16 \
    --pool 16MiB --batch 65536 --trials 2 >"$OUT/oom_16MiB.csv" 2>"$OUT/oom_16MiB.err" ||
    echo "oom 16MiB FAILED: $(tail -2 "$OUT/oom_16MiB.err")"
}

stage_probe() { # how the cold alloc workload grows with N at one size, with the per-request counts
  # PROBE_SIZE (default 4096), PROBE_N (default "2^14 2^16 2^18"), each run cut at PROBE_LIMIT
  # seconds (default 60; a cut run is a line in probe.txt).
  gpu_prepare alloclab
  stamp "probe"
  local algo n start f=$OUT/probe.csv
  for algo in $(ouro_variants | tr , ' '); do
    for n in ${PROBE_N:-2^14 2^16 2^18}; do
      start=$(date +%s%N)
      gpu_csv "$f" timeout "${PROBE_LIMIT:-60}" "$AL" workload --backend gpu --format csv \
        --allocator "$algo" --workload alloc --N "$n" --size "${PROBE_SIZE:-4096}" --pool 8GiB \
        --trials 1 2>>"$OUT/probe.txt" ||
        echo "$algo N=$n: cut or failed (status $?)" >>"$OUT/probe.txt"
      echo "$algo N=$n: $((($(date +%s%N) - start) / 1000000)) ms wall" >>"$OUT/probe.txt"
    done
  done
  gpu_dry || cat "$OUT/probe.txt"
}

stage_claims() { # the churn rounds and the comparison with CUDA's malloc the report's claims read
  # Churn rounds at 16 and 256 B with the counters on (C's walk against the refill model,
  # model/ouro_walk.hpp), and §6.1.1's comparison with CUDA's malloc at 10,000 and 100,000
  # allocations of 16 B .. 8 KiB on a 2 GiB pool (warm: the allocators reused, as the paper's 100
  # runs reuse them).
  gpu_prepare alloclab
  stamp "claims: churn"
  gpu_do "$AL" workload --backend gpu --format csv --allocator ouro-c-s,ouro-p-s --workload churn \
    --size 16,256 --N '2^18' --rounds 3 --free-fraction 0.5 --pool 1GiB --trials 2 \
    >"$OUT/churn.csv"
  stamp "claims: against CUDA's malloc"
  gpu_do "$AL" workload --backend gpu --format csv --allocator ouro-p-s,ouro-c-s,cudamalloc \
    --workload alloc --N 10000,100000 --size 16,64,256,1024,4096,8192 --pool 2GiB --trials 3 \
    --counters off --warm >"$OUT/alloc_vs_cuda.csv"
}

stage_blocks() { # block-size sensitivity of ouro-p-s warm (2^20 x 256 B, 8 GiB), blocks 128..1024
  gpu_prepare alloclab
  local b
  for b in 128 256 512 1024; do
    if gpu_dry; then
      gpu_do "$AL" workload --backend gpu --format csv --allocator ouro-p-s --workload alloc \
        --N '2^20' --size 256 --pool 8GiB --trials 5 --counters off --warm --block $b
      continue
    fi
    "$AL" workload --backend gpu --format csv --allocator ouro-p-s --workload alloc --N '2^20' \
      --size 256 --pool 8GiB --trials 5 --counters off --warm --block $b | tail -n +2 |
      cut -d, -f1,3,5,6,11,17,18
  done
}
