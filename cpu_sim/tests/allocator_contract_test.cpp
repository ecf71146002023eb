// ONE shared test body (RMM-style) run against every allocator the registry runs in the
// simulator x every mode: conservation, no double allocation, out-of-memory handled, free +
// re-allocate (churn). A new allocator is enrolled by its registry line alone.
#include <catch2/catch.hpp>

#include <set>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;

using alloclab::sim::testing::count_used;
using alloclab::sim::testing::granule_pages;

TEST_CASE("every allocator in every mode conserves pages and never hands one out twice",
          "[cpu_sim][contract]") {
  // Every allocator the registry runs in the simulator; the cases it gets follow from its
  // capabilities, never from its name.
  const Algorithm algo = GENERATE(from_range(algorithms_on(BackendKind::sim)));
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  // Bit choices (core/bit_choice.hpp) where the allocator has them; the others run once.
  const BitChoice choice = GENERATE(BitChoice::lowest, BitChoice::random, BitChoice::rotated);
  struct Case {
    std::uint64_t N, A, T;
    unsigned w, lanes, pages;
  };
  const Case c = GENERATE(Case{200, 1000, 4000, 32, 32, 1},  // plenty of room
                          Case{100, 100, 3000, 32, 32, 1},   // A = N
                          Case{300, 100, 1000, 16, 8, 1},    // out of memory
                          Case{70, 900, 1000, 64, 32, 3},    // multi-page (one page elsewhere)
                          Case{37, 2000, 2003, 7, 5, 1});    // odd w, partial warp, T % w != 0
  const Capabilities& cap = caps(algo);
  if (!cap.chooses(choice)) return;  // a choice it does not implement
  const bool multi_page = cap.requests == RequestKind::pages;
  Scenario s;
  s.algo = algo;
  s.N = c.N;
  s.A = c.A;
  s.T = c.T;
  s.w = c.w;
  s.lanes = c.lanes;
  s.pages = multi_page ? c.pages : 1;
  s.seed = 12345;
  s.bit_choice = choice;
  // An allocator whose pool is a whole number of granules (Gallatin's 16 MiB segments) gets one
  // granule: the whole pool free where the case has room for every request, and the case's A
  // (no granule wholly free: out of memory) where it does not.
  if (const std::uint64_t granule = granule_pages(cap)) {
    s.T = granule;
    s.A = c.A >= c.N * s.pages ? s.T : c.A;
  }
  SimOptions o;
  o.mode = mode;
  o.host_threads = 2;
  CAPTURE(name(algo), mode_name(mode), name(choice), c.N, c.A, c.T, c.w, c.lanes, s.pages);

  // run_once verifies internally (throws VerificationError); check the summary too.
  const RunResult r = run_once(s, o, 0);
  REQUIRE(r.taken + r.failed * s.pages == s.N * s.pages);
  // Enough free pages serve every one-page request; n-page requests also need free runs.
  if (s.A >= s.N * s.pages && !multi_page) CHECK(r.failed == 0);
  if (s.A < s.N * s.pages) CHECK(r.failed > 0);
  std::set<std::int64_t> pages;
  for (auto f : r.first_page)
    if (f >= 0)
      for (unsigned k = 0; k < s.pages; ++k) CHECK(pages.insert(f + k).second);

  if (!cap.frees) return;  // the churn below needs a free operation
  // Churn: free every other allocation, allocate again with another seed, verify, free all.
  auto a = make_allocator(s, o, 99);
  const auto used0 = a->used_pages();
  RunResult r1 = a->allocate(1);
  auto used1 = a->used_pages();
  verify(s, o, r1, used0, used1);
  CHECK(count_used(used1, s.T) == count_used(used0, s.T) + r1.taken);
  std::uint64_t freed = 0;
  for (std::uint64_t i = 0; i < s.N; i += 2)
    if (r1.first_page[i] >= 0) {
      a->free(static_cast<std::uint64_t>(r1.first_page[i]), s.pages);
      freed += s.pages;
    }
  const auto used2 = a->used_pages();
  CHECK(count_used(used2, s.T) + freed == count_used(used1, s.T));
  CHECK(a->free_count() == s.T - count_used(used2, s.T));
  RunResult r2 = a->allocate(2);
  verify(s, o, r2, used2, a->used_pages());
  // Double free is an error, not a warning.
  for (std::uint64_t i = 0; i < s.N; ++i)
    if (r2.first_page[i] >= 0) {
      a->free(static_cast<std::uint64_t>(r2.first_page[i]), s.pages);
      CHECK_THROWS_AS(a->free(static_cast<std::uint64_t>(r2.first_page[i]), s.pages),
                      VerificationError);
      break;
    }
}

TEST_CASE("rwmalloc serves mixed request sizes, across word boundaries", "[cpu_sim][rwmalloc]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  Scenario s;
  s.algo = Algorithm::rwmalloc;
  s.N = 64;
  s.A = 600;
  s.T = 1024;
  s.w = 8;
  s.lanes = 16;
  s.seed = 7;
  SimOptions o;
  o.mode = mode;
  o.occupancy = Occupancy::contiguous;  // one free block: requests must span words
  for (std::uint64_t i = 0; i < s.N; ++i)
    o.pages_per_thread.push_back(static_cast<unsigned>(1 + i % 13));
  const RunResult r = run_once(s, o, 0);
  CHECK(r.failed == 0);
  bool spans = false;
  for (std::uint64_t i = 0; i < s.N; ++i) {
    const auto f = static_cast<std::uint64_t>(r.first_page[i]);
    spans = spans || (f / s.w != (f + o.pages_per_thread[i] - 1) / s.w);
  }
  CHECK(spans);
}

TEST_CASE("rwmalloc rejects a request longer than one window", "[cpu_sim][rwmalloc]") {
  Scenario s;
  s.algo = Algorithm::rwmalloc;
  s.N = 10;
  s.A = 500;
  s.T = 1000;
  s.lanes = 4;
  s.w = 8;  // a warp reads 4 words of 8 bits: 32 pages
  s.pages = 33;
  CHECK_THROWS_AS(check_input(s, SimOptions{}), InputError);
  s.pages = 32;
  CHECK_NOTHROW(check_input(s, SimOptions{}));
  SimOptions mixed;
  mixed.pages_per_thread.assign(s.N, 1);
  mixed.pages_per_thread[3] = 33;
  CHECK_THROWS_AS(check_input(s, mixed), InputError);
}

TEST_CASE("a violated check is an error", "[cpu_sim][verify]") {
  Scenario s;
  s.N = 2;
  s.A = 4;
  s.T = 64;
  SimOptions o;
  std::vector<std::uint64_t> before{~std::uint64_t{0} << 4}, after = before;
  RunResult r;
  r.steps = {1, 1};
  r.first_page = {1, 1};  // handed out twice
  r.taken = 2;
  after[0] |= 0b10;
  CHECK_THROWS_AS(verify(s, o, r, before, after), VerificationError);
  r.first_page = {1, 2};
  CHECK_THROWS_AS(verify(s, o, r, before, after), VerificationError);  // page 2 not marked
  after[0] |= 0b100;
  CHECK_NOTHROW(verify(s, o, r, before, after));
  r.first_page = {1, 5};  // page 5 was in use already
  CHECK_THROWS_AS(verify(s, o, r, before, after), VerificationError);
}
