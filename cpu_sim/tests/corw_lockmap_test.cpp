// corw-lockmap: CoRW exactly as Algorithm 2, with its LockMap. A lane that finds its word
// locked (here: by a lower lane of its own warp that drew the same word) is a consumer with
// P = all ones and counts one collision; the holder shares its word's free bits in the order of
// Figure 5 (corw_share, tested step for step in corw_figure5_test.cpp) and nothing is lost.
#include <catch2/catch.hpp>

#include <set>

#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;

using alloclab::sim::testing::count_used;

TEST_CASE("corw-lockmap: two lanes drawing the same word - one holds the lock, one consumes",
          "[cpu_sim][corw][lockmap]") {
  // One word (T = w = 8, all free) and one warp of two lanes: both lanes draw word 0 in round
  // 1. Lane 0 locks it; lane 1 finds it locked (one collision) and offers nothing. Figure 5:
  // lane 0 hands out bit 0 to itself, then bit 1 to lane 1, both in round 1.
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  Scenario s;
  s.algo = Algorithm::corw_lockmap;
  s.N = 2;
  s.A = 8;
  s.T = 8;
  s.w = 8;
  s.lanes = 2;
  SimOptions o;
  o.mode = mode;
  o.host_threads = 2;
  CAPTURE(mode_name(mode));
  auto a = make_allocator(s, o, 1);
  const auto before = a->used_pages();
  const RunResult r = a->allocate(3);
  verify(s, o, r, before, a->used_pages());
  CHECK(r.collisions == 1);
  // Atomics: two lock ORs (lane 1's fails), one OR of the two handed-out bits by the holder,
  // one unlock AND = 4 atomics, 1 failed claim, no retries.
  CHECK(r.atomics_issued == 4);
  CHECK(r.failed_claims == 1);
  CHECK(r.retries == 0);
  CHECK(r.taken == 2);
  CHECK(r.failed == 0);
  CHECK(r.first_page == std::vector<std::int64_t>{0, 1});
  CHECK(r.steps == std::vector<std::uint32_t>{1, 1});
  CHECK(a->free_count() == 6);  // the six bits nobody took stay free
  CHECK(count_used(a->used_pages(), s.T) == 2);

  // The lock-free `corw` (the GPU kernel's claim) on the same case: both lanes plan bit 0 of the
  // word, lane 1's atomic OR loses it (one collision); lane 1 at once claims bit 1, the lowest
  // free bit of the value its OR returned, and wins it in the same round. The won bits are handed
  // out in Figure 5's order: lane 0 offers bit 0 to itself, lane 1 offers bit 1 to itself.
  s.algo = Algorithm::corw;
  auto b = make_allocator(s, o, 1);
  const auto before_b = b->used_pages();
  const RunResult q = b->allocate(3);
  verify(s, o, q, before_b, b->used_pages());
  CHECK(q.collisions == 1);
  // Atomics: lane 0's OR of bit 0, lane 1's losing OR of bit 0 and winning OR of bit 1.
  CHECK(q.atomics_issued == 3);
  CHECK(q.failed_claims == 1);
  CHECK(q.retries == 0);
  CHECK(q.first_page == std::vector<std::int64_t>{0, 1});
  CHECK(q.steps == std::vector<std::uint32_t>{1, 1});
  CHECK(b->free_count() == 6);
}

TEST_CASE("corw-lockmap: one collision per lane whose word a lower lane locked",
          "[cpu_sim][corw][lockmap]") {
  // One warp of 32 lanes over 64 free words: in round 1 every lane whose word a lower lane
  // already drew is a consumer. All pages are free, so every holder offers w pages and the
  // whole warp is served in round 1 with exactly (32 - distinct words) collisions.
  Scenario s;
  s.algo = Algorithm::corw_lockmap;
  s.N = 32;
  s.lanes = 32;
  s.w = 8;
  s.T = 64 * 8;
  s.A = s.T;
  SimOptions o;
  o.mode = Mode::sequential;
  const std::uint64_t seed = 11;
  std::set<std::uint64_t> words;
  for (std::uint64_t i = 0; i < s.N; ++i) words.insert(bitmap_probe_word(seed, i, 0, 64));
  const std::uint64_t expected = s.N - words.size();
  REQUIRE(expected > 0);  // this seed has lanes that draw the same word
  auto a = make_allocator(s, o, 1);
  const auto before = a->used_pages();
  const RunResult r = a->allocate(seed);
  verify(s, o, r, before, a->used_pages());
  CHECK(r.collisions == expected);
  // Atomics: 32 lock attempts of which the `expected` ones fail; each of the D = 32 - expected
  // holders hands out at least one bit in Figure 5's first pass, so D bitmap ORs and D unlocks.
  CHECK(r.atomics_issued == s.N + 2 * (s.N - expected));
  CHECK(r.failed_claims == expected);
  CHECK(r.taken == s.N);
  CHECK(r.failed == 0);
  for (auto st : r.steps) CHECK(st == 1);
  CHECK(count_used(a->used_pages(), s.T) == s.N);
  CHECK(a->free_count() == s.T - s.N);
}
