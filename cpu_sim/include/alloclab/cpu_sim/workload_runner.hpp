// Workloads (core/workload.hpp) in the CPU simulator, over the allocators' own allocate/free
// (simulator.hpp: make_allocator, Allocator). Every run is verified, never optionally: each
// result is failed or inside the pool, the live objects' byte ranges are pairwise disjoint, and
// once everything is freed the allocator's free count is back to its initial value
// (VerificationError otherwise).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim {

struct WorkloadOptions {
  Mode mode = Mode::sequential;
  unsigned host_threads = 0;                 // threads mode: workers (0 = all cores)
  std::uint64_t max_probes_per_request = 0;  // 0 = the simulator's default bound
};

// One measurement point of a run: the whole run (alloc, mixed, fragmentation, oom) or one round
// of churn (round 0 = the initial fill).
struct WorkloadPoint {
  std::uint64_t round = 0;
  std::uint64_t requests = 0;  // allocation requests issued
  std::uint64_t allocs = 0;    // requests that got memory
  std::uint64_t failed = 0;    // requests that got none (null)
  std::uint64_t freed = 0;     // objects freed
  double init_seconds = 0;     // building the allocator and its pool (round 0 only)
  double alloc_seconds = 0;    // inside Allocator::allocate
  double free_seconds = 0;     // inside Allocator::free
  // Live objects when the point was taken (before the final frees).
  std::uint64_t live_objects = 0;
  std::uint64_t live_bytes = 0;  // bytes requested by the live objects
  // Highest end minus lowest start of the live objects' requested byte ranges; nullopt when
  // nothing is live.
  std::optional<std::uint64_t> address_range_bytes;
  // oom: objects allocated when the first request failed (nullopt: none failed).
  std::optional<std::uint64_t> count_at_failure;
  std::vector<std::uint32_t> steps;  // steps of every request of this point (registry's unit)
  std::uint64_t collisions = 0;      // collisions reported by the allocator (RunResult)
  // The allocations' RunResult::atomics_issued, ::failed_claims and ::retries, summed (frees
  // are not counted).
  std::uint64_t atomics_issued = 0, failed_claims = 0, retries = 0;
};

struct WorkloadRun {
  std::vector<WorkloadPoint> points;  // one, or rounds + 1 for churn
  std::uint64_t pages_total = 0;      // T
  std::uint64_t step_bound = 0;       // steps after which one request gives up
};

// Throws InputError (naming the parameter) for a workload the allocator cannot serve on the
// simulator, before anything runs.
void check_workload_input(Algorithm algo, const Workload& w, const WorkloadOptions& o);

// Runs trial `trial` (seed trial_seed(w.seed, trial)) of workload w with allocator algo on a
// pool of w.pool_bytes bytes that starts fully free.
WorkloadRun run_workload(Algorithm algo, const Workload& w, const WorkloadOptions& o,
                         std::uint64_t trial);

// A live object as the verifier sees it: bytes [begin, end) of the pool.
struct ByteRange {
  std::uint64_t begin = 0, end = 0;
};
// Every range inside [0, pool_bytes) and non-empty, no two overlapping (sorted by address,
// neighbours compared); throws VerificationError naming the first violation.
void verify_ranges(std::vector<ByteRange> ranges, std::uint64_t pool_bytes);

}  // namespace alloclab::sim
