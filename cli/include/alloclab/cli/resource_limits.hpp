// What a point costs in memory, checked before anything is allocated: a request the machine
// cannot hold is bad input (exit 2, naming the parameter), never std::bad_alloc mid-run.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::cli {

// The CPU simulator's peak memory for `trials` trials of one point, in bytes, by what holds it
// (double: absurd inputs must compare, not overflow).
struct SimulatorMemory {
  double pool = 0;        // per running trial: bitmap, initial free set, used-page sets
  double per_thread = 0;  // per running trial: the simulated threads' working vectors
  double results = 0;     // every trial's per-thread results, kept until summarised
  double running_trials = 1;
  double total() const { return running_trials * (pool + per_thread) + results; }
};

// From the simulator's data structures (cpu_sim/src): the bitmap keeps each w-bit word in a
// 64-bit atomic (RW and the queue's used set: 64 pages per word), the initial free set and the
// before/after used-page sets take one bit per page, the queue holds a slot per page and the
// free page ids; per thread: steps (4 B), first page (8 B), service order and its sort keys
// (sequential) or the active list and claim candidates (lockstep).
SimulatorMemory simulator_memory(const Scenario& s, const sim::SimOptions& options,
                                 std::uint64_t trials);

// Physical memory of this machine (sysconf), 0 if unknown.
std::uint64_t physical_memory_bytes();

// Throws InputError naming --T, --N or --trials (whichever term is largest) when the simulator
// would need more than `available` bytes (default: physical memory) for this point.
void check_simulator_memory(const Scenario& s, const sim::SimOptions& options, std::uint64_t trials,
                            std::uint64_t available = physical_memory_bytes());

// "1.5 GB", "375 TB": decimal units, 3 significant digits.
std::string format_bytes(double bytes);

}  // namespace alloclab::cli
