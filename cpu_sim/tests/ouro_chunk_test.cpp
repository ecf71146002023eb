// ouro-c-s (Ouroboros variant C, standard rings) in the simulator: step counts worked by hand from
// Alg. 2 and 4-5, chunk allocations, out of memory without a hang, frees and the flash of a
// wholly free chunk back to reuse under another class, warp aggregation, concurrent churn.
#include <catch2/catch.hpp>

#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/chunk_state.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "ouro_test_support.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using test::chunks_touched;
using test::in_mode;

namespace {

Scenario empty_pool(std::uint64_t N, std::uint64_t chunks, unsigned units) {
  return test::ouro_empty_pool(Algorithm::ouro_c_s, N, chunks, units, 91);
}

}  // namespace

// Worked from Alg. 2 and 4-5 for one request at a time on an empty pool, one class with p pages
// per chunk and one mask word (p <= 64). A request that finds a page: the fast path's
// subtraction; front, back, the slot, the chunk's count read and subtraction, its mask word and
// the AND on it = 8.
// The grower (the semaphore empty): the subtraction and its undo, CAS (grow); the class's pages
// (admission); the reuse queue's
// fill count and its undo (empty); the chunk counter and the chunk id; class, one mask word, the
// epoch, flags, count += p; the flags read and CAS, back, the slot CAS and the entry's position;
// signal; then a read and the subtraction; and the 7 of a take = 28. The request that takes a
// chunk's last page (DEQUEUE at front) also removes its entry: CAS front, the slot, the
// position's CAS, the flags read and CAS, and the count read again = 6. With G = ceil(N / p)
// growers and floor(N / p) chunks used up: steps = 8 (N - G) + 28 G + 6 floor(N / p), and
// exactly G chunks are handed out.
TEST_CASE("ouro-c-s sequential steps: 8 per request, 28 for a grower, 6 more to empty a chunk",
          "[cpu_sim][ouro]") {
  const unsigned units = GENERATE(8u, 64u, 100u, 512u);
  const std::uint64_t N = GENERATE(1u, 63u, 64u, 200u);
  const unsigned k = ouro::page_class_of_units(units);
  const std::uint64_t p = ouro::pages_per_chunk(k);
  REQUIRE(ouro::mask_words(k) == 1);
  const std::uint64_t growers = (N + p - 1) / p;
  Scenario s = empty_pool(N, growers + 3, units);
  CAPTURE(units, N, p);
  const RunResult r = run_once(s, in_mode(Mode::sequential), 0);
  CHECK(r.failed == 0);
  std::uint64_t steps = 0;
  for (auto x : r.steps) steps += x;
  CHECK(steps == 8 * (N - growers) + 28 * growers + 6 * (N / p));
  CHECK(chunks_touched(r, s.T / 512) == growers);
}

// With several mask words (16-64 B pages) a request alone scans from the first word, and reads
// each word its chunk has already emptied: the j-th request on a chunk takes floor(j / 64) more
// steps than above. Worked for 2000 requests of 16 B (chunks of 512 pages, 8 words): a full
// chunk 35 + 511 * 8 + 1792 + 6 = 5921, the last (464 requests) 35 + 463 * 8 + 1456 = 5195.
TEST_CASE("ouro-c-s sequential, several mask words: one read per emptied word", "[cpu_sim][ouro]") {
  Scenario s = empty_pool(2000, 6, 1);
  const RunResult r = run_once(s, in_mode(Mode::sequential), 0);
  CHECK(r.failed == 0);
  std::uint64_t steps = 0;
  for (auto x : r.steps) steps += x;
  CHECK(steps == 3 * 5921 + 5195);
  CHECK(chunks_touched(r, 6) == 4);
}

TEST_CASE("ouro-c-s out of memory: exactly the pool's pages, then null, in every mode, no hang",
          "[cpu_sim][ouro]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  const unsigned units = GENERATE(1u, 64u, 512u);
  const std::uint64_t chunks = 2;
  const std::uint64_t p = ouro::pages_per_chunk(ouro::page_class_of_units(units));
  Scenario s = empty_pool(3 * chunks * p + 5, chunks, units);
  CAPTURE(mode_name(mode), units);
  const RunResult r = run_once(s, in_mode(mode), 0);
  CHECK(r.taken == chunks * p * units);
  CHECK(r.failed == s.N - chunks * p);
}

// Frees come back: fill the pool, free everything (each chunk is flashed to the reuse queue at
// its last free), fill it again: every page is served again, from the same chunks. (Retyping a
// flashed chunk to another class: core/tests/ouro_chunk_queue_test.cpp.)
TEST_CASE("ouro-c-s a freed pool serves all its pages again", "[cpu_sim][ouro]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  const unsigned units = GENERATE(1u, 16u);
  CAPTURE(mode_name(mode), units);
  const std::uint64_t chunks = 4;
  const std::uint64_t p = ouro::pages_per_chunk(ouro::page_class_of_units(units));
  Scenario s = empty_pool(chunks * p, chunks, units);
  auto a = make_allocator(s, in_mode(mode), 1);
  for (std::uint64_t round = 1; round <= 3; ++round) {
    const RunResult r = a->allocate(round);
    CHECK(r.failed == 0);
    CHECK(chunks_touched(r, chunks) == chunks);
    for (auto f : r.first_page) a->free(static_cast<std::uint64_t>(f), units);
    CHECK(a->free_count() == s.T);
  }
}

TEST_CASE("ouro-c-s frees: a double free and a foreign unit are errors", "[cpu_sim][ouro]") {
  Scenario s = empty_pool(100, 2, 1);
  auto a = make_allocator(s, in_mode(Mode::sequential), 1);
  const RunResult r = a->allocate(1);
  REQUIRE(r.failed == 0);
  a->free(static_cast<std::uint64_t>(r.first_page[0]), 1);
  CHECK_THROWS_AS(a->free(static_cast<std::uint64_t>(r.first_page[0]), 1), VerificationError);
  CHECK_THROWS_AS(a->free(static_cast<std::uint64_t>(r.first_page[1]), 2), VerificationError);
}

TEST_CASE("ouro-c-s lockstep aggregates a warp's semaphore wait", "[cpu_sim][ouro]") {
  Scenario s = empty_pool(96, 2, 1);
  const RunResult r = run_once(s, in_mode(Mode::lockstep), 0);
  CHECK(r.failed == 0);
  for (std::uint64_t w = 0; w < 3; ++w)
    for (std::uint64_t l = 1; l < 32; ++l) CHECK(r.steps[32 * w + l] == r.steps[32 * w]);
  CHECK(chunks_touched(r, 2) == 1);  // 96 pages of 16 B: one chunk of 512
}

// A class's semaphore counts its free pages in 21 bits (at most 1,572,863 with alloclab's bias),
// so a class holds at most 2^20 pages: on a pool of 3 * 2^20 units of 16 B, 16 B requests stop
// at 2^20 (the grow that would pass it fails as queue_full, counted as out of memory) while the
// pool still has chunks for another class.
TEST_CASE("ouro-c-s a class holds at most 2^20 pages (its semaphore's range)", "[cpu_sim][ouro]") {
  const std::uint64_t pages = std::uint64_t{1} << 20;
  Scenario s = empty_pool(pages + 1000, 3 * pages / 512, 1);
  const RunResult r = run_once(s, in_mode(Mode::sequential), 0);
  CHECK(r.taken == pages);
  CHECK(r.failed == 1000);
}
