// Figure 6's benchmark of Gelado & Garland (core/gelado/rcu_list_bench.hpp) in the simulator:
// lockstep (every resident unfinished thread takes one step per round, in thread order: rounds
// are the time) and sequential (one thread at a time from start to end: no two barriers ever
// overlap, so nothing is delegated and every writer runs a full barrier). `alloclab rcu` prints it.
//
// Residency (--resident R): at most R threads run at once, the next one starting when one
// finishes, as a GPU holds a bounded number of threads and starts the next block only when a
// block leaves; the paper's argument for delegation is the hardware a waiting barrier occupies.
// R = 0: every thread resident from round 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/rcu_list_bench_summary.hpp"

namespace alloclab::sim {

enum class RcuBenchMode { lockstep, sequential };

struct RcuBenchOptions {
  gelado::RcuListConfig config;  // threads T, nodes W, conditional
  RcuBenchMode mode = RcuBenchMode::lockstep;
  std::uint32_t resident = 0;   // lockstep: threads running at once; 0 = all
  std::uint64_t seed = 1;       // the input vector's shuffle
  std::uint64_t max_steps = 0;  // per thread; 0 = default_rcu_bench_steps
};

// Lockstep's cost grows as threads x rounds.
inline constexpr std::uint64_t kRcuBenchMaxThreads = 65536;

// One writer's barrier as the lockstep saw it (rounds, 1-based).
struct RcuBarrierTrace {
  std::uint64_t arrival = 0;  // the round of the barrier's first step
  std::uint64_t end = 0;      // the round it returned
  bool delegated = false;
};

struct RcuBenchRun {
  gelado::RcuListSummary summary;
  std::string verification;           // "" when verify_rcu_list found nothing
  std::uint64_t max_steps = 0;        // the bound the run used
  std::uint64_t rounds = 0;           // lockstep: the time; sequential: the steps of all threads
  std::uint64_t peak_in_barrier = 0;  // threads inside a barrier at once (occupying a slot)
  double mean_hold = 0;  // rounds from taking the barrier mutex to releasing it (full barriers)
  std::vector<RcuBarrierTrace> barriers;  // per writer, in the order they arrived
};

// The step bound per thread when none is given: room for every writer's barrier before its own
// and every reader's walk, 8 times over.
std::uint64_t default_rcu_bench_steps(const RcuBenchOptions& o);

// InputError naming the parameter: threads 0 or above kRcuBenchMaxThreads, nodes above threads
// (each list tag is in the input vector).
void check_rcu_bench(const RcuBenchOptions& o);

RcuBenchRun run_rcu_bench(const RcuBenchOptions& o);

}  // namespace alloclab::sim
