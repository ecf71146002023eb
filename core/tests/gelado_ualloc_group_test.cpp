// UAlloc's collective chunk mutex (core/gelado/ualloc_chunk_group.hpp, §4.2.2) against hand-worked
// cases: one acquisition serves a whole group, member r gets the r-th free bin, a full chunk is
// popped and the next comes from TBuddy, an exhausted TBuddy fails the members it cannot serve,
// and growers served by a group end as single growers do (ualloc_check at rest).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "alloclab/core/gelado/ualloc_alloc.hpp"
#include "alloclab/core/gelado/ualloc_chunk_group.hpp"
#include "alloclab/core/gelado/ualloc_state.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gelado;
using Atom = alloclab::ouro::HostAtomics;
using Group = UAllocChunkGroup<Atom>;

namespace {

template <class Machine>
int run(Machine& m, const UAllocView& v) {
  int steps = 0;
  while (m.phase() != decltype(m.phase())::done && steps < 100000) {
    m.step(v);
    ++steps;
  }
  REQUIRE(m.phase() == decltype(m.phase())::done);
  return steps;
}

// Steps every unfinished alloc once a round until all are done (a waiter may wait for a grower
// with a later index, so they cannot run one after the other).
void run_all(std::vector<UAllocAlloc<Atom>>& ops, const UAllocView& v) {
  for (int round = 0; round < 100000; ++round) {
    bool all = true;
    for (auto& op : ops)
      if (op.phase() != UAllocAllocPhase::done) {
        op.step(v);
        all = false;
      }
    if (all) return;
  }
  FAIL("an alloc never finished");
}

}  // namespace

TEST_CASE("UAlloc collective chunk mutex: one acquisition, the r-th free bin to rank r",
          "[gelado][ualloc]") {
  UAllocStorage st(7, 6, 1);  // two chunks of 64 bins; TBuddy holds both
  const UAllocView& v = st.view;
  Group g(v, 0, 1, 0);
  for (int i = 0; i < 4; ++i) CHECK(g.join() == 1u + i);  // ranks 1..4: five members
  v.chunk_locks[0] = 1;                                   // held by someone else: the group waits
  CHECK(g.step(v) == StepStatus::spinning);
  CHECK(g.stats().lock_spins == 1);
  v.chunk_locks[0] = 0;
  run(g, v);
  CHECK(g.join() == Group::kMostMembers);  // closed once the mutex was taken
  // Lock, pick (empty list), TBuddy's chunk, add, pick: bins 2..6 of chunk 0 (0 and 1 are the
  // special bins ualloc_add_chunk marks), in rank order; one acquisition, one chunk.
  REQUIRE(g.got() == 5);
  for (std::uint32_t r = 0; r < 5; ++r) CHECK(g.bin(r) == 2 + r);
  CHECK(g.bin(5) == kNoBin);
  CHECK(g.stats().chunk_locks == 1);
  CHECK(g.stats().chunk_refills == 1);
  CHECK(v.chunk_locks[0] == 0);
  CHECK(v.chunk_heads[0] == 0);
  CHECK(v.chunk_bins[0] == 0b1111111u);  // bins 0..6 taken
}

TEST_CASE("UAlloc collective chunk mutex: a full chunk popped, the next from TBuddy, then none",
          "[gelado][ualloc]") {
  UAllocStorage st(7, 6, 1);  // two chunks
  const UAllocView& v = st.view;
  std::set<std::uint32_t> seen;
  // 62 free bins a chunk: 32 + 30 fill chunk 0; the second group of 32 takes chunk 0's last 30
  // and 2 of chunk 1 (bins 64 + 2, 64 + 3); 124 bins in all, so the fourth group of 32 gets 28.
  const std::uint32_t expect_got[4] = {32, 32, 32, 28};
  const std::uint32_t expect_refills[4] = {1, 1, 0, 0};
  for (int k = 0; k < 4; ++k) {
    Group g(v, 0, 32, static_cast<std::uint32_t>(k));
    run(g, v);
    CAPTURE(k);
    CHECK(g.got() == expect_got[k]);
    CHECK(g.stats().chunk_refills == expect_refills[k]);
    for (std::uint32_t r = 0; r < g.got(); ++r) {
      CHECK(seen.insert(g.bin(r)).second);  // no bin twice
      CHECK(g.bin(r) % 64 >= 2);            // never a special bin
    }
    for (std::uint32_t r = g.got(); r < 32; ++r) CHECK(g.bin(r) == kNoBin);
    if (k == 1) {
      CHECK(g.bin(29) == 63);  // chunk 0's last
      CHECK(g.bin(30) == 66);  // chunk 1's first two
      CHECK(g.bin(31) == 67);
    }
  }
  CHECK(seen.size() == 124);
  CHECK(v.chunk_heads[0] == kNoBin);  // both full: popped
  CHECK(v.chunk_locks[0] == 0);
}

