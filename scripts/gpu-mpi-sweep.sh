#!/usr/bin/env bash
# `alloclab sweep` over the GPUs of one machine through MPI (issue 18), on a device machine of
# two or more GPUs, from the repository root (Open MPI travels in .devdeps: device-deps.sh):
#   1. the GPU grid below in one process on one GPU (CUDA_VISIBLE_DEVICES=0), wall time;
#   2. the same grid by `mpirun -n G` (G = the GPUs nvidia-smi lists), one GPU a rank, wall time;
#      its rows must be the one-GPU run's pairs exactly (timings differ: another run);
#   3. a mixed sweep, model + sim + gpu over G + 2 ranks: the two ranks beside the GPUs take model
#      and simulator points only; every pair's rows present once;
#   4. the simulator sweep below by 1, 2, 4, ... ranks up to the cores (--threads 1 a rank):
#      pairs per second against ranks.
# Each run's sweep.csv and sweep.json (ranks, hosts, each rank's GPU) land in OUT/mpi-sweep.tgz;
# times.json holds the wall times. Usage: scripts/gpu-mpi-sweep.sh OUT_DIR
set -euo pipefail
OUT=$1
. scripts/gpu-setup.sh
gpu_log_start mpi-sweep
stamp configure
gpu_configure
grep -q "alloclab: MPI found" "$OUT/build.txt" || fail "CMake found no MPI (see build.txt)"
stamp build
gpu_build alloclab
AL=$BUILD/cli/alloclab
gpu_metadata "$OUT/metadata.json" "$AL"
nvidia-smi -L | tee "$OUT/gpus.txt"
G=$(nvidia-smi -L | grep -c '^GPU ')
[ "$G" -ge 2 ] || fail "this machine has $G GPU; the MPI sweep needs two or more"
W=/tmp/mpi-sweep
rm -rf $W && mkdir -p $W
# Shared memory between the ranks of one host; no ptrace-based single copy in a container.
MPIRUN=("$MPIEXEC" --oversubscribe --mca pml ob1 --mca btl self,vader
  --mca btl_vader_single_copy_mechanism none)
GRID=(--allocator queue,rw,rwbm,corw --backend gpu --w 32 --N '1024..1048576*2'
  --free 0.5,0.1,0.01,0.007,0.005 --T 1e6 --trials 20 --repeats 3 --seed 1)
secs() { echo $(($(date +%s%N) / 1000000)); }
declare -A T
stamp "one GPU, one process"
t=$(secs)
CUDA_VISIBLE_DEVICES=0 "$AL" sweep "${GRID[@]}" --out $W/one-gpu 2>$W/one-gpu.err
T[one_gpu_ms]=$(($(secs) - t))
stamp "$G GPUs, mpirun -n $G"
t=$(secs)
"${MPIRUN[@]}" -n "$G" "$AL" sweep "${GRID[@]}" --out $W/gpus 2>$W/gpus.err
T[gpus_ms]=$(($(secs) - t))
keys() { cut -d, -f1-11 "$1" | sort; }
cmp -s <(keys $W/one-gpu/sweep.csv) <(keys $W/gpus/sweep.csv) ||
  fail "the $G-GPU sweep's (pair, metric) keys differ from the one-GPU sweep's"
grep -o '"gpu_of_rank": \[[^]]*\]' $W/gpus/sweep.json || python3 -c "import json;print(json.load(open('$W/gpus/sweep.json'))['mpi']['gpu_of_rank'])"
cut -d, -f16 $W/gpus/sweep.csv | sort | uniq -c
stamp "mixed: model + sim + gpu over $((G + 2)) ranks"
t=$(secs)
"${MPIRUN[@]}" -n $((G + 2)) "$AL" sweep --allocator rw,rwbm --backend model,sim,gpu \
  --N '1024..65536*4' --free 0.5,0.1 --T 1e6 --trials 5 --threads 4 --seed 2 --out $W/mixed \
  2>$W/mixed.err
T[mixed_ms]=$(($(secs) - t))
python3 -c "import json;print(json.load(open('$W/mixed/sweep.json'))['mpi'])"
cut -d, -f2,16 $W/mixed/sweep.csv | sort | uniq -c
stamp "simulator sweep: ranks against pairs per second"
SIM=(--allocator rw,rwbm,corw,queue --backend sim --N '64..16384*2' --free 0.5,0.1,0.01 --T 1e5,1e6
  --trials 20 --threads 1 --seed 3)
cores=$(nproc)
for k in 1 2 4 8 16 32 64; do
  [ "$k" -le "$cores" ] || break
  t=$(secs)
  if [ "$k" = 1 ]; then
    "$AL" sweep "${SIM[@]}" --out $W/sim-1 2>/dev/null >$W/sim-1.out
  else
    "${MPIRUN[@]}" -n "$k" "$AL" sweep "${SIM[@]}" --out $W/sim-$k 2>/dev/null >$W/sim-$k.out
  fi
  T[sim_${k}_ranks_ms]=$(($(secs) - t))
  cmp -s <(sort $W/sim-1/sweep.csv) <(sort $W/sim-$k/sweep.csv) ||
    fail "the simulator sweep over $k ranks wrote other rows than one process"
  echo "sim $k ranks: ${T[sim_${k}_ranks_ms]} ms, $(head -1 $W/sim-$k.out)"
done
{
  echo "{"
  echo "  \"gpus\": $G, \"cores\": $cores,"
  for k in "${!T[@]}"; do echo "  \"$k\": ${T[$k]},"; done
  echo "  \"pairs_sim_sweep\": $(tail -n +2 $W/sim-1/sweep.csv | cut -d, -f1-10 | sort -u | wc -l)"
  echo "}"
} >"$OUT/times.json"
cat "$OUT/times.json"
tar -C /tmp -czf "$OUT/mpi-sweep.tgz" mpi-sweep
stamp done
