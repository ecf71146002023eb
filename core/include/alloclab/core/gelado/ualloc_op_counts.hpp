// The names and order of UAlloc's own counts per request (RunResult::op_counts and
// WorkloadPoint::op_counts), one list for the simulator (cpu_sim/src/gg_ualloc.cpp) and the GPU
// (gpu/src/gg_ualloc.cu), so rows from both backends compare column by column: an allocation's
// UAllocStats, then the frees' made since the previous allocation (relinks, retires, retire
// failures, barriers, delegations). A malloc block from TBuddy counts only its give-ups, in
// gave_up.
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/ualloc_sync.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

namespace ualloc_count {
enum : unsigned {
  waits_took,
  waits_grew,
  reserves,
  sem_spins,
  list_nodes,
  bitmap_probes,
  bit_retries,
  count_cas_failures,
  sweeps,
  refills,
  chunk_refills,
  lock_spins,
  chunk_locks,
  unlinks,
  gave_up,
  grow_failed,
  free_relinks,
  free_retires,
  free_retire_failures,
  free_barriers,
  free_delegations,
  kCounts
};
}  // namespace ualloc_count

inline constexpr const char* kUAllocCountNames[ualloc_count::kCounts] = {"waits_took",
                                                                         "waits_grew",
                                                                         "reserves",
                                                                         "sem_spins",
                                                                         "list_nodes",
                                                                         "bitmap_probes",
                                                                         "bit_retries",
                                                                         "count_cas_failures",
                                                                         "sweeps",
                                                                         "refills",
                                                                         "chunk_refills",
                                                                         "lock_spins",
                                                                         "chunk_locks",
                                                                         "unlinks",
                                                                         "gave_up",
                                                                         "grow_failed",
                                                                         "free_relinks",
                                                                         "free_retires",
                                                                         "free_retire_failures",
                                                                         "free_barriers",
                                                                         "free_delegations"};
// The allocation's counts are the first kUAllocAllocCounts; the frees' follow.
inline constexpr unsigned kUAllocAllocCounts = ualloc_count::free_relinks;
inline constexpr unsigned kUAllocFreeCounts = ualloc_count::kCounts - kUAllocAllocCounts;

// An allocation's counts, in the order above.
ALLOCLAB_HD void ualloc_alloc_count_values(const UAllocStats& s,
                                           std::uint32_t (&out)[kUAllocAllocCounts]) {
  const std::uint32_t v[kUAllocAllocCounts] = {
      s.waits_took,  s.waits_grew,    s.reserves,      s.sem_spins,
      s.list_nodes,  s.bitmap_probes, s.bit_retries,   s.count_cas_failures,
      s.sweeps,      s.refills,       s.chunk_refills, s.lock_spins,
      s.chunk_locks, s.unlinks,       s.gave_up,       s.grow_failed};
  for (unsigned k = 0; k < kUAllocAllocCounts; ++k) out[k] = v[k];
}

// A free's counts, in the order above (from free_relinks on).
ALLOCLAB_HD void ualloc_free_count_values(const UAllocStats& s,
                                          std::uint32_t (&out)[kUAllocFreeCounts]) {
  const std::uint32_t v[kUAllocFreeCounts] = {s.relinks, s.retires, s.retire_failures, s.barriers,
                                              s.delegations};
  for (unsigned k = 0; k < kUAllocFreeCounts; ++k) out[k] = v[k];
}

}  // namespace alloclab::gelado
