// Figure 7 of seed 001 (Gelado & Garland §5.3) on the GPU: the rows of
// the ualloc stage of scripts/gpu.sh gelado-garland (`alloclab workload --backend gpu --workload
// alloc`, each thread one malloc of a fixed size, gg-malloc and CUDA's malloc), as the report is
// given them (DIR/ualloc/<gpu>/*.csv, every committed run's fig7*.csv, their names starting with
// the run's date so that a later run's row of a size comes after an earlier one's). Internal to the
// validation module (gelado_malloc_claims.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"

namespace alloclab::validation::gelado_fig7 {

// One size of the figure: the latest verified timed rows (counters off) of gg-malloc and CUDA's
// malloc, and gg-malloc's latest row with counters (0 where absent).
struct Point {
  std::uint64_t size = 0;
  std::uint64_t threads = 0;
  double gg_ms = 0, cuda_ms = 0;         // 0: no timed row
  double failed_fraction = -1;           // gg-malloc's failed / requests; -1: no row
  double sem_spins = 0, lock_spins = 0;  // per request, from the counted row
  double failed_claims = 0;              // failed CAS a request (TBuddy's sizes)
  double grew = 0, chunk_locks = 0;      // growers and chunk-mutex acquisitions a request
  bool counted = false;
  // Atomic RMWs a request (atomics_per_op) of the counted row, for the floor of the speed
  // verdict (validation/speed_floor.hpp); nullopt: no counted row with it.
  std::optional<double> atomics;
  double speed_up() const { return gg_ms > 0 && cuda_ms > 0 ? cuda_ms / gg_ms : 0; }
};
struct Figure {
  std::string device;  // the first device with gg-malloc rows (devices never mix)
  std::map<std::uint64_t, Point> points;  // by size
  std::uint64_t verified_runs = 0;        // gg-malloc's verified rows, every size and file
  bool any_unverified = false;            // a gg-malloc row not verified
  // The rows read are the paper's setting (mode gpu-block-sweep: each time the mean over blocks
  // of 1 .. 1024 threads, `workload --block-sweep`), where any gg-malloc row has it; else the
  // fixed blocks' rows (mode gpu, or none given). The two never mix in one figure.
  bool paper_setting = false;
};
Figure read_figure(const std::vector<Record>& rows);

}  // namespace alloclab::validation::gelado_fig7
