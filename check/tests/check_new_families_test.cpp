// The checker on the families wired in after the first five: Gelado & Garland's UAlloc,
// Gallatin and DynaSOAr's allocator, each on a case of 3 threads x 2 operations whose pool runs
// out, with alloclab's rules (no violation; the counts printed), and a bug injected on purpose
// (every read-modify-write torn into a load and a store) found as a double allocation.
#include <catch2/catch.hpp>

#include <iostream>
#include <string>

#include "alloclab/check/explorer.hpp"
#include "alloclab/check/families.hpp"

namespace {

using namespace alloclab::check;

ExploreResult run(const std::string& allocator, std::size_t threads, const std::string& ops,
                  std::uint64_t pool, std::optional<unsigned> preemptions, bool torn = false) {
  CheckCase c;
  c.allocator = allocator;
  c.threads = threads;
  c.ops = parse_script(ops);
  c.pool = pool;
  c.torn_rmw = torn;
  auto p = make_program(c);
  ExploreOptions o;
  o.preemptions = preemptions;
  ExploreResult r = explore(*p, o);
  std::cout << allocator << " " << threads << " threads x " << ops << " pool " << pool
            << (preemptions ? " P<=" + std::to_string(*preemptions) : std::string(" exhaustive"))
            << (torn ? " torn" : "") << ": "
            << (r.violation ? "violation: " + r.violation->message : std::string("ok"))
            << ", executions " << r.stats.executions << ", pruned "
            << r.stats.pruned_bound + r.stats.pruned_preemption << ", " << r.stats.seconds
            << " s\n";
  return r;
}

bool found(const ExploreResult& r, const std::string& kind) {
  for (const auto& v : r.kinds)
    if (v.message.rfind(kind, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("check: gg-ualloc, 3 threads x (alloc, free) on 2 slots, 3 preemptions",
          "[check][gelado][ualloc]") {
  // Bin 2 listed with 2 free slots of 8 B, the chunk's other bins the application's: the third
  // thread's wait grows, finds no free bin and no chunk, and gets null (the pool runs out).
  const ExploreResult r = run("gg-ualloc", 3, "alloc:1,free", 2, 3u);
  CHECK_FALSE(r.violation);
  CHECK(r.stats.complete);
  CHECK(r.stats.executions > 1000);
  // The bin's count decremented by a torn CAS (a load, then a store): two takers both take the
  // last unit's count, and the semaphore no longer matches the list (or two take one slot).
  const ExploreResult torn = run("gg-ualloc", 2, "alloc:1", 2, std::nullopt, true);
  REQUIRE(torn.violation);
  CHECK(torn.violation->message.rfind("arena 0 class 0: semaphore", 0) == 0);
}

TEST_CASE("check: gg-ualloc gives nulls while slots are free (findings)",
          "[check][gelado][ualloc]") {
  // 1 KB objects (3 slots a bin), one free bin in the chunk. A free that empties its bin
  // retires it (off the list, its units taken back) and gives it to its chunk only after the
  // SRCU barrier; growers in between find no free bin and TBuddy no chunk: null.
  const ExploreResult retire = run("gg-ualloc", 3, "alloc:128,free", 3, 3u);
  REQUIRE(retire.violation);
  CHECK(retire.violation->message.rfind("spurious null", 0) == 0);
  // Without frees: a waiter that finds C = 2 covering the 2 reservations of others grows
  // instead of waiting, and fails at exhaustion, though the bin still has 2 free slots.
  const ExploreResult reserved = run("gg-ualloc", 3, "alloc:128,alloc:128", 3, 3u);
  REQUIRE(reserved.violation);
  CHECK(reserved.violation->message.rfind("spurious null", 0) == 0);
  // Alone, each script is served in full: nulls only from interleavings.
  CHECK_FALSE(run("gg-ualloc", 1, "alloc:128,free,alloc:128", 3, std::nullopt).violation);
  const ExploreResult one = run("gg-ualloc", 1, "alloc:128,alloc:128,alloc:128", 3, std::nullopt);
  CHECK_FALSE(one.violation);
  CHECK(one.stats.executions == 1);  // one thread: one interleaving
}

TEST_CASE("check: gallatin, 3 threads x (alloc, free) on 2 slices, 3 preemptions",
          "[check][gallatin]") {
  // One segment of one block of 2 slices: the third alloc finds the block used up, swaps the
  // slot, and get_block finds no segment: null (the pool runs out).
  const ExploreResult r = run("gallatin", 3, "alloc:1,free", 2, 3u);
  CHECK_FALSE(r.violation);
  CHECK(r.stats.complete);
  CHECK(r.stats.executions > 1000);
  const ExploreResult two = run("gallatin", 3, "alloc:1,free", 4, 3u);
  CHECK_FALSE(two.violation);
  // The malloc counter's atomicAdd torn: two teams read count 0 and both hand out slice 0.
  const ExploreResult torn = run("gallatin", 2, "alloc:1", 2, std::nullopt, true);
  REQUIRE(torn.violation);
  CHECK(found(torn, "double allocation: blocks [0, 1) and [0, 1)"));
}

TEST_CASE("check: dynasoar, 3 threads x (alloc, free) on 2 pages, 3 preemptions",
          "[check][dynasoar]") {
  // One block of 2 valid slots of type 1 (a short block): the pool runs out at the third.
  CheckCase c;
  c.allocator = "dynasoar";
  c.threads = 3;
  c.ops = parse_script("alloc:1,free");
  c.pool = 2;
  c.null_check = false;  // the finding below
  auto p = make_program(c);
  ExploreOptions o;
  o.preemptions = 3u;
  const ExploreResult r = explore(*p, o);
  std::cout << "dynasoar 3 threads x alloc:1,free pool 2 P<=3 nulls off: "
            << (r.violation ? r.violation->message : std::string("ok")) << ", executions "
            << r.stats.executions << "\n";
  CHECK_FALSE(r.violation);
  CHECK(r.stats.complete);
  // The reservation's atomicOr torn: both threads reserve slot 0 of block 0.
  const ExploreResult torn = run("dynasoar", 2, "alloc:1", 2, std::nullopt, true);
  REQUIRE(torn.violation);
  CHECK(found(torn, "double allocation: blocks [0, 1) and [0, 1)"));
}

TEST_CASE("check: dynasoar's give-up rule returns null while a block is being initialised",
          "[check][dynasoar]") {
  // A finding, with alloclab's rule (4 empty rounds, alloc.hpp): T0 claims the only block
  // from free and initialises it; before it sets active[1], T1's 4 rounds each find active[1]
  // and free empty at the top, and T1 gives up although the block has a slot for it. By hand
  // the shortest schedule is 38 accesses: T0's 5 lookups, the free read and claim (7); T1's 4
  // rounds of 5 lookups and a free read (24); T0's type, bitmap, allocated, active, the
  // reservation's load and OR, the type re-read (7), after which the execution ends.
  const ExploreResult r = run("dynasoar", 2, "alloc:1", 2, std::nullopt);
  REQUIRE(r.violation);
  CHECK(r.violation->message.rfind("spurious null: thread 1", 0) == 0);
  CHECK(r.violation->schedule.size() == 38);
  CHECK(r.stats.complete);
  // One thread alone: served, one execution.
  const ExploreResult one = run("dynasoar", 1, "alloc:1,alloc:1", 2, std::nullopt);
  CHECK_FALSE(one.violation);
  CHECK(one.stats.executions == 1);
}

TEST_CASE("check: gallatin's swap wait meets its block again (ABA), a finding",
          "[check][gallatin]") {
  // 4 threads x (alloc, free) on one block of 2 slices: T1 takes the last slice and empties
  // the slot (no segment left); T2, whose atomicAdd came too late, waits for the slot to stop
  // holding block 0. T1's free brings the block back, T3 fetches it into the slot again, and T2
  // sees block 0 there still: it waits for a swap that only another alloc would make.
  const ExploreResult r = run("gallatin", 4, "alloc:1,free", 2, 3u);
  REQUIRE(r.violation);
  CHECK(r.violation->message.rfind("deadlock", 0) == 0);
  CHECK(r.violation->message.find("buffer slot 0") != std::string::npos);
  // 3 threads cannot: the block must come back between the late add and the wait.
  CHECK_FALSE(run("gallatin", 3, "alloc:1,free", 2, 3u).violation);
}

TEST_CASE("check: ouro-page-queue, 3 threads x (alloc, free) on 2 chunks, 3 preemptions",
          "[check][ouro]") {
  // A ring of 2 slots, empty, and 2 chunks of one 8 KB page: two growers take them, the third
  // waiter's grow finds no chunk left (or the ring's admission full) and gets null.
  const ExploreResult r = run("ouro-page-queue", 3, "alloc:1,free", 2, 3u);
  CHECK_FALSE(r.violation);
  CHECK(r.stats.complete);
  CHECK(r.stats.executions > 10000);
  // One thread: alloc grows (the only page), free puts it in the ring, alloc takes it back.
  const ExploreResult one = run("ouro-page-queue", 1, "alloc:1,free,alloc:1", 1, std::nullopt);
  CHECK_FALSE(one.violation);
  CHECK(one.stats.executions == 1);
  // The semaphore's RMW torn: two fast-path subtractions overwrite each other's and C is lost.
  const ExploreResult torn = run("ouro-page-queue", 2, "alloc:1", 2, std::nullopt, true);
  REQUIRE(torn.violation);
}
