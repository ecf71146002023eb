// What a point costs in memory, checked before anything is allocated: a request the machine
// cannot hold is bad input (exit 2, naming the parameter), never std::bad_alloc mid-run.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::cli {

// Physical memory of this machine (sysconf), 0 if unknown.
std::uint64_t physical_memory_bytes();

// Throws InputError naming --T, --N or --trials (whichever term is largest) when the simulator
// would need more than `available` bytes (default: physical memory) for this point, by the
// simulator's own estimate (cpu_sim/memory_estimate.hpp).
void check_simulator_memory(const Scenario& s, const sim::SimOptions& options, std::uint64_t trials,
                            std::uint64_t available = physical_memory_bytes());

// "1.5 GB", "375 TB": decimal units, 3 significant digits.
std::string format_bytes(double bytes);

}  // namespace alloclab::cli
