// The simulator's backend table (core/backend_table.hpp): one SimEntry per allocator that runs in
// the simulator, registered from the allocator's own file, e.g. at the end of cpu_sim/src/rw.cpp:
//
//   ALLOCLAB_REGISTER_ENTRY(sim::SimTable, Algorithm::rw,
//                           (sim::SimEntry{.make = &make_rw, .pool_bytes = &rw_pool_bytes}))
//
// make_allocator checks the generic input, runs the entry's own checks and calls its factory.
// The registry (core/algorithm.hpp) declares which allocators run here (BackendKind::sim); a
// test (cpu_sim/tests/sim_table_test.cpp) checks that exactly those have an entry.
#pragma once

#include <cstdint>
#include <memory>

#include "alloclab/core/backend_table.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim {

struct SimEntry {
  // Builds the allocator over the initial pool of `pool_seed` (see make_allocator).
  std::unique_ptr<Allocator> (*make)(const Scenario& s, const SimOptions& options,
                                     std::uint64_t pool_seed) = nullptr;
  // Input this allocator cannot serve beyond the generic checks (e.g. RW_malloc: a request
  // longer than one window); throws InputError naming the parameter. Null: nothing more.
  void (*check)(const Scenario& s, const SimOptions& options) = nullptr;
  // The allocator's own structures for one trial, in bytes (bitmap words, queue slots, locks):
  // the simulator's memory estimate (memory_estimate.hpp) adds the generic parts. Required.
  double (*pool_bytes)(const Scenario& s) = nullptr;
  // Per simulated thread, what the allocator keeps beyond the generic working vectors (e.g.
  // each lane's word and snapshot in a warp-collective allocator), in bytes.
  double lane_bytes_per_thread = 0;
  // Its own default step bound where a request is no search (default_step_bound otherwise).
  std::uint64_t (*step_bound)(const Scenario& s) = nullptr;
};

using SimTable = BackendTable<SimEntry>;

}  // namespace alloclab::sim