TEST_CASE("UAlloc collective chunk mutex: growers served by a group end as single growers do",
          "[gelado][ualloc]") {
  // 1 KB (class 7, 3 slots a bin, batch 3): 12 waiters on an empty semaphore make 4 growers
  // (ceil(12 / 3)) and 8 waiters served by their bins. Every machine steps once a round; the
  // growers that reach the chunk mutex form one group, served by one acquisition.
  UAllocStorage st(7, 6, 1);
  const UAllocView& v = st.view;
  std::vector<UAllocAlloc<Atom>> ops;
  for (std::uint32_t i = 0; i < 12; ++i) ops.emplace_back(v, 7, 0, i);
  std::vector<std::size_t> growers;
  for (int round = 0; round < 200 && growers.size() < 4; ++round)
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (!ops[i].waiting_for_chunk())
        ops[i].step(v);
      else if (std::find(growers.begin(), growers.end(), i) == growers.end())
        growers.push_back(i);
  REQUIRE(growers.size() == 4);
  Group g(v, 0, 1, 0);
  for (std::size_t m = 1; m < growers.size(); ++m) CHECK(g.join() == m);
  run(g, v);
  REQUIRE(g.got() == 4);
  for (std::size_t m = 0; m < growers.size(); ++m)
    ops[growers[m]].grant_bin(g.bin(static_cast<std::uint32_t>(m)), m == 0 ? &g.stats() : nullptr);
  std::set<std::uint64_t> objects;
  std::uint32_t chunk_locks = 0, grew = 0;
  run_all(ops, v);
  for (auto& op : ops) {
    REQUIRE(op.result() != kUAllocFailed);
    CHECK(objects.insert(op.result()).second);
    chunk_locks += op.stats().chunk_locks;
    grew += op.stats().waits_grew;
  }
  CHECK(grew == 4);
  CHECK(chunk_locks == 1);  // the group's one acquisition, counted once (its leader's)
  CHECK(ualloc_check(v, 2).empty());
}

TEST_CASE("UAlloc collective chunk mutex: TBuddy out of memory fails the members it cannot serve",
          "[gelado][ualloc]") {
  // A pool of one chunk that someone else holds (TBuddy empty, list empty): all 3 growers of 1 KB
  // fail, signal their failure, and leave the semaphore as it was (ualloc_check at rest).
  UAllocStorage st(6, 6, 1);
  const UAllocView& v = st.view;
  TBuddyAlloc<Atom> other(6, 0);
  while (other.step(v.buddy) != StepStatus::done) {
  }
  REQUIRE(other.node() != 0);
  std::vector<UAllocAlloc<Atom>> ops;
  for (std::uint32_t i = 0; i < 9; ++i) ops.emplace_back(v, 7, 0, i);
  std::vector<std::size_t> growers;
  for (int round = 0; round < 200 && growers.size() < 3; ++round)
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (!ops[i].waiting_for_chunk())
        ops[i].step(v);
      else if (std::find(growers.begin(), growers.end(), i) == growers.end())
        growers.push_back(i);
  REQUIRE(growers.size() == 3);
  Group g(v, 0, 3, 0);
  run(g, v);
  CHECK(g.got() == 0);
  for (std::size_t m = 0; m < 3; ++m)
    ops[growers[m]].grant_bin(g.bin(static_cast<std::uint32_t>(m)), nullptr);
  run_all(ops, v);
  for (auto& op : ops) CHECK(op.result() == kUAllocFailed);
  CHECK(v.chunk_locks[0] == 0);
  CHECK(v.sems[v.list(0, 7)] == 0);  // no units, no promises left
}
