// ouro-p-s (Ouroboros variant P, standard rings) in the simulator: step counts worked by hand from
// Alg. 2-3, chunk allocations, out of memory without a hang, reuse after free, warp aggregation.
#include <catch2/catch.hpp>

#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "ouro_test_support.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using test::in_mode;

namespace {

Scenario empty_pool(std::uint64_t N, std::uint64_t chunks, unsigned units) {
  return test::ouro_empty_pool(Algorithm::ouro_p_s, N, chunks, units);
}

}  // namespace

// Worked from Alg. 2-3 for one request at a time on an empty pool of one class with p pages per
// chunk. A request that finds a page: the fast path's subtraction (l.2), front, its slot = 3.
// The grower (every p-th request, the semaphore being empty): the subtraction and its undo,
// CAS (grow), admission add, chunk counter add, the chunk id read, the class byte, signal, back,
// p slot CASes, then, having seen the semaphore short, a read before the 3 of a request that
// finds a page = 13 + p. So with G = ceil(N / p) growers, steps = 3 N + (10 + p) G, and the pool
// gives out exactly G chunks.
TEST_CASE("ouro-p-s sequential steps: 3 per request, 13 + p for the grower of each chunk",
          "[cpu_sim][ouro]") {
  const unsigned units = GENERATE(1u, 2u, 16u, 100u, 512u);
  const std::uint64_t N = GENERATE(1u, 511u, 512u, 2000u);
  const unsigned k = ouro::page_class_of_units(units);
  const std::uint64_t p = ouro::pages_per_chunk(k);
  const std::uint64_t growers = (N + p - 1) / p;
  Scenario s = empty_pool(N, growers + 3, units);
  CAPTURE(units, N, p);
  const RunResult r = run_once(s, in_mode(Mode::sequential), 0);
  CHECK(r.failed == 0);
  std::uint64_t steps = 0;
  for (auto x : r.steps) steps += x;
  CHECK(steps == 3 * N + (10 + p) * growers);
  // Exactly `growers` requests took more than 3 steps.
  CHECK(static_cast<std::uint64_t>(std::count(r.steps.begin(), r.steps.end(), 13 + p)) == growers);
  // Chunks handed out: the units in use lie in `growers` chunks, a page per request.
  CHECK(test::chunks_touched(r, s.T / 512) == growers);
  // Every page starts at a multiple of its class's size within its chunk.
  for (auto f : r.first_page) CHECK(static_cast<std::uint64_t>(f) % (std::uint64_t{1} << k) == 0);
}

TEST_CASE("ouro-p-s out of memory: exactly the pool's pages, then null, in every mode, no hang",
          "[cpu_sim][ouro]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  const unsigned units = GENERATE(1u, 64u);
  const std::uint64_t chunks = 2;
  const std::uint64_t p = ouro::pages_per_chunk(ouro::page_class_of_units(units));
  Scenario s = empty_pool(3 * chunks * p + 5, chunks, units);
  CAPTURE(mode_name(mode), units);
  // Every grower past the second finds no chunk, withdraws its promise, and the reservers it
  // covered leave their wait and fail in turn: the run ends, with every page served.
  const RunResult r = run_once(s, in_mode(mode), 0);
  CHECK(r.taken == chunks * p * units);
  CHECK(r.failed == s.N - chunks * p);
}

TEST_CASE("ouro-p-s frees go back to their queue and are served before any new chunk",
          "[cpu_sim][ouro]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  Scenario s = empty_pool(1000, 4, 1);  // 1000 of 16 B: two chunks of 512 pages
  const SimOptions o = in_mode(mode);
  auto a = make_allocator(s, o, 1);
  const RunResult first = a->allocate(1);
  REQUIRE(first.failed == 0);
  for (auto f : first.first_page) a->free(static_cast<std::uint64_t>(f), 1);
  CHECK(a->free_count() == s.T);
  const RunResult again = a->allocate(2);
  CHECK(again.failed == 0);
  // The same two chunks: no grower, so (sequential) every request takes the 3 steps of a hit.
  for (auto f : again.first_page) CHECK(static_cast<std::uint64_t>(f) < 2 * 512);
  if (mode == Mode::sequential)
    for (auto x : again.steps) CHECK(x == 3);
  // A double free is an error.
  a->free(static_cast<std::uint64_t>(again.first_page[0]), 1);
  CHECK_THROWS_AS(a->free(static_cast<std::uint64_t>(again.first_page[0]), 1), VerificationError);
  // More units than its page holds is not something ouro-p-s handed out.
  CHECK_THROWS_AS(a->free(static_cast<std::uint64_t>(again.first_page[1]), 2), VerificationError);
}

