# shellcheck shell=bash
# The engine's device stages (`scripts/gpu.sh engine STAGE [OUT]`; docs/gpu-device.md): the GPU
# tests of gpu/ and compute-sanitizer on the engine's allocators, gpu_bench, the standard sweep of
# the validation report, the workload families, RW-BM's bit choices, the page-size study and the
# MPI sweep. Sourced by scripts/gpu.sh after scripts/gpu-setup.sh (OUT, BUILD, AL and the gpu_*
# functions are set). Results: OUT (commit them under reports/data/<gpu>/, metadata.json beside).
# shellcheck disable=SC2034 # GPU_DEFAULT_STAGE and GPU_ALLOCATORS: read by scripts/gpu.sh
GPU_DEFAULT_STAGE=tests

# The engine's allocators: the registry's GPU allocators of pages that no study's stages cover
# (each study's GPU_ALLOCATORS, an extended regular expression over names) - paper 000's and the
# queue today; a new allocator of the engine joins them (and its sanitizer runs) by itself.
# Options filter further (alloclab list: --requests pages, --bit-choice rotated).
engine_allocators() {
  local claimed of_pages
  claimed=$(sed -n "s/^GPU_ALLOCATORS='\([^']*\)'.*/\1/p" studies/*/gpu-stages.sh | paste -sd'|' -)
  of_pages=$(gpu_query list --backend gpu --requests one_page,pages --names)
  gpu_query list --backend gpu --names "$@" | { grep -Fxf <(echo "$of_pages") || true; } |
    { grep -Ev -- "${claimed:-^$}" || true; } | paste -sd, -
}
# CUDA's device malloc (the registry's allocator of bytes): the vendor baseline.
vendor_allocators() { gpu_allocators --requests bytes; }

stage_tests() { # every GPU test (ctest -L gpu), compute-sanitizer on the engine's allocators
  gpu_prepare alloclab gpu_tests
  engine_tests
}

engine_tests() {
  gpu_ctest "$OUT/ctest.txt" all || fail "GPU tests (see $OUT/ctest.txt)"
  local ours pages random rotated vendor
  ours=$(engine_allocators)
  pages=$(engine_allocators --requests pages)
  random=$(engine_allocators --bit-choice random)
  rotated=$(engine_allocators --bit-choice rotated)
  vendor=$(vendor_allocators)
  echo "sanitized: $ours (pages: $pages; bit choices: $random, rotated: $rotated);" \
    "memcheck: $vendor"
  gpu_sanitize_begin "$OUT/sanitizer.txt"
  # memcheck and racecheck on the engine's allocators; CUDA's own allocator under memcheck only,
  # since racecheck would examine the vendor's heap code, not ours.
  local mr="memcheck racecheck"
  gpu_sanitize "$mr" "$AL" measure --allocator "$ours" --N 1000 --free 0.1 --T 1e5 --repeats 1 \
    --warmup 0 --format csv
  gpu_sanitize "$mr" "$AL" measure --allocator "$pages" --pages 3 --N 300 --free 0.5 --T 1e5 \
    --repeats 1 --warmup 0 --per-thread 2 --format csv
  gpu_sanitize "$mr" "$AL" measure --allocator "$random" --bit-choice random,rotated --N 1000 \
    --free 0.5 --T 1e4 --repeats 1 --warmup 0 --format csv
  gpu_sanitize memcheck "$AL" measure --allocator "$vendor" --N 1000 --A 10 --T 10 --repeats 1 \
    --warmup 0 --format csv
  # The workload driver's launches (active masks, per-thread pages, frees of a subset, the
  # verification kernels) on small pools; the rotated bit order and repeats on the same pools.
  gpu_sanitize "$mr" "$AL" workload --backend gpu --allocator "$ours" --workload churn --N 1000 \
    --size 256 --pool 512KiB --rounds 2 --free-fraction 0.3 --format csv
  gpu_sanitize "$mr" "$AL" workload --backend gpu --allocator "$pages" --workload mixed --N 1000 \
    --size 256..2048 --warp-uniform --pool 2MiB --format csv
  gpu_sanitize "$mr" "$AL" workload --backend gpu --allocator "$ours" --workload oom --size 256 \
    --pool 256KiB --batch 300 --max-steps 512 --format csv
  gpu_sanitize "$mr" "$AL" workload --backend gpu --allocator "$rotated" --bit-choice rotated \
    --workload churn --N 1000 --size 256 --pool 512KiB --rounds 2 --repeats 2 --format csv
  # The device-side heap (PageHeap over every page allocator, divergent callers) as its tests run
  # it; synccheck for the warp-collective allocators' ballots and shuffles over coalesced groups.
  gpu_sanitize "memcheck racecheck synccheck" "$BUILD/gpu/gpu_tests" "[page_heap]"
  gpu_sanitize memcheck "$AL" workload --backend gpu --allocator "$vendor" --workload churn \
    --N 1000 --size 256 --pool 64MiB --rounds 2 --format csv
  gpu_sanitize_end || fail "compute-sanitizer found errors (see $OUT/sanitizer.txt)"
}

stage_bench() { # gpu_bench's quick set into bench.json (the slow allocators: gpu_bench --full)
  gpu_prepare alloclab gpu_bench
  engine_bench
}

engine_bench() {
  stamp "bench"
  gpu_do "$BUILD/gpu/gpu_bench" --json "$OUT/bench.json" --repeats 50
}

stage_smoke() { # tests, gpu_bench, a small measure table of the engine's allocators and CUDA's
  gpu_prepare alloclab gpu_tests gpu_bench
  engine_tests
  engine_bench
  # Not `all`: gg-tbuddy's tree cannot hold T = 2^25 pages (an input error), and the studies'
  # allocators have stages of their own.
  gpu_do "$AL" measure --allocator "$(engine_allocators),$(vendor_allocators)" --N 1024,65536 \
    --free 0.5,0.005 --T '2^25' --format table
}

stage_full() { # tests, gpu_bench, the sweep of every GPU allocator (w = 32, 2 trials), its report
  gpu_prepare alloclab gpu_tests gpu_bench
  engine_tests
  engine_bench
  stamp "sweep"
  # Every GPU allocator over the standard grid's N, A/T and T (N <= A for the pools of pages), one
  # word width, 2 trials of 5 timed repeats: a first look at a new device (the standard stage is
  # the report's run). CUDA's device malloc has no steps to count: kernel time and failures only;
  # the sweep sizes its heap once, for the largest N.
  gpu_do "$AL" sweep --allocator all --backend gpu --grid standard --w 32 --trials 2 --repeats 5 \
    --seed 1 --out "$OUT/sweep"
  # Model curves over the measured points (no device needed for them), figures and tables; the
  # plots need gnuplot, which a bare device machine may lack: then the report is made elsewhere.
  if command -v gnuplot >/dev/null; then
    gpu_do "$AL" report "$OUT/sweep"
  else
    echo "gpu.sh: no gnuplot here: make the report elsewhere with alloclab report $OUT/sweep"
  fi
}

stage_standard() { # the validation report's standard grid into OUT/standard (20 trials, w 32, 64)
  gpu_prepare alloclab
  stamp "standard sweep"
  # The engine's one-page allocators (paper 000's and the queue: the committed rows of
  # reports/standard; rwmalloc's are reports/rwmalloc-gpu) over `--grid standard` (T = 10^6 and
  # 2^25, the paper's five free fractions, N from 1024 up to what the pool allows, N <= A; w = 32
  # and 64), GPU backend only. Model and simulation are added on any machine: scripts/main-job.sh
  # takes these rows with `alloclab sweep --gpu-from reports/standard`.
  gpu_do "$AL" sweep --allocator "$(engine_allocators --requests one_page)" --backend gpu \
    --grid standard --trials 20 --repeats 3 --seed 1 --out "$OUT/standard"
}

stage_workloads() { # tests, then every workload family for the engine's allocators and CUDA's
  gpu_prepare alloclab gpu_tests
  engine_tests
  engine_workloads "$OUT/workloads"
}

# The GPU workload results committed under reports/data/<gpu>/workloads/ (docs/workloads.md): every
# workload family for the engine's allocators and CUDA's malloc, including the reference workload
# of reports/peers/ (2^20 threads x {16, 256, 4096} B on an 8 GiB pool, block 256), so that they
# are compared with Ouroboros, Gallatin and CUDA malloc on the same terms. One CSV per family;
# each invocation is its own process (CUDA's malloc heap is sized once per process, for that
# invocation's largest pool).
engine_workloads() {
  local dir=$1 ours pages one_page rotated vendor size
  mkdir -p "$dir"
  ours=$(engine_allocators)
  pages=$(engine_allocators --requests pages)
  one_page=$(engine_allocators --requests one_page)
  rotated=$(engine_allocators --bit-choice rotated)
  vendor=$(vendor_allocators)
  local w=(workload --backend gpu --format csv)
  # The reference workload: the page allocators with pages of the object's size (T = 8 GiB /
  # size), those of n pages also with 256 B pages for 4096 B objects (runs of 16 pages); times
  # without counters (as the peers'), 5 trials. CUDA malloc at 2^20 x 4096 B: the peers' run
  # timed out after 80 s.
  stamp "workloads: reference: alloc, 2^20 threads, 16/256/4096 B, 8 GiB"
  for size in 16 256 4096; do
    gpu_csv "$dir/alloc.csv" "$AL" "${w[@]}" --allocator "$ours" --workload alloc --N '2^20' \
      --size $size --page-bytes $size --pool 8GiB --trials 5 --counters off
  done
  gpu_csv "$dir/alloc.csv" "$AL" "${w[@]}" --allocator "$pages" --workload alloc --N '2^20' \
    --size 4096 --page-bytes 256 --pool 8GiB --trials 5 --counters off
  # The rotated bit order (registry option, not the papers' rule) on the same workload: what
  # spreading the threads of a word over its bits buys at 4096 B pages.
  engine_rotated_rows "$dir/alloc.csv" "$rotated"
  gpu_csv "$dir/alloc.csv" "$AL" "${w[@]}" --allocator "$vendor" --workload alloc --N '2^20' \
    --size 16,256 --pool 8GiB --trials 2
  stamp "workloads: scaling: alloc over N = 2^0 .. 2^20, 256 B, counters on"
  gpu_csv "$dir/scaling.csv" "$AL" "${w[@]}" --allocator "$ours" --workload scaling --size 256 \
    --pool 8GiB --trials 3
  gpu_csv "$dir/scaling.csv" "$AL" "${w[@]}" --allocator "$vendor" --workload scaling \
    --N '1..262144*4' --size 256 --pool 8GiB --trials 2
  stamp "workloads: mixed: 16..4096 B, warp-uniform and divergent"
  gpu_csv "$dir/mixed.csv" "$AL" "${w[@]}" --allocator "$one_page" --workload mixed --N '2^20' \
    --size 16..4096 --page-bytes 4096 --pool 8GiB --trials 3
  gpu_csv "$dir/mixed.csv" "$AL" "${w[@]}" --allocator "$pages,$vendor" --workload mixed \
    --N '2^20' --size 16..4096 --warp-uniform --pool 8GiB --trials 3
  gpu_csv "$dir/mixed.csv" "$AL" "${w[@]}" --allocator "$vendor" --workload mixed --N '2^18' \
    --size 16..4096 --pool 8GiB --trials 2
  stamp "workloads: churn: 2^20 objects of 256 B on 512 MiB, 10 rounds of 50%"
  gpu_csv "$dir/churn.csv" "$AL" "${w[@]}" --allocator "$ours" --workload churn --N '2^20' \
    --size 256 --pool 512MiB --rounds 10 --free-fraction 0.5 --trials 3
  gpu_csv "$dir/churn.csv" "$AL" "${w[@]}" --allocator "$vendor" --workload churn --N '2^16' \
    --size 256 --pool 512MiB --rounds 10 --free-fraction 0.5 --trials 2
  stamp "workloads: oom: 256 B objects on 64 MiB in batches of 2^14"
  gpu_csv "$dir/oom.csv" "$AL" "${w[@]}" --allocator "$ours,$vendor" --workload oom --size 256 \
    --pool 64MiB --batch 16384 --max-steps 4096 --trials 3
  stamp "workloads: fragmentation: 2^20 objects, 256 B, 8 GiB"
  gpu_csv "$dir/fragmentation.csv" "$AL" "${w[@]}" --allocator "$ours,$vendor" \
    --workload fragmentation --N '2^20' --size 256 --pool 8GiB --trials 2
}

# The reference workload's rows with the rotated bit order (2^20 threads x {16, 256, 4096} B,
# 8 GiB, 5 trials, counters off) of ALLOCATORS, appended to FILE.
engine_rotated_rows() {
  local file=$1 allocators=$2 size
  for size in 16 256 4096; do
    gpu_csv "$file" "$AL" workload --backend gpu --format csv --allocator "$allocators" \
      --bit-choice rotated --workload alloc --N '2^20' --size $size --page-bytes $size \
      --pool 8GiB --trials 5 --counters off
  done
}

stage_rotated() { # every GPU test, then the reference workload's rows with the rotated bit order
  gpu_prepare alloclab gpu_tests
  gpu_ctest "$OUT/ctest.txt" all || fail "GPU tests (see $OUT/ctest.txt)"
  # The rotated rows of reports/data/nvidia-h200/workloads/alloc.csv (about a minute with the
  # build); the workloads stage has the same rows.
  engine_rotated_rows "$OUT/alloc_rotated.csv" "$(engine_allocators --bit-choice rotated)"
  gpu_dry || cut -d, -f1,6,7,15- "$OUT/alloc_rotated.csv" | cut -c1-150
}

stage_bit_choice() { # RW-BM's bit choices (lowest, random, rotated) at high N/T, 20 trials, report
  gpu_prepare alloclab
  # Collisions, steps and kernel time with the lowest free bit (the paper's), a random free bit
  # and a lane-rotated one, where many threads read the same word at once; lowest repeats the
  # standard grid's RW-BM points so that all three come from one run. About a minute of GPU time
  # on an H200. Then commit OUT as reports/bit-choice/ (scripts/main-job.sh adds its GPU rows to
  # the report), or read its report.html's section "Collisions".
  # shellcheck disable=SC2054 # commas inside arguments
  local c=(sweep --allocator rwbm --backend gpu --bit-choice lowest,random,rotated --w 32,64
    --trials 20 --repeats 3 --seed 1 --out "$OUT")
  # T = 10^6: N/T up to 0.26 at half free (N <= A); at 1% free N/A is high but N/T small.
  gpu_do "$AL" "${c[@]}" --N '1024..262144*2' --free 0.5,0.1,0.01 --T 1e6
  # T = 2^25: N up to 2^20 (N/T = 1/32), the standard grid's largest GPU points.
  gpu_do "$AL" "${c[@]}" --N '65536..1048576*2' --free 0.5,0.1 --T '2^25'
  # The model needs no device: the report computes it for every point that has measurements.
  gpu_do "$AL" report "$OUT"
  echo "gpu.sh: wrote $OUT/sweep.csv and $OUT/report.html (section 'Collisions')"
}

stage_page_size() { # why the bitmap allocators lose speed at 16 B and 4096 B pages (study.json)
  # A fresh pool, 2^20 threads, T = 2^21..2^31 pages: the atomic floor, RW-BM, CoRW and RW,
  # RW-BM's bit choices, fewer threads on 4096 B pages, and the bench's candidate kernels
  # (gpu/bench/page_size_study.cpp says what and why). About 2 minutes of device time from a bare
  # machine (the build is most of it). study.json (alloclab-page-size-study/1, every point,
  # rewritten after each, so a study cut short keeps what it measured), study.txt (a line per
  # point); sanitizer.txt only when the study failed (memcheck of a small run, to say where).
  # Then commit OUT under reports/data/<device>/ and fit:
  #   alloclab fit-time reports/standard --study DIR/study.json --bitmap-features --out DIR
  # REPEATS (default 25) and STUDY_TIMEOUT_S (default 150) override the repeats and time limit.
  gpu_prepare gpu_page_size_study
  local study=$BUILD/gpu/gpu_page_size_study rc=0
  stamp "study"
  if gpu_dry; then
    gpu_do timeout "${STUDY_TIMEOUT_S:-150}" "$study" --json "$OUT/study.json" \
      --repeats "${REPEATS:-25}"
    return 0
  fi
  timeout "${STUDY_TIMEOUT_S:-150}" "$study" --json "$OUT/study.json" --repeats "${REPEATS:-25}" \
    2>&1 | tee "$OUT/study.txt" || rc=$?
  [ "$rc" -eq 0 ] && return 0
  # 3: a point failed verification (its row says which); 1: a CUDA error; 124: the time limit.
  if [ "$rc" -eq 1 ] || [ "$rc" -eq 3 ]; then
    # shellcheck disable=SC2034 # gpu_sanitize reads it
    local SANITIZE_TIMEOUT=90
    gpu_sanitize_begin "$OUT/sanitizer.txt"
    gpu_sanitize memcheck "$study" --log2-N 12 --log2-T 14 --main-log2-T 14 \
      --contention-log2-T 14 --contention-log2-N 10 --repeats 1 --warmup 0
    gpu_sanitize_end || true
  fi
  fail "study (exit $rc; the points measured are in $OUT/study.json)"
}

stage_mpi_sweep() { # alloclab sweep over the GPUs of one machine through MPI (2+ GPUs), times.json
  # 1. the GPU grid below in one process on one GPU (CUDA_VISIBLE_DEVICES=0), wall time;
  # 2. the same grid by `mpirun -n G` (G = the GPUs nvidia-smi lists), one GPU a rank, wall time;
  #    its rows must be the one-GPU run's pairs exactly (timings differ: another run);
  # 3. a mixed sweep, model + sim + gpu over G + 2 ranks: the two ranks beside the GPUs take model
  #    and simulator points only; every pair's rows present once;
  # 4. the simulator sweep below by 1, 2, 4, ... ranks up to the cores (--threads 1 a rank):
  #    pairs per second against ranks.
  # Each run's sweep.csv and sweep.json (ranks, hosts, each rank's GPU) land in OUT/mpi-sweep.tgz;
  # times.json holds the wall times. The allocators are fixed (paper 000's), as the grids' sizes
  # are: the times are compared between runs. Open MPI travels in .devdeps (device-deps.sh).
  stamp configure
  gpu_configure
  gpu_dry || grep -q "alloclab: MPI found" "$OUT/build.txt" ||
    fail "CMake found no MPI (see build.txt)"
  stamp build
  gpu_build alloclab
  gpu_metadata "$OUT/metadata.json" "$AL"
  gpu_dry || nvidia-smi -L | tee "$OUT/gpus.txt"
  local G W=/tmp/mpi-sweep k t cores
  G=$(gpu_count)
  [ "$G" -ge 2 ] || fail "this machine has $G GPU; the MPI sweep needs two or more"
  rm -rf $W && mkdir -p $W
  # Shared memory between the ranks of one host; no ptrace-based single copy in a container.
  # shellcheck disable=SC2054 # commas inside arguments
  local mpirun=("$MPIEXEC" --oversubscribe --mca pml ob1 --mca btl self,vader
    --mca btl_vader_single_copy_mechanism none)
  # shellcheck disable=SC2054 # commas inside arguments
  local grid=(--allocator queue,rw,rwbm,corw --backend gpu --w 32 --N '1024..1048576*2'
    --free 0.5,0.1,0.01,0.007,0.005 --T 1e6 --trials 20 --repeats 3 --seed 1)
  # shellcheck disable=SC2054 # commas inside arguments
  local sim=(--allocator rw,rwbm,corw,queue --backend sim --N '64..16384*2' --free 0.5,0.1,0.01
    --T 1e5,1e6 --trials 20 --threads 1 --seed 3)
  secs() { echo $(($(date +%s%N) / 1000000)); }
  keys() { cut -d, -f1-11 "$1" | sort; }
  declare -A T
  stamp "one GPU, one process"
  t=$(secs)
  CUDA_VISIBLE_DEVICES=0 gpu_do "$AL" sweep "${grid[@]}" --out $W/one-gpu 2>$W/one-gpu.err
  T[one_gpu_ms]=$(($(secs) - t))
  stamp "$G GPUs, mpirun -n $G"
  t=$(secs)
  gpu_do "${mpirun[@]}" -n "$G" "$AL" sweep "${grid[@]}" --out $W/gpus 2>$W/gpus.err
  T[gpus_ms]=$(($(secs) - t))
  if ! gpu_dry; then
    cmp -s <(keys $W/one-gpu/sweep.csv) <(keys $W/gpus/sweep.csv) ||
      fail "the $G-GPU sweep's (pair, metric) keys differ from the one-GPU sweep's"
    grep -o '"gpu_of_rank": \[[^]]*\]' $W/gpus/sweep.json ||
      python3 -c "import json;print(json.load(open('$W/gpus/sweep.json'))['mpi']['gpu_of_rank'])"
    cut -d, -f16 $W/gpus/sweep.csv | sort | uniq -c
  fi
  stamp "mixed: model + sim + gpu over $((G + 2)) ranks"
  t=$(secs)
  gpu_do "${mpirun[@]}" -n $((G + 2)) "$AL" sweep --allocator rw,rwbm --backend model,sim,gpu \
    --N '1024..65536*4' --free 0.5,0.1 --T 1e6 --trials 5 --threads 4 --seed 2 --out $W/mixed \
    2>$W/mixed.err
  T[mixed_ms]=$(($(secs) - t))
  if ! gpu_dry; then
    python3 -c "import json;print(json.load(open('$W/mixed/sweep.json'))['mpi'])"
    cut -d, -f2,16 $W/mixed/sweep.csv | sort | uniq -c
  fi
  stamp "simulator sweep: ranks against pairs per second"
  cores=$(nproc)
  for k in 1 2 4 8 16 32 64; do
    [ "$k" -le "$cores" ] || break
    t=$(secs)
    if [ "$k" = 1 ]; then
      gpu_do "$AL" sweep "${sim[@]}" --out $W/sim-1 2>/dev/null >$W/sim-1.out
    else
      gpu_do "${mpirun[@]}" -n "$k" "$AL" sweep "${sim[@]}" --out $W/sim-$k 2>/dev/null \
        >$W/sim-$k.out
    fi
    T[sim_${k}_ranks_ms]=$(($(secs) - t))
    gpu_dry && continue
    cmp -s <(sort $W/sim-1/sweep.csv) <(sort $W/sim-$k/sweep.csv) ||
      fail "the simulator sweep over $k ranks wrote other rows than one process"
    echo "sim $k ranks: ${T[sim_${k}_ranks_ms]} ms, $(head -1 $W/sim-$k.out)"
  done
  gpu_dry && return 0
  {
    echo "{"
    echo "  \"gpus\": $G, \"cores\": $cores,"
    for k in "${!T[@]}"; do echo "  \"$k\": ${T[$k]},"; done
    echo "  \"pairs_sim_sweep\": $(tail -n +2 $W/sim-1/sweep.csv | cut -d, -f1-10 | sort -u |
      wc -l)"
    echo "}"
  } >"$OUT/times.json"
  cat "$OUT/times.json"
  tar -C /tmp -czf "$OUT/mpi-sweep.tgz" mpi-sweep
}

stage_litmus() { # memory-order litmus tests (gpu_litmus: forbidden outcomes, JSON), < 4 minutes
  gpu_prepare gpu_litmus
  stamp "litmus"
  # docs/memory-order.md: each publish/consume point driven through the allocator's own code on
  # every SM, with stress blocks; 0 forbidden outcomes expected (exit 1 otherwise). The bound
  # (LITMUS_ROUNDS per worker, 2 worker blocks and 1 stress block of 256 threads per SM) is
  # sized to end well within 4 minutes on an H200; the timeout stops it there regardless.
  local rc=0
  gpu_do timeout 230 "$BUILD/gpu/gpu_litmus" --rounds "${LITMUS_ROUNDS:-400}" \
    >"$OUT/litmus.json" || rc=$?
  gpu_dry || cat "$OUT/litmus.json"
  [ "$rc" -eq 0 ] || fail "gpu_litmus exit $rc (1: a forbidden outcome; 124: the timeout)"
}

stage_reference() { # the reference workload (2^20 x 16/256/4096 B) for the memory-order families
  gpu_prepare alloclab
  stamp "reference workload"
  # As scripts/gpu-plugins.sh's `reference` stage, for the allocators whose atomics and fences the
  # memory-order discipline changed (docs/memory-order.md), to compare with the same loop at the
  # commit before it (no allocator slower by more than 5%). Each allocator's three sizes within REF_TIMEOUT seconds (16 x 18 s < 5 minutes);
  # one that runs out is listed in failures.txt and the stage goes on.
  local algo size rc
  : >"$OUT/failures.txt"
  for algo in queue rw rwbm corw rwmalloc bitmap-alloc dynasoar dynasoar-nocoal dynasoar-norot \
    gallatin ouro-p-s ouro-c-s ouro-p-va ouro-p-vl ouro-c-va ouro-c-vl; do
    rc=0
    gpu_do timeout "${REF_TIMEOUT:-18}" bash -c '
      for size in 16 256 4096; do
        "$0" workload --backend gpu --watchdog 10 --out "$1" --allocator "$2" --workload alloc \
          --N "2^20" --size $size --page-bytes $size --pool 8GiB --trials 3 --counters off || exit
      done' "$AL" "$OUT/reference" "$algo" || rc=$?
    [ "$rc" -eq 0 ] || echo "exit $rc: $algo" | tee -a "$OUT/failures.txt"
  done
  stamp "done ($(wc -l <"$OUT/failures.txt") allocators failed or timed out)"
}
