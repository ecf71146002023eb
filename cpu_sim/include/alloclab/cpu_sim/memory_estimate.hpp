// What one point costs the simulator in memory, estimated before anything is allocated so that
// a request the machine cannot hold is refused as bad input, never std::bad_alloc mid-run. The
// generic part (page sets, per-thread working vectors, results) is computed here; each
// allocator's own structures come from its simulator entry (sim_table.hpp: pool_bytes,
// lane_bytes_per_thread).
#pragma once

#include <cmath>
#include <cstdint>

#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim {

// The simulator's peak memory for `trials` trials of one point, in bytes, by what holds it
// (double: absurd inputs must compare, not overflow).
struct MemoryEstimate {
  double pool = 0;        // per running trial: the allocator's structures and the page sets
  double per_thread = 0;  // per running trial: the simulated threads' working vectors
  double results = 0;     // every trial's per-thread results, kept until summarised
  double running_trials = 1;
  double total() const { return running_trials * (pool + per_thread) + results; }
};

// From the simulator's data structures (cpu_sim/src): the initial free set and the before/after
// used-page sets take one bit per page; per thread: steps (4 B), first page (8 B), service order
// and its sort keys (sequential) or the active list and claim candidates (lockstep), plus what
// the allocator's entry adds per thread. Throws InputError naming --allocator for an allocator
// without a simulator entry.
MemoryEstimate memory_estimate(const Scenario& s, const SimOptions& options, std::uint64_t trials);

// A bitmap of T pages that keeps each word of `bits_per_word` pages in a 64-bit atomic, in bytes
// (for the entries' pool_bytes).
inline double bitmap_bytes(std::uint64_t T, unsigned bits_per_word) {
  return 8 * std::ceil(static_cast<double>(T) / (bits_per_word ? bits_per_word : 1));
}

}  // namespace alloclab::sim
