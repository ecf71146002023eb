// Workloads (core/workload.hpp) in the CPU simulator, over the allocators' own allocate/free
// (simulator.hpp: make_allocator, Allocator). Every run is verified, never optionally: each
// result is failed or inside the pool and on a page free at the start, the live objects' byte
// ranges are pairwise disjoint, each object's written pattern (pattern_store.hpp) is intact
// before its free, and once everything is freed the allocator's free count is back to its
// initial value (VerificationError otherwise).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/workload.hpp"
#include "alloclab/core/workload_result.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim {

struct WorkloadOptions {
  Mode mode = Mode::sequential;
  unsigned host_threads = 0;                 // threads mode: workers (0 = all cores)
  std::uint64_t max_probes_per_request = 0;  // 0 = the simulator's default bound
  std::uint32_t queue_capacity = 0;          // Ouroboros: SimOptions::queue_capacity
  bool preboot = false;                      // Gallatin: SimOptions::preboot
  // Repeats of each trial (core/workload_repeats.hpp): the whole run again on a freshly built
  // allocator with the same seed, every repeat verified; times are the medians over the repeats,
  // counts the first repeat's, and in sequential and lockstep mode every repeat must count the
  // same (VerificationError otherwise). At least 1 (InputError on --repeats).
  unsigned repeats = 1;
};

// Throws InputError (naming the parameter) for a workload the allocator cannot serve on the
// simulator, before anything runs.
void check_workload_input(Algorithm algo, const Workload& w, const WorkloadOptions& o);

// Runs trial `trial` (seed trial_seed(w.seed, trial)) of workload w with allocator algo on a
// pool of w.pool_bytes bytes of which w.pages_free_at_start() pages are free at the start,
// o.repeats times (see WorkloadOptions::repeats).
WorkloadRun run_workload(Algorithm algo, const Workload& w, const WorkloadOptions& o,
                         std::uint64_t trial);

// The bytes thread j of every allocate() call of trial `trial` asks for (j below the requests
// per call): thread_request_bytes(w, trial_seed(w.seed, trial), j), the same on every backend.
std::vector<std::uint64_t> call_request_bytes(const Workload& w, std::uint64_t trial);

// A live object as the verifier sees it: bytes [begin, end) of the pool.
struct ByteRange {
  std::uint64_t begin = 0, end = 0;
};
// Every range inside [0, pool_bytes) and non-empty, no two overlapping (sorted by address,
// neighbours compared); throws VerificationError naming the first violation.
void verify_ranges(std::vector<ByteRange> ranges, std::uint64_t pool_bytes);

}  // namespace alloclab::sim