TEST_CASE("ouro-p-s lockstep aggregates a warp: its lanes finish together", "[cpu_sim][ouro]") {
  Scenario s = empty_pool(96, 2, 1);
  s.lanes = 32;
  const RunResult r = run_once(s, in_mode(Mode::lockstep), 0);
  CHECK(r.failed == 0);
  // One group per warp (one class): every lane of a warp has the group's rounds.
  for (std::uint64_t w = 0; w < 3; ++w)
    for (std::uint64_t l = 1; l < 32; ++l) CHECK(r.steps[32 * w + l] == r.steps[32 * w]);
  // One chunk serves all 96 (512 pages). Its grower signals before it writes the 512 indices
  // (Alg. 3 l.2-9), so the other warps are served from the first slots while it writes; only the
  // grower's warp waits for all 512 writes.
  std::uint64_t long_warps = 0;
  for (std::uint64_t w = 0; w < 3; ++w) long_warps += r.steps[32 * w] > 512;
  CHECK(long_warps == 1);
}

TEST_CASE("Ouroboros mixed classes: each thread's page is of its class", "[cpu_sim][ouro]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  const Algorithm algo = GENERATE(Algorithm::ouro_p_s, Algorithm::ouro_c_s, Algorithm::ouro_p_va);
  CAPTURE(name(algo));
  Scenario s = test::ouro_empty_pool(algo, 200, 256, 1);
  SimOptions o = in_mode(mode);
  for (std::uint64_t i = 0; i < s.N; ++i)
    o.pages_per_thread.push_back(static_cast<unsigned>(1 + (i * 37) % 512));
  const RunResult r = run_once(s, o, 0);
  CHECK(r.failed == 0);
  for (std::uint64_t i = 0; i < s.N; ++i) {
    const unsigned k = ouro::page_class_of_units(o.pages_per_thread[i]);
    CHECK(static_cast<std::uint64_t>(r.first_page[i]) % (std::uint64_t{1} << k) == 0);
  }
}

TEST_CASE("ouro-p-s input: a pool under one chunk, a request over 8 KiB", "[cpu_sim][ouro]") {
  Scenario s = empty_pool(10, 1, 1);
  s.T = s.A = 511;
  CHECK_THROWS_AS(check_input(s, SimOptions{}), InputError);
  s = empty_pool(10, 1, 513);
  try {
    check_input(s, SimOptions{});
    FAIL("a request of 513 units was accepted");
  } catch (const InputError& e) {
    CHECK(e.parameter() == "--pages");
  }
  s = empty_pool(10, 1, 512);
  CHECK_NOTHROW(check_input(s, SimOptions{}));
}

// --queue-capacity: the pages one class's queue holds. Above what the semaphore counts, or below
// what the requests take in their class, it is an input error naming it; a smaller queue than a
// run of mixed sizes reaches (where the check cannot know the classes' shares) fails the grows
// past it as out of memory, never more pages than it holds.
TEST_CASE("Ouroboros --queue-capacity: input errors, and a class never holds more",
          "[cpu_sim][ouro]") {
  const Algorithm algo = GENERATE(Algorithm::ouro_p_s, Algorithm::ouro_c_s, Algorithm::ouro_p_va);
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(name(algo), mode_name(mode));
  Scenario s = test::ouro_empty_pool(algo, 2000, 16, 1);
  SimOptions o = in_mode(mode);
  auto error_on = [&](std::uint32_t capacity) {
    o.queue_capacity = capacity;
    try {
      check_input(s, o);
    } catch (const InputError& e) {
      return e.parameter();
    }
    return std::string();
  };
  CHECK(error_on(1572864) == "--queue-capacity");  // 2^21 - 2^19: one more than C counts
  CHECK(error_on(2047) == "--queue-capacity");     // 2000 x 16 B take 4 chunks = 2048 pages
  CHECK(error_on(2048).empty());
  // Mixed sizes: every request of 16 B here, but given per thread, so the check leaves it to
  // the run: a queue of 1024 pages serves 1024 of the 2000 and fails the rest.
  o.queue_capacity = 1024;
  o.pages_per_thread.assign(s.N, 1);
  const RunResult r = run_once(s, o, 0);
  CHECK(r.taken == 1024);
  CHECK(r.failed == s.N - 1024);
}
