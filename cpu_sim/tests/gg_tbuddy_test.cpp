// gg-tbuddy in the simulator (cpu_sim/src/gg_tbuddy.cpp): the pool's reading (a tree of
// 2^ceil(log2 T) leaves, pages past T never free), n pages taking order ceil(log2 n), exact counts
// of a split from the root and of the merges back, the step bound, the input checks. The shared
// contract (conservation, no overlap, out of memory, churn) runs it from the registry
// (allocator_contract_test.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {

Scenario tbuddy(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned pages) {
  Scenario s;
  s.algo = Algorithm::gg_tbuddy;
  s.N = N;
  s.A = A;
  s.T = T;
  s.pages = pages;
  s.seed = 31;
  return s;
}
SimOptions in(Mode m, std::uint64_t bound = 0) {
  SimOptions o;
  o.mode = m;
  o.host_threads = 2;
  o.max_probes_per_request = bound;
  return o;
}
using testing::count;
using testing::parameter_of;

}  // namespace

TEST_CASE("gg-tbuddy: T pages on a tree of 2^ceil(log2 T) leaves and pages past T are never free",
          "[cpu_sim][gg-tbuddy]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  // T = 1000, every page free: 1024 leaves. Block [0, 512) is free, [512, 1024) holds the 24
  // pages that do not exist: one of two 512-page requests gets page 0, the other fails.
  const RunResult r = run_once(tbuddy(2, 1000, 1000, 512), in(mode), 0);
  CHECK(r.taken == 512);
  CHECK(r.failed == 1);
  CHECK((r.first_page[0] == 0 || r.first_page[1] == 0));
  // A power of two wastes nothing: 1024 pages serve two of them.
  const RunResult full = run_once(tbuddy(2, 1024, 1024, 512), in(mode), 0);
  CHECK(full.failed == 0);
}

TEST_CASE("gg-tbuddy: n pages take a block of 2^ceil(log2 n), aligned", "[cpu_sim][gg-tbuddy]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  // 64 free pages hold 16 blocks of 4: 16 requests of 3 pages succeed, the 17th fails.
  const RunResult r = run_once(tbuddy(17, 64, 64, 3), in(mode), 0);
  CHECK(r.failed == 1);
  CHECK(r.taken == 16 * 3);
  for (const auto f : r.first_page)
    if (f >= 0) CHECK(f % 4 == 0);
}

TEST_CASE("gg-tbuddy: one request on a whole pool splits from the root and freeing all merges back",
          "[cpu_sim][gg-tbuddy]") {
  // Sequential: exact counts. 256 pages (H = 8) as one free block.
  const SimOptions o = in(Mode::sequential);
  const RunResult one = run_once(tbuddy(1, 256, 256, 1), o, 0);
  CHECK(count(one, "waits_grew") == 8);  // orders 0..7 find nothing and grow
  CHECK(count(one, "waits_took") == 1);  // order 8 takes the root
  CHECK(count(one, "splits") == 8);
  CHECK(count(one, "lock_spins") == 0);
  CHECK(count(one, "gave_up") == 0);
  // Exhaust the pool, free everything: 128 + 64 + ... + 1 = 255 merges, seen by the next call.
  auto a = make_allocator(tbuddy(257, 256, 256, 1), o, 3);
  const RunResult r1 = a->allocate(1);
  CHECK(r1.taken == 256);
  CHECK(r1.failed == 1);
  for (const auto f : r1.first_page)
    if (f >= 0) a->free(static_cast<std::uint64_t>(f), 1);
  CHECK(a->free_count() == 256);
  const RunResult r2 = a->allocate(2);  // checks the tree at rest first: one Available root
  CHECK(count(r2, "free_merges") == 255);
  // One try-wait per level a free reaches below the root: 255 that merged, plus the last of each
  // free but the one that merged up to the root, which has no buddy (try-wait looks at C alone:
  // it may take a unit whose node is not the buddy, and gives it back).
  CHECK(count(r2, "free_try_waits_took") + count(r2, "free_try_waits_empty") == 255 + 255);
  CHECK(count(r2, "free_try_waits_took") >= 255);
  CHECK(r2.taken == 256);
  CHECK(r2.failed == 1);
}

TEST_CASE("gg-tbuddy: a request at its step bound gives up and leaves the tree whole",
          "[cpu_sim][gg-tbuddy]") {
  // Lockstep: 512 threads on one semaphore word, 6 steps each: most are still waiting.
  SECTION("lockstep") {
    auto a = make_allocator(tbuddy(512, 512, 512, 1), in(Mode::lockstep, 6), 1);
    const RunResult r = a->allocate(1);  // checks the tree at rest at its end
    CHECK(r.failed > 0);
    CHECK(count(r, "gave_up") == r.failed);  // A = N: no request failed for want of pages
    CHECK(r.taken + r.failed == 512);
    for (std::uint64_t i = 0; i < r.steps.size(); ++i)
      if (r.first_page[i] < 0) CHECK(r.steps[i] >= 6);
    for (const auto f : r.first_page)
      if (f >= 0) a->free(static_cast<std::uint64_t>(f), 1);
    const RunResult again = a->allocate(2);
    CHECK(again.taken + again.failed == 512);
  }
  // Sequential from one free block of 2^9: growing to the root takes 2 steps per order, so 5
  // steps never reach it; every grower below signals its failure, nothing is lost.
  SECTION("sequential") {
    const RunResult r = run_once(tbuddy(20, 512, 512, 1), in(Mode::sequential, 5), 0);
    CHECK(r.taken == 0);
    CHECK(r.failed == 20);
    CHECK(count(r, "gave_up") == 20);
  }
}

TEST_CASE("gg-tbuddy: input errors name the parameter", "[cpu_sim][gg-tbuddy]") {
  CHECK(parameter_of(tbuddy(10, 100, std::uint64_t{1} << 22, 1), {}).empty());
  CHECK(parameter_of(tbuddy(10, 100, (std::uint64_t{1} << 22) + 1, 1), {}) == "--T");
  CHECK(parameter_of(tbuddy(10, 100, 1000, 512), {}).empty());
  CHECK(parameter_of(tbuddy(10, 100, 1000, 513), {}) == "--pages");  // a block of 1024 > T
  CHECK(parameter_of(tbuddy(10, 100, 1000, 0), {}) == "--pages");
  SimOptions mixed;
  mixed.pages_per_thread.assign(10, 1);
  mixed.pages_per_thread[4] = 600;
  CHECK(parameter_of(tbuddy(10, 100, 1000, 1), mixed) == "--pages");
  CHECK(parameter_of(tbuddy(std::uint64_t{1} << 21, 100, 1000, 1), in(Mode::lockstep)) == "--N");
  CHECK(parameter_of(tbuddy(std::uint64_t{1} << 21, 100, 1000, 1), in(Mode::sequential)).empty());
}
