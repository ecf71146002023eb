// The CPU simulator's public interface (contract used by cli/, validation/ and the GPU
// step-for-step test). Implemented in cpu_sim/src; one file per allocator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/scenario.hpp"

namespace alloclab::sim {

enum class Mode {
  sequential,  // one request at a time, in a random order: exactly the model's assumption
  lockstep,    // SIMT emulation: every unfinished thread probes once per round
  threads      // real concurrency: host threads on one shared std::atomic bitmap
};

enum class Occupancy {
  random,     // exactly A free pages chosen by alloclab::PagePermutation (core/pool.hpp)
  contiguous  // what-if: the free pages form one contiguous block
};

struct SimOptions {
  Mode mode = Mode::sequential;
  Occupancy occupancy = Occupancy::random;
  unsigned host_threads = 0;  // threads mode: 0 = all cores
  std::uint64_t max_probes_per_request = 0;  // 0 = the documented default bound
};

// One run (one trial) of one scenario. Per-thread vectors are indexed by global thread id.
struct RunResult {
  std::vector<std::uint32_t> steps;       // steps taken by each thread (unit: AlgorithmInfo)
  std::vector<std::int64_t> first_page;   // first page of each thread's allocation, -1 = failed
  std::uint64_t collisions = 0;           // failed atomic claims (a probe that saw a free page
                                          // but lost it to another thread)
  std::uint64_t taken = 0;                // pages taken
  std::uint64_t failed = 0;               // requests that gave up (out of memory)
  std::uint64_t probes = 0;               // total probes (page or word reads)
  double wall_seconds = 0;
};

// Runs one trial with trial_seed(s.seed, trial). Verifies conservation and no double
// allocation; a violation throws alloclab::VerificationError.
RunResult run_once(const Scenario& s, const SimOptions& options, std::uint64_t trial);

}  // namespace alloclab::sim
