// The application workloads of DynaSOAr's evaluation (Springer & Masuhara, ECOOP'19 §6) on the
// typed heap (typed_heap.hpp), written for alloclab (studies/dynasoar/typed-heap.md):
//
//  * Wa-Tor-like churn (§6.3, Fig. 12-13): fish and sharks on a torus of cells. Each iteration
//    the fish (enumerated as parallel_do does) move to a random empty neighbour and, when old
//    enough, leave a new fish behind (one allocation batch); the sharks starve, or eat a
//    neighbouring fish or move, and breed (one free batch: the eaten fish and dead sharks; one
//    allocation batch: the new sharks). Newborns get a random age below the breeding age. Fish are
//    the first type of --types, sharks the second. Per iteration: the populations, the batches and
//    the fragmentation F of §6.3.
//  * linux-scalability (§6.4, Fig. 14A): `threads` threads each allocate objects of one type, one
//    batch per object, until a batch cannot be served whole; the largest n that succeeded gives the
//    utilisation 16384 n size / heap; then every object is freed in one batch, which must leave
//    every block free.
// Deterministic from the seed (Philox, StreamDomain::workload for the application's draws).
#pragma once

#include <cstdint>
#include <vector>

#include "alloclab/cpu_sim/typed_heap.hpp"

namespace alloclab::sim {

struct WatorOptions {
  TypedHeapOptions heap;  // types: fish, shark (exactly two)
  unsigned width = 64, height = 64;
  unsigned iterations = 500;
  // The rules and constants of the paper's Wa-Tor (its public source: a quarter of the cells
  // fish, a quarter sharks; breeding once older than 4 iterations; a shark starts with energy 2,
  // loses 1 an iteration, dies at 0 and gains 4 a fish).
  double fish_fraction = 0.25, shark_fraction = 0.25;  // of the cells at the start
  unsigned fish_breed = 4;   // a fish older than this leaves an offspring when it moves
  unsigned shark_breed = 4;  // ... a shark
  int shark_energy = 2;      // a shark's energy at birth; it loses 1 an iteration
  int fish_energy = 4;       // what eating a fish gives
};

// InputError naming the parameter (besides check_typed_heap): --types not two types, a grid of
// no cells, fractions outside [0, 1] or summing past 1, zero iterations or breeding times.
void check_wator(const WatorOptions& o);

struct WatorIteration {
  unsigned iteration = 0;  // 0: after the initial population
  std::uint64_t fish = 0, sharks = 0;
  std::uint64_t fish_births = 0, shark_births = 0, fish_eaten = 0, shark_deaths = 0;
  std::uint64_t failed = 0;  // births the heap could not serve (out of memory)
  std::uint64_t blocks = 0;  // blocks in use
  double fragmentation = 0;  // F (§6.3), at rest after the iteration
  std::uint64_t blocks_initialised = 0, lookups = 0, lookup_fails = 0, steps = 0;  // this one
};

struct WatorRun {
  std::vector<WatorIteration> iterations;
  double steady_fragmentation = 0;  // mean F over the second half of the iterations
  double wall_s = 0;                // the whole run, verification included
  std::uint64_t allocations = 0, frees = 0, failed = 0;
  dynasoar::DsCounts counts;
};

WatorRun run_wator(const WatorOptions& o);

struct LinuxScalabilityOptions {
  TypedHeapOptions heap;  // one type (the paper's 64 B)
  std::uint64_t threads = 16384;
  std::uint64_t max_n = 0;  // stop after this many objects a thread (0: until one fails)
};

// InputError naming the parameter: --threads 0 or above the heap's slots, --types not one type.
void check_linux_scalability(const LinuxScalabilityOptions& o);

struct LinuxScalabilityRun {
  std::uint64_t n_max = 0;        // objects a thread, every thread served
  std::uint64_t allocated = 0;    // objects served, the failing batch's included
  std::uint64_t failed = 0;       // requests of the failing batch not served
  std::uint64_t capacity = 0;     // slots of the heap: blocks x N_T
  double utilisation = 0;         // threads x n_max x size / heap bytes
  double slot_utilisation = 0;    // allocated / capacity
  std::uint64_t blocks_left = 0;  // blocks not free after freeing everything (0 expected)
  double slow_path_rate = 0;      // blocks initialised / allocations
  double wall_s = 0;
  dynasoar::DsCounts counts;
};

LinuxScalabilityRun run_linux_scalability(const LinuxScalabilityOptions& o);

}  // namespace alloclab::sim
