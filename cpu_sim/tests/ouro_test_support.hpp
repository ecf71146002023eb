// What the simulator's Ouroboros tests (ouro_page_test.cpp, ouro_chunk_test.cpp,
// ouro_virtual_test.cpp, ouro_chunk_virtual_test.cpp) share: an empty pool of whole chunks, a mode
// with two host threads, a run's steps summed, and the chunks a run's pages lie in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim::test {

// N requests of `units` 16 B units on an empty pool of `chunks` chunks (512 units each).
inline Scenario ouro_empty_pool(Algorithm algo, std::uint64_t N, std::uint64_t chunks,
                                unsigned units, std::uint64_t seed = 77) {
  Scenario s;
  s.algo = algo;
  s.N = N;
  s.T = chunks * 512;
  s.A = s.T;
  s.pages = units;
  s.lanes = 32;
  s.seed = seed;
  return s;
}

inline SimOptions in_mode(Mode m) {
  SimOptions o;
  o.mode = m;
  o.host_threads = 2;
  return o;
}

// The steps of a run's requests, summed.
inline std::uint64_t total_steps(const RunResult& r) {
  std::uint64_t sum = 0;
  for (auto x : r.steps) sum += x;
  return sum;
}

// Chunks holding at least one page of the run.
inline std::uint64_t chunks_touched(const RunResult& r, std::uint64_t chunks) {
  std::vector<bool> used(chunks, false);
  for (auto f : r.first_page)
    if (f >= 0) used[static_cast<std::uint64_t>(f) / 512] = true;
  return static_cast<std::uint64_t>(std::count(used.begin(), used.end(), true));
}

}  // namespace alloclab::sim::test
