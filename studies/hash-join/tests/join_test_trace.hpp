// A hash join's page-request trace for the replay tests (join_replay_test.cpp,
// join_seed_replay_test.cpp): n requests, as many tuples, on a pool of T pages, full warps asking
// together, `resident` requests in flight at most.
#pragma once

#include <cstdint>

#include "alloclab/studies/join_replay.hpp"

namespace alloclab::validation::test {

inline JoinTrace trace(Algorithm a, std::uint64_t n, std::uint64_t T, std::uint64_t resident) {
  JoinTrace t;
  t.algo = a;
  t.tuples = t.requests = n;
  t.pages = T;
  t.lanes = 32;
  t.resident = resident;
  return t;
}

}  // namespace alloclab::validation::test
