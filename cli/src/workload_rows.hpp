// The rows of `alloclab workload`: a point's trials reduced to one summary, and the record
// (docs/workloads.md lists the keys) that the table, CSV, JSON and `--out DIR` print.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/result.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/core/workload_result.hpp"

namespace alloclab::cli {

// Where rows come from: the backend's name (sim, gpu) and its mode (sequential, ..., gpu).
struct RowSource {
  std::string name, mode;
};

// Per-trial results of one measurement point, reduced over trials.
struct PointSummary {
  std::uint64_t round = 0, trials = 0;
  double requests = 0, allocs = 0, failed = 0, freed = 0, live_bytes = 0;
  double init_s = 0, alloc_s = 0, free_s = 0;
  double steps_mean = 0, steps_p99 = 0, steps_max = 0;
  double atomics = 0, failed_claims = 0, retries = 0, free_atomics = 0;
  bool has_atomic_counts = true, has_claim_counts = true, has_steps = true;
  std::optional<double> address_range = 0, count_at_failure = 0, batches_at_failure = 0;
  std::vector<std::pair<std::string, double>> op_counts;  // WorkloadPoint::op_counts, summed
  bool has_op_counts = true;                              // every trial had them
  // A typed heap's blocks (WorkloadPoint::typed_blocks) and live objects, summed over trials.
  bool has_typed_blocks = true;
  double heap_blocks = 0, blocks_in_use = 0, blocks_min = 0, slot_fragmentation = 0;
  double live_objects = 0;
  // The GPU's kernels' registers per thread (WorkloadRun::alloc_registers, free_registers), the
  // same in every trial.
  std::optional<unsigned> alloc_registers, free_registers;
  void add(const WorkloadPoint& p);
};

// Which measurement a row is (workload_output_dir.hpp's coordinate keys, in this order).
Record coordinate_record(Algorithm algo, const Workload& w, const RowSource& backend,
                         std::uint64_t trials, unsigned repeats);

// One row: the point's summary over its trials; `bound` the simulator's step bound.
Record point_record(Algorithm algo, const Workload& w, const RowSource& backend, unsigned repeats,
                    const PointSummary& s, std::uint64_t bound, const std::string& device,
                    const std::vector<std::string>& run_notes);

// The row of a point whose run hung (gpu::KernelHung: a kernel ran past the watchdog): the
// columns of point_record's rows for that point, so that it appends to the same file, with every
// quantity null, verified false and hung true; `what` (the exception's message) in its notes.
Record hung_record(Algorithm algo, const Workload& w, const RowSource& backend,
                   std::uint64_t trials, unsigned repeats, const std::string& device,
                   const std::string& what);

}  // namespace alloclab::cli
