# shellcheck shell=bash
# Gallatin (McCoy & Pandey, PPoPP'24) on the GPU: `scripts/gpu.sh gallatin STAGE [OUT]`
# (docs/gpu-device.md). The GPU tests that run gallatin (its own and the generic workload cases
# that iterate every allocator), compute-sanitizer (memcheck, racecheck, synccheck) on small cases,
# then the reference workload of reports/peers/gallatin_bench.csv (2^20 threads x one allocation of
# 16 / 256 / 4096 B, 8 GiB pool) cold (the pool pristine before every timed phase) and warm
# (--warm: the repeats on the same instance), timed with --counters off, then once with the
# counters (the per-request counts the simulator reports), then the other workload families on a
# smaller scale, and the paper's figures the report's claims read. Everything is meant to fit 8
# minutes on an H200 after the build. Sourced by scripts/gpu.sh after scripts/gpu-setup.sh.
# Knobs (environment): TRIALS of the reference workload (default 3), SIZES (default "16 256 4096").
# shellcheck disable=SC2034 # GPU_DEFAULT_STAGE and GPU_ALLOCATORS: read by scripts/gpu.sh
GPU_DEFAULT_STAGE=tests
# The allocators these stages cover (scripts/gpu-stages.sh leaves them out).
GPU_ALLOCATORS='^gallatin$'

stage_tests() { # gallatin's and the generic GPU tests, compute-sanitizer on small cases
  gpu_prepare alloclab gpu_tests
  gallatin_tests
}

stage_measure() { # the reference workload cold and warm, the counters, the families, the claims
  gpu_prepare alloclab
  gallatin_measure
  gallatin_claims
}

stage_claims() { # utilisation at out of memory on 2 GiB, warm-up at 2 KiB, the fragmentation rank
  gpu_prepare alloclab
  gallatin_claims
}

stage_all() { # tests, then measure (which ends with the claims)
  gpu_prepare alloclab gpu_tests
  gallatin_tests
  gallatin_measure
  gallatin_claims
}

gallatin_tests() {
  gpu_ctest "$OUT/ctest.txt" gallatin_gpu_test gpu_test workload_test || fail "GPU tests"
  gpu_sanitize_begin "$OUT/sanitizer.txt"
  local args
  # One segment (2^20 units of 16 B) at 16 B and 256 B, four segments at 4096 B: measure runs the
  # allocation kernel twice and the free kernel once. Above 4096 B: 2 x 4 KiB slices, whole 64 KiB
  # blocks, and 2-segment runs from the back on 8 segments (4 fit: the other 6 get null).
  for args in "--N 3000 --T 1048576 --free 1 --pages 1" "--N 3000 --T 1048576 --free 1 --pages 16" \
    "--N 5000 --T 4194304 --free 1 --pages 256" "--N 3000 --T 4194304 --free 1 --pages 512" \
    "--N 500 --T 4194304 --free 1 --pages 4096" "--N 10 --T 8388608 --free 1 --pages 1048577"; do
    # shellcheck disable=SC2086
    gpu_sanitize "memcheck racecheck synccheck" "$AL" measure --allocator gallatin $args --repeats 1 \
      --warmup 1 --format csv
  done
  # Frees that give blocks and segments back, and allocations after them.
  gpu_sanitize "memcheck racecheck synccheck" "$AL" workload --backend gpu --allocator gallatin \
    --workload churn --N 4096 --size 256 --rounds 2 --pool 16MiB --trials 1 --format csv
  gpu_sanitize_end || fail "a sanitizer reported an error (see $OUT/sanitizer.txt)"
}

gallatin_measure() {
  stamp "reference workload"
  local warm size f=$OUT/alloc.csv sizes fam extra
  for warm in "" --warm; do
    for size in ${SIZES:-16 256 4096}; do
      # shellcheck disable=SC2086
      gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc \
        --N '2^20' --size $size --page-bytes $size --pool 8GiB --trials "${TRIALS:-3}" \
        --counters off $warm
    done
  done
  gpu_dry || cut -d, -f6,18,20,33 "$f" # size, alloc_ms, init_ms, verified
  stamp "counters"
  sizes=${SIZES:-16 256 4096}
  sizes=${sizes// /,}
  f=$OUT/alloc_counters.csv
  : >"$f"
  gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc \
    --N '2^20' --size "$sizes" --pool 8GiB --trials 1
  gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc \
    --N '2^20' --size "$sizes" --pool 8GiB --trials 1 --warm
  stamp "families"
  for fam in mixed churn oom fragmentation; do
    extra="--pool 1GiB"
    [ $fam = mixed ] && extra="--size 16..4096 --N 2^18 --pool 1GiB"
    [ $fam = churn ] && extra="--size 256 --N 2^18 --rounds 10 --pool 1GiB"
    [ $fam = oom ] && extra="--size 256 --pool 256MiB --batch 65536"
    [ $fam = fragmentation ] && extra="--size 16 --N 100000 --pool 1GiB"
    # shellcheck disable=SC2086
    gpu_do "$AL" workload --backend gpu --format csv --allocator gallatin --workload $fam \
      --trials 2 $extra >"$OUT/$fam.csv" 2>"$OUT/$fam.err" ||
      echo "$fam FAILED: $(tail -2 "$OUT/$fam.err")"
  done
}

gallatin_claims() {
  # §6.11, Fig. 6c: batches of 100,000 until a null, on a 2 GB pool (the paper: 89.1% at 256 B).
  stamp "claims: utilisation at out of memory, 2 GiB, batches of 100,000"
  local size f=$OUT/claims_utilisation.csv
  for size in 16 64 256 1024 4096; do
    gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator gallatin --workload oom \
      --size $size --pool 2GiB --batch 100000 --trials 1
  done
  # §6.9: the same allocations on a fresh and on a used allocator (the paper: 2 KB, 2.13197 ->
  # 2.15344 ms, under 1%).
  stamp "claims: warm-up, 2^20 x 2 KiB cold and warm"
  f=$OUT/claims_warmup.csv
  : >"$f"
  gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc \
    --N '2^20' --size 2048 --page-bytes 2048 --pool 8GiB --trials 5 --counters off
  gpu_csv "$f" "$AL" workload --backend gpu --format csv --allocator gallatin --workload alloc \
    --N '2^20' --size 2048 --page-bytes 2048 --pool 8GiB --trials 5 --counters off --warm
  # §6.10, Fig. 6a: the address range of a static set of allocations, beside the allocators the
  # paper ranks (the Ouroboros family first, Gallatin third: the registry's ouro-*), the queue and
  # CUDA's malloc.
  stamp "claims: fragmentation rank, 2^20 x 256 B, 8 GiB"
  local ouro
  ouro=$(gpu_allocators | tr , '\n' | { grep -E '^ouro-' || true; } | paste -sd, -)
  gpu_do "$AL" workload --backend gpu --format csv --workload fragmentation --N '2^20' \
    --size 256 --pool 8GiB --trials 1 --allocator "gallatin,$ouro,queue,cudamalloc" \
    >"$OUT/claims_fragmentation.csv"
}
