// What one run of a workload (workload.hpp) measured, the same record on every backend: one point
// for the whole run (alloc, mixed, fragmentation, oom) or one per churn round. The CPU simulator
// (cpu_sim/workload_runner.hpp) and the GPU (gpu/workload.hpp) fill it; cli/ turns it into rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace alloclab {

// One measurement point of a run: the whole run (alloc, mixed, fragmentation, oom) or one round
// of churn (round 0 = the initial fill).
struct WorkloadPoint {
  std::uint64_t round = 0;
  std::uint64_t requests = 0;  // allocation requests issued
  std::uint64_t allocs = 0;    // requests that got memory
  std::uint64_t failed = 0;    // requests that got none (null)
  std::uint64_t freed = 0;     // objects freed
  double init_seconds = 0;     // building the allocator and its pool (round 0 only)
  // Time in the allocations and in the frees: the simulator's wall time inside Allocator::allocate
  // and ::free; the GPU's allocation and free kernels (CUDA events).
  double alloc_seconds = 0;
  double free_seconds = 0;
  // Live objects when the point was taken (before the final frees).
  std::uint64_t live_objects = 0;
  std::uint64_t live_bytes = 0;  // bytes requested by the live objects
  // Highest end minus lowest start of the live objects' requested byte ranges; nullopt when
  // nothing is live.
  std::optional<std::uint64_t> address_range_bytes;
  // oom: objects allocated when the first request failed (nullopt: none failed), and the batch
  // it failed in (1 = the first).
  std::optional<std::uint64_t> count_at_failure;
  std::optional<std::uint64_t> batches_at_failure;
  // A typed heap's blocks at the measurement point (--types; nullopt for page pools): the heap's
  // blocks, those in use, the fewest that could hold the live objects (sum over types of
  // ceil(live / N_T)), and DynaSOAr's F (§6.3: free slots of the allocated blocks over their
  // slots).
  struct TypedBlocks {
    std::uint64_t heap_blocks = 0, blocks_in_use = 0, blocks_min = 0;
    double slot_fragmentation = 0;
  };
  std::optional<TypedBlocks> typed_blocks;
  // Steps of every request of this point (the registry's unit of the allocator); empty where
  // steps are not observable (CUDA's malloc, GPU runs without counters).
  std::vector<std::uint32_t> steps;
  std::uint64_t collisions = 0;  // collisions reported by the allocator
  // The allocations' atomics issued, failed atomic claims (atomics that lost at least one bit)
  // and retries, summed (frees: see below). Exact in the simulator (RunResult); on the GPU
  // (counters on) the kernels count atomics and failed claims (the collisions less the lost bits
  // beyond the first of each failed atomic: KernelArgs::extra_lost_bits) and retries are the
  // steps beyond the first.
  std::uint64_t atomics_issued = 0, failed_claims = 0, retries = 0;
  // The frees' atomics issued, summed over the point's `freed` objects, counted as the
  // allocations' are: the bitmap allocators' one AND per word piece of the object's run of pages,
  // the queue's enqueue (one fetch_add per page). Like atomics_issued, only where
  // has_atomic_counts.
  std::uint64_t free_atomics_issued = 0;
  bool has_atomic_counts = true;
  bool has_claim_counts = true;  // failed_claims and retries
  // The allocator's own counts (Ouroboros: semaphore CAS attempts, spins, chunks, its walks'
  // positions...), by name, summed over the point's allocation requests; empty where the
  // allocator names none or the GPU's counters are off. Exact in the simulator; on the GPU each
  // lane counts what it did (core/ouroboros/op_counts.hpp).
  std::vector<std::pair<std::string, std::uint64_t>> op_counts;
  // Adds `counts` (the same names, in the same order, or the first ones) to op_counts.
  void add_op_counts(const std::vector<std::pair<std::string, std::uint64_t>>& counts) {
    if (op_counts.empty()) {
      op_counts = counts;
      return;
    }
    for (std::size_t i = 0; i < counts.size() && i < op_counts.size(); ++i)
      op_counts[i].second += counts[i].second;
  }
};

struct WorkloadRun {
  std::vector<WorkloadPoint> points;  // one, or rounds + 1 for churn
  std::uint64_t pages_total = 0;      // T
  std::uint64_t step_bound = 0;       // steps after which one request gives up (0: none)
  std::string device;                 // "cpu simulator", or the GPU's name
  std::vector<std::string> notes;     // what the backend wants a reader to know about this run
  // Bytes of the objects' written patterns (first and last min(8, size) bytes of each) found
  // intact before their frees; 0 where the backend writes none.
  std::uint64_t pattern_bytes_checked = 0;
  // The GPU: registers per thread of the allocation and free kernels the run launched
  // (cudaFuncGetAttributes' numRegs), where the allocator's GPU entry reports them.
  std::optional<unsigned> alloc_registers, free_registers;
};

}  // namespace alloclab
