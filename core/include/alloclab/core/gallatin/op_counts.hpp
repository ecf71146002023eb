// The names and order of Gallatin's own counts per request (RunResult::op_counts and
// WorkloadPoint::op_counts), one list for the simulator (cpu_sim/src/gallatin.cpp) and the GPU
// (gpu/src/gallatin.cu), so rows from both backends compare column by column.
//
// Per team (its leader's Counts): teams (1 per team), block_refills, segments_formatted, the vEB
// trees' loads, levels, atomics and restarts, restarts outside the trees, init_writes. Per lane:
// team_lanes (each request counts its team's size, so per request it is the mean team size).
// The frees made since the previous allocation launch: blocks and segments given back, atomics.
#pragma once

namespace alloclab::gallatin {

enum OpCount : unsigned {
  teams,
  team_lanes,
  block_refills,
  segments_formatted,
  veb_loads,
  veb_levels,
  veb_atomics,
  veb_restarts,
  restarts,
  init_writes,
  free_blocks_returned,
  free_segments_returned,
  free_atomics,
  kOpCounts
};
inline constexpr const char* kOpCountNames[kOpCounts] = {
    "teams",       "team_lanes",  "block_refills",        "segments_formatted",
    "veb_loads",   "veb_levels",  "veb_atomics",          "veb_restarts",
    "restarts",    "init_writes", "free_blocks_returned", "free_segments_returned",
    "free_atomics"};
// The allocation's counts are the first kAllocCounts; the frees' follow.
inline constexpr unsigned kAllocCounts = free_blocks_returned;

}  // namespace alloclab::gallatin
