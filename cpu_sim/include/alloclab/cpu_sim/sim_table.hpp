// The simulator's backend table (core/backend_table.hpp): one SimEntry per allocator that runs in
// the simulator, registered from the allocator's own file, e.g. at the end of cpu_sim/src/rw.cpp:
//
//   ALLOCLAB_REGISTER_ENTRY(sim::SimTable, Algorithm::rw, sim::SimEntry{.make = &make_rw})
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
};

using SimTable = BackendTable<SimEntry>;

}  // namespace alloclab::sim
