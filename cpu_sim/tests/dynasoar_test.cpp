// dynasoar and bitmap-alloc in the simulator (cpu_sim/src/dynasoar.cpp, bitmap_alloc.cpp) against
// hand-worked counts: block capacity N_T = floor(64 / n) and the short last block, the slow-path
// rate's lower bound 1 / N_T reached alone, warp coalescing (one atomicOr for a warp of one type),
// out of memory ending and counted, deleted blocks re-typed, and the input errors. The shared
// contract (conservation, no overlap, out of memory, churn) runs both from the registry.
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {
Scenario ds(Algorithm a, std::uint64_t N, std::uint64_t T, unsigned pages, unsigned lanes = 32) {
  Scenario s;
  s.algo = a;
  s.N = N;
  s.A = T;
  s.T = T;
  s.pages = pages;
  s.lanes = lanes;
  s.seed = 5;
  return s;
}
SimOptions in(Mode m) {
  SimOptions o;
  o.mode = m;
  o.host_threads = 2;
  return o;
}
using testing::count;
using testing::parameter_of;
}  // namespace

TEST_CASE("dynasoar: a block holds floor(64 / n) objects of n pages and the last block what fits",
          "[cpu_sim][dynasoar]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  // (n, T, objects the heap holds), worked by hand: 10 blocks of 21 three-page objects; 2 blocks
  // of 16 four-page objects and a last block of 10 pages with 2; n = 11: 5 per block and none in
  // the 10-page tail; n = 64: one per block; n = 1 on 1000 pages: every page.
  struct Case {
    unsigned n;
    std::uint64_t T, fit;
  };
  const Case c = GENERATE(Case{3, 640, 210}, Case{4, 138, 34}, Case{11, 138, 10}, Case{64, 320, 5},
                          Case{1, 1000, 1000});
  CAPTURE(c.n, c.T);
  const RunResult r = run_once(ds(Algorithm::dynasoar, c.fit + 40, c.T, c.n), in(mode), 0);
  CHECK(r.taken == c.fit * c.n);
  CHECK(r.failed == 40);
  CHECK(count(r, "gave_up") >= 1);  // counted where it ends; a lockstep group fails its lanes
}

TEST_CASE("dynasoar: a request alone initialises a block only when the active ones are full",
          "[cpu_sim][dynasoar]") {
  // Sequential on an empty heap: the slow path runs once per N_T requests, the lower bound
  // 1 / N_T of the slow-path rate; every other request finds its block with one lookup.
  for (const unsigned n : {1u, 2u, 5u}) {
    CAPTURE(n);
    const std::uint64_t N = 300, cap = 64 / n;
    const RunResult r = run_once(ds(Algorithm::dynasoar, N, 64 * 64, n), in(Mode::sequential), 0);
    REQUIRE(r.failed == 0);
    const std::uint64_t blocks = (N + cap - 1) / cap;
    CHECK(count(r, "blocks_initialised") == blocks);
    CHECK(count(r, "reserves") == N);  // one atomicOr each, never lost alone
    CHECK(count(r, "reserve_lost") == 0);
    CHECK(count(r, "lookup_fails") == 5 * blocks);  // r = 5 lookups before each slow path
    CHECK(count(r, "rollbacks") == 0);
  }
}

TEST_CASE("dynasoar: lockstep coalescing reserves a warp's slots with one atomicOr",
          "[cpu_sim][dynasoar]") {
  // One warp of 32 one-page requests on an empty heap: the leader initialises one block and
  // takes 32 slots in one OR; 32 requests alone take 32 ORs.
  const RunResult lock = run_once(ds(Algorithm::dynasoar, 32, 64 * 8, 1), in(Mode::lockstep), 0);
  CHECK(lock.failed == 0);
  CHECK(count(lock, "reserves") == 1);
  CHECK(count(lock, "blocks_initialised") == 1);
  const RunResult seq = run_once(ds(Algorithm::dynasoar, 32, 64 * 8, 1), in(Mode::sequential), 0);
  CHECK(count(seq, "reserves") == 32);
  // A warp of 40 lanes of 2-page objects: 32 fit in the first block (one OR), 8 in a second.
  const RunResult two = run_once(ds(Algorithm::dynasoar, 40, 64 * 8, 2, 40), in(Mode::lockstep), 0);
  CHECK(two.failed == 0);
  CHECK(count(two, "reserves") == 2);
  CHECK(count(two, "blocks_initialised") == 2);
}

