// Helpers for TBuddy's tests: the tree as a string of states, the semaphores' counts, and
// sequential runs of one alloc or free to its end.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace tbuddy_test {

using namespace alloclab::gelado;
using A = alloclab::ouro::HostAtomics;

// Nodes 1 .. 2^(H+1) - 1 as one letter each: A(vailable), B(usy), P(artial); lower case when
// the node is locked.
inline std::string states(const TBuddyTree& t) {
  std::string s;
  for (std::uint32_t i = 1; i <= tb_node_count(t.height); ++i) {
    const NodeState st = node_state(t.nodes[i]);
    char c = st == NodeState::available ? 'A' : st == NodeState::busy ? 'B' : 'P';
    if (node_locked(t.nodes[i])) c = static_cast<char>(c - 'A' + 'a');
    s += c;
  }
  return s;
}

// The state string of a pool that is one free block: the root Available, the rest Busy.
inline std::string one_free_block(std::uint32_t height) {
  std::string s(tb_node_count(height), 'B');
  s[0] = 'A';
  return s;
}

// sem[0..H]'s C, and whether every E and R is 0.
inline std::vector<int> sem_counts(const TBuddyTree& t) {
  std::vector<int> c;
  for (std::uint32_t h = 0; h <= t.height; ++h) c.push_back(BulkWord::unpack(t.sems[h]).count);
  return c;
}
inline bool sems_quiet(const TBuddyTree& t) {
  for (std::uint32_t h = 0; h <= t.height; ++h) {
    const SemCounters c = BulkWord::unpack(t.sems[h]);
    if (c.expected != 0 || c.reserved != 0) return false;
  }
  return true;
}

constexpr std::uint64_t kSequentialBound = 1u << 16;

// One alloc run alone to its end; returns the node (0: none) and checks it held <= 2 locks.
inline std::uint32_t run_alloc(const TBuddyTree& t, std::uint32_t order, std::uint32_t scatter,
                               TBuddyStats* stats = nullptr) {
  TBuddyAlloc<A> a(order, scatter);
  REQUIRE(tbuddy_run(a, t, kSequentialBound));
  CHECK(a.stats().max_locks_held <= 2);
  CHECK(a.stats().locks_held == 0);
  if (stats) *stats = a.stats();
  return a.node();
}
inline void run_free(const TBuddyTree& t, std::uint32_t node, TBuddyStats* stats = nullptr) {
  TBuddyFree<A> f(t, node);
  REQUIRE(tbuddy_run(f, t, kSequentialBound));
  CHECK(f.stats().max_locks_held <= 2);
  CHECK(f.stats().locks_held == 0);
  if (stats) *stats = f.stats();
}

}  // namespace tbuddy_test
