// Figure 5's benchmark of Gelado & Garland (core/gelado/semaphore_bench.hpp) in the simulator:
// lockstep (every unfinished thread takes one step per round, in thread order: rounds are the
// time, and the round-by-round state gives the peaks and the waiters a delivered batch finds) and
// threads (host threads on shared atomics, each stepping its share of the simulated threads in
// turn so that a waiter never blocks the grower it waits for). `alloclab semaphore` prints it.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/gelado/semaphore_bench_summary.hpp"

namespace alloclab::sim {

enum class SemBenchMode { lockstep, threads };

struct SemaphoreBenchOptions {
  // kind, batch B, batches_available (0: ceil(threads / B), just enough), grow_turns
  gelado::SemBenchConfig config;
  std::uint64_t threads = 1024;
  // A warp's 32 lanes ask as one: its leader waits for 32 units (warp aggregation); threads must
  // be a multiple of 32. The run's requesters are then threads / 32.
  bool warp = false;
  SemBenchMode mode = SemBenchMode::lockstep;
  std::uint64_t max_steps = 0;  // per thread; 0 = default_sem_bench_steps
  unsigned host_threads = 0;    // threads mode; 0 = all cores
};

// The most threads lockstep runs: its cost grows as threads x rounds, and rounds as threads
// (about one CAS on the semaphore word succeeds per round).
inline constexpr std::uint64_t kSemBenchLockstepMaxThreads = 65536;

struct SemaphoreBenchRun {
  gelado::SemBenchSummary summary;
  std::string verification;     // "" when verify_sem_bench found nothing
  std::uint64_t max_steps = 0;  // the bound the run used
  // lockstep
  std::uint64_t rounds = 0;
  std::uint64_t peak_growers = 0;   // threads inside a growth at once
  std::uint64_t peak_reserved = 0;  // bulk: R after a round
  std::uint64_t peak_expected = 0;  // bulk: E after a round
  std::uint64_t deliveries = 0;     // batches delivered
  double waiters_at_delivery = 0;   // mean waiting threads when a grower's batch arrived
  std::uint64_t min_waiters_at_delivery = 0;
  // threads
  double wall_ms = 0;
};

// The step bound per thread when none is given: room for every other thread to go first (about
// one success per round on the word) and every batch's growth, 8 times over.
std::uint64_t default_sem_bench_steps(const SemaphoreBenchOptions& o);

// InputError naming the parameter: threads 0 or past the lockstep limit, batch 0 (or below 32
// with warp), threads not a multiple of 32 with warp, the bulk word's ranges (21-bit E and R:
// every requester may reserve at once).
void check_semaphore_bench(const SemaphoreBenchOptions& o);

SemaphoreBenchRun run_semaphore_bench(const SemaphoreBenchOptions& o);

}  // namespace alloclab::sim
