// `alloclab workload --types 60,64` in the simulator: the workload families over the typed heap
// (typed_heap.hpp) through the driver shared with the GPU (core/dynasoar/typed_workload.hpp).
// Allocators: those with a TypedHeapTable entry. Every batch is verified by the typed heap's own
// checks and the driver's (VerificationError).
#pragma once

#include <cstdint>

#include "alloclab/core/workload.hpp"
#include "alloclab/core/workload_result.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim {

struct TypedWorkloadOptions {
  Mode mode = Mode::sequential;  // sequential, lockstep or threads (the typed heap's modes)
  unsigned host_threads = 0;     // threads mode: host threads (0: all cores)
  unsigned retries = 5;          // r: active lookups before the slow path (the paper's 5)
  unsigned repeats = 1;          // as WorkloadOptions::repeats (counts must agree)
};

// InputError naming the parameter, before anything runs: an allocator without a typed heap
// (--allocator), a mode the typed heap has not (--mode), and check_typed_workload's.
void check_typed_workload_input(Algorithm algo, const Workload& w, const TypedWorkloadOptions& o);

// Trial `trial` (seed trial_seed(w.seed, trial)) of typed workload w, o.repeats times.
WorkloadRun run_typed_workload(Algorithm algo, const Workload& w, const TypedWorkloadOptions& o,
                               std::uint64_t trial);

}  // namespace alloclab::sim
