// The counts of its own that DynaSOAr and BitmapAlloc report per run (RunResult::op_counts in the
// simulator, GpuEntry::op_count_names on the GPU), in one order and under one set of names, so
// that rows of both backends compare column for column (studies/dynasoar/, "What is counted").
#pragma once

#include <cstdint>

#include "alloclab/core/dynasoar/heap.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::dynasoar {

namespace ds_count {
// The allocation's counts, then the invalidations of the allocation's rollbacks and of the frees
// made since the previous allocation, and the frees' spins.
enum Index : unsigned {
  levels,
  set_spins,
  clear_spins,
  find_fails,
  lookups,
  lookup_fails,
  reserves,
  reserve_lost,
  reserve_fails,
  blocks_initialised,
  free_lookup_fails,
  tail_skips,
  rollbacks,
  gave_up,
  invalidations,
  invalidated,
  inval_rollbacks,
  inval_retries,
  free_spins,
  kCounts
};
}  // namespace ds_count

inline constexpr const char* kDsCountNames[ds_count::kCounts] = {"levels",
                                                                 "set_spins",
                                                                 "clear_spins",
                                                                 "find_fails",
                                                                 "lookups",
                                                                 "lookup_fails",
                                                                 "reserves",
                                                                 "reserve_lost",
                                                                 "reserve_fails",
                                                                 "blocks_initialised",
                                                                 "free_lookup_fails",
                                                                 "tail_skips",
                                                                 "rollbacks",
                                                                 "gave_up",
                                                                 "invalidations",
                                                                 "invalidated",
                                                                 "inval_rollbacks",
                                                                 "inval_retries",
                                                                 "free_spins"};

// An allocation's counts (one machine: a request, or a warp group's) in ds_count order. The
// frees' spins (free_spins) are 0 here: a free's own counts are taken apart (free_count_values).
ALLOCLAB_HD void alloc_count_values(const DsCounts& d, std::uint32_t (&out)[ds_count::kCounts]) {
  const std::uint32_t v[ds_count::kCounts] = {d.bitmap.levels,
                                              d.bitmap.set_spins,
                                              d.bitmap.clear_spins,
                                              d.bitmap.find_fails,
                                              d.lookups,
                                              d.lookup_fails,
                                              d.reserves,
                                              d.reserve_lost,
                                              d.reserve_fails,
                                              d.blocks_initialised,
                                              d.free_lookup_fails,
                                              d.tail_skips,
                                              d.rollbacks,
                                              d.gave_up,
                                              d.invalidations,
                                              d.invalidated,
                                              d.inval_rollbacks,
                                              d.inval_retries,
                                              0};
  for (unsigned k = 0; k < ds_count::kCounts; ++k) out[k] = v[k];
}

// What a free's counts add to the next allocation's: its invalidations and its spins, in the
// order of ds_count from `invalidations` on.
inline constexpr unsigned kDsFreeCounts = ds_count::kCounts - ds_count::invalidations;
ALLOCLAB_HD void free_count_values(const DsCounts& f, std::uint32_t (&out)[kDsFreeCounts]) {
  out[0] = f.invalidations;
  out[1] = f.invalidated;
  out[2] = f.inval_rollbacks;
  out[3] = f.inval_retries;
  out[4] = f.bitmap.set_spins + f.bitmap.clear_spins;
}

namespace ba_count {
// BitmapAlloc's: the allocation's, then the levels the frees since the previous one set.
enum Index : unsigned { levels, find_fails, lost_claims, gave_up, free_levels, kCounts };
}  // namespace ba_count
inline constexpr const char* kBaCountNames[ba_count::kCounts] = {
    "levels", "find_fails", "lost_claims", "gave_up", "free_levels"};

}  // namespace alloclab::dynasoar