TEST_CASE("dynasoar: freeing a block's last object deletes it and it is initialised again",
          "[cpu_sim][dynasoar]") {
  // One block: 64 one-page objects fill it; freeing them all deletes it (the last free's
  // invalidation succeeds; the others find objects left); the next allocation initialises it
  // again. (Re-typing a deleted block: dynasoar_cases_test.cpp, Block Replaced.)
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  auto a = make_allocator(ds(Algorithm::dynasoar, 64, 64, 1), in(mode), 1);
  const RunResult r1 = a->allocate(1);
  REQUIRE(r1.failed == 0);
  CHECK(count(r1, "blocks_initialised") == 1);
  for (const auto p : r1.first_page) a->free(static_cast<std::uint64_t>(p), 1);
  CHECK(a->free_count() == 64);
  const RunResult r2 = a->allocate(2);
  CHECK(r2.failed == 0);
  CHECK(count(r2, "invalidations") == 1);
  CHECK(count(r2, "invalidated") == 1);
  CHECK(count(r2, "blocks_initialised") == 1);
}

TEST_CASE("dynasoar: input errors name the parameter", "[cpu_sim][dynasoar]") {
  Scenario s = ds(Algorithm::dynasoar, 10, 1000, 64);
  CHECK(parameter_of(s, {}).empty());
  s.pages = 65;  // more than 64 times the smallest type
  CHECK(parameter_of(s, {}) == "--pages");
  s.pages = 1;
  SimOptions mixed;
  mixed.pages_per_thread.assign(10, 1);
  mixed.pages_per_thread[4] = 100;
  CHECK(parameter_of(s, mixed) == "--pages");
  s.T = 63;  // less than one block
  s.A = 63;
  CHECK(parameter_of(s, {}) == "--T");
}

TEST_CASE("bitmap-alloc: serves every free slot and then fails and counts it",
          "[cpu_sim][dynasoar]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  Scenario s = ds(Algorithm::bitmap_alloc, 5000, 4097, 1);
  s.A = 3000;  // 3000 free slots of 4097 (3 levels)
  const RunResult r = run_once(s, in(mode), 0);
  CHECK(r.taken == 3000);
  CHECK(r.failed == 2000);
  CHECK(count(r, "gave_up") == 2000);
}

TEST_CASE("dynasoar variants: coalescing saves atomicOrs and rotation saves lost ones",
          "[cpu_sim][dynasoar]") {
  // Lockstep, 32 warps of 32 one-page requests on a heap of 256 blocks half used by the
  // application at random (so every block is an active block of type 1 with free slots).
  // Without coalescing every lane issues its own reservation (at least 1024 ORs); with it a
  // warp's group takes several slots per OR. Without rotation every group looks up the same
  // first active block and the same first free bits, so more ORs come back with nothing (Alg. 6's
  // retry).
  auto run = [](Algorithm a) {
    Scenario s = ds(a, 1024, 64 * 256, 1);
    s.A = s.T / 2;
    return run_once(s, in(Mode::lockstep), 0);
  };
  const RunResult coal = run(Algorithm::dynasoar);
  const RunResult nocoal = run(Algorithm::dynasoar_nocoal);
  const RunResult norot = run(Algorithm::dynasoar_norot);
  INFO("reserves " << count(coal, "reserves") << " " << count(nocoal, "reserves") << " "
                   << count(norot, "reserves") << "; lost " << count(coal, "reserve_lost") << " "
                   << count(nocoal, "reserve_lost") << " " << count(norot, "reserve_lost"));
  for (const RunResult* r : {&coal, &nocoal, &norot}) CHECK(r->failed == 0);
  CHECK(count(nocoal, "reserves") >= 1024);
  CHECK(count(coal, "reserves") < count(nocoal, "reserves") / 4);
  CHECK(count(norot, "reserve_lost") > 2 * count(coal, "reserve_lost"));
}
