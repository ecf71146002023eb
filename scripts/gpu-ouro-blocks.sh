#!/usr/bin/env bash
# Block-size sensitivity of ouro-p-s warm (2^20 x 256 B, 8 GiB): scripts/gpu-ouro-blocks.sh OUT
set -e
OUT=$1
. scripts/gpu-setup.sh
gpu_log_start exp
gpu_configure
gpu_build alloclab
AL=$BUILD/cli/alloclab
for b in 128 256 512 1024; do
  "$AL" workload --backend gpu --format csv --allocator ouro-p-s --workload alloc --N '2^20' --size 256 --pool 8GiB --trials 5 --counters off --warm --block $b | tail -n +2 | cut -d, -f1,3,5,6,11,17,18
done
