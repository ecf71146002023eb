#!/usr/bin/env bash
# The simulator's side of two of Gallatin's claims (issue 14; seed 003 §6.10-6.11) that are too
# long for the report's run: the CPU simulator with the block buffers pre-booted as the paper's
# init and the GPU backend do (`--preboot`, 132 SMs' slots), sequential, on the GPU rows' pools.
#   utilisation at out of memory: 2 GiB, batches of 100,000 until a request fails, 64 B .. 4 KiB
#   (64 B is 2^25 requests, about 2 minutes on a loaded core; 16 B, 2^27 requests, needs more
#   than the 23 GB of memory of the machine this was written on: the simulator keeps every
#   allocation for its checks);
#   the address range of 2^20 x 256 B on 8 GiB (the fragmentation rank's row).
# The simulator is deterministic: the same commit gives the same rows on any machine. Writes
# OUT/sim_claims_utilisation.csv, OUT/sim_claims_fragmentation.csv and OUT/metadata.json; the
# report reads the newest committed run, reports/data/cpu-simulator/gallatin-claims-*/
# (scripts/main-job.sh copies it to DIR/gallatin/cpu-simulator/).
# Usage: scripts/sim-gallatin-claims.sh OUT_DIR [BUILD_DIR]   (default build)
set -euo pipefail
OUT=$1
AL=${2:-build}/cli/alloclab
[ -x "$AL" ] || {
  echo "sim-gallatin-claims: no $AL (build first)" >&2
  exit 2
}
mkdir -p "$OUT"
f=$OUT/sim_claims_utilisation.csv
: >"$f"
for size in 4096 1024 256 64; do
  echo "sim-gallatin-claims: utilisation at $size B, 2 GiB ($(date -u +%T))" >&2
  if [ -s "$f" ]; then h="tail -n +2"; else h=cat; fi
  "$AL" workload --backend sim --mode sequential --preboot --format csv --allocator gallatin \
    --workload oom --size $size --pool 2GiB --batch 100000 | $h >>"$f"
done
echo "sim-gallatin-claims: fragmentation, 2^20 x 256 B, 8 GiB ($(date -u +%T))" >&2
"$AL" workload --backend sim --mode sequential --preboot --format csv --allocator gallatin \
  --workload fragmentation --N '2^20' --size 256 --pool 8GiB >"$OUT/sim_claims_fragmentation.csv"
# Where and when (scripts/main-job.sh takes the newest run by date_utc).
cat >"$OUT/metadata.json" <<META
{
 "machine": "cpu simulator ($(nproc) cores, $(uname -m))",
 "date_utc": "$(date -u +%FT%TZ)",
 "commit": "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)",
 "command": "scripts/sim-gallatin-claims.sh"
}
META
echo "sim-gallatin-claims: done ($(date -u +%T))" >&2
