// ouro-p-va and ouro-p-vl (Ouroboros variant P over virtualized array and linked queues, Winter
// et al., ICS'20, §5) in the simulator: step counts worked by hand, out of memory where the pool's
// reserve for the Queue-Chunks says, and every page freed and served again after the pool ran
// out (the reserve's reason to exist), in every mode.
#include <catch2/catch.hpp>

#include <algorithm>

#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "ouro_test_support.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using test::in_mode;
using test::total_steps;

namespace {

Scenario empty_pool(std::uint64_t N, std::uint64_t chunks, unsigned units) {
  return test::ouro_empty_pool(Algorithm::ouro_p_va, N, chunks, units);
}

}  // namespace

// Worked from Alg. 3 and §5.1 for one request at a time on an empty pool, p pages per chunk.
// A hit: the semaphore's subtraction, front, then its item: the reference, the chunk's virtual
// start, the exchange, the count = 6. A grower: as ouro-p-s's (subtraction, undo, CAS, admission,
// chunk counter, chunk id, class byte, signal, back: 9) plus the commit of its page chunk (1),
// 4 per page written (reference, start, CAS, count), a read of the semaphore, and the 6 of its
// own hit: 17 + 4p; and the class's committed Queue-Chunks: a read where they suffice (1); the
// first grow extends them to 3, each a read, a commit and a CAS, then a last read (10); a grow
// whose pages cross a multiple of 2048 extends them by one (4). Writing position 0 prepares chunks
// 0 and 1, both fresh: the reuse queue's fill count and its undo, the chunk counter and the id, the
// count, 2048 markers, the start and the reference = 2055 each. Later first items take a used-up
// chunk from the reuse queue (fill count, front, item, then count, start, reference = 6). The read
// of a chunk's last item gives it back: the reference and the reuse queue's fill count, back and
// item = 4.
TEST_CASE("ouro-p-va sequential steps, worked by hand", "[cpu_sim][ouro][vqueue]") {
  struct Case {
    std::uint64_t N;
    unsigned units;
    std::uint64_t steps;
  };
  for (const Case c : {
           // One request of 16 B: it grows (p = 512): 17 + 2048 + 2 x 2055 + 10.
           Case{1, 1, 6185},
           // 2000 of 16 B: 4 growers fill positions 0..2047, no chunk used up:
           // 6 x 2000 + 4 x (11 + 2048) + 4110 + 10 + 3 x 1.
           Case{2000, 1, 24359},
           // 5000 of 16 B: 10 growers (positions to 5119), first items at 2048 and 4096 take
           // chunks 0 and 1 back from the reuse queue (6 each), reads at 2047 and 4095 give
           // them back (4 each): 30000 + 10 x 2059 + 4110 + 12 + 8, and the Queue-Chunks
           // committed: 10 + 2 x 4 (at 2048 and 4096) + 7 x 1.
           Case{5000, 1, 54745},
           // 5 of 4 KiB (p = 2): 3 growers: 30 + 3 x (11 + 8) + 4110 + 10 + 2 x 1.
           Case{5, 256, 4209},
       }) {
    CAPTURE(c.N, c.units);
    const RunResult r = run_once(empty_pool(c.N, 64, c.units), in_mode(Mode::sequential), 0);
    REQUIRE(r.failed == 0);
    CHECK(total_steps(r) == c.steps);
  }
}

// A class of g page chunks of p pages keeps ceil(g p / 2048) + 2 more for its queue (VA), and VL
// its trail of 10 besides. VA in 10 chunks: 16 B (p = 512): g = 6 commits 6 + 2 + 2 = 10, g = 7
// would need 11; 1 KiB (p = 8): g = 7 commits 7 + 1 + 2. VL in 20 chunks: 6 of 16 B (6 + 2 + 2 +
// 10) and 7 of 1 KiB (7 + 1 + 2 + 10).
TEST_CASE("ouro-p-va and -vl out of memory: the pages the reserve leaves, then null, every mode",
          "[cpu_sim][ouro][vqueue]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  struct Case {
    Algorithm algo;
    std::uint64_t chunks;
    unsigned units;
    std::uint64_t pages;
  };
  const Case c = GENERATE(
      Case{Algorithm::ouro_p_va, 10, 1, 6 * 512}, Case{Algorithm::ouro_p_va, 10, 64, 7 * 8},
      Case{Algorithm::ouro_p_vl, 20, 1, 6 * 512}, Case{Algorithm::ouro_p_vl, 20, 64, 7 * 8});
  CAPTURE(name(c.algo), mode_name(mode), c.units);
  Scenario s = test::ouro_empty_pool(c.algo, 3 * c.pages + 5, c.chunks, c.units);
  const RunResult r = run_once(s, in_mode(mode), 0);
  CHECK(r.taken == c.pages * c.units);
  CHECK(r.failed == s.N - c.pages);
}

// Why the pool keeps chunks for the queue: after the pool ran out, every page freed needs an
// item on a Queue-Chunk, and variant P gives no page chunk back. All 3072 pages of the case above
// go back (positions 3072..6143: three more Queue-Chunks, taken from the reserve and from those
// used up) and are all served again.
TEST_CASE("ouro-p-va frees every page after running out, and serves them all again",
          "[cpu_sim][ouro][vqueue]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  Scenario s = empty_pool(3072 + 100, 10, 1);
  auto a = make_allocator(s, in_mode(mode), 1);
  const RunResult first = a->allocate(1);
  REQUIRE(first.taken == 3072);
  for (auto f : first.first_page)
    if (f >= 0) a->free(static_cast<std::uint64_t>(f), 1);
  CHECK(a->free_count() == s.T);
  const RunResult again = a->allocate(2);
  CHECK(again.taken == 3072);
  CHECK(again.failed == 100);
  // The same six chunks serve them: no grower.
  for (auto f : again.first_page)
    if (f >= 0) CHECK(static_cast<std::uint64_t>(f) < 10 * 512);
  // Sequential: a hit, 6, or 10 for the read that uses a Queue-Chunk up and gives it back.
  if (mode == Mode::sequential)
    for (std::uint64_t i = 0; i < s.N; ++i)
      if (again.first_page[i] >= 0) CHECK((again.steps[i] == 6 || again.steps[i] == 10));
}

TEST_CASE("ouro-p-va lockstep aggregates a warp: its lanes finish together",
          "[cpu_sim][ouro][vqueue]") {
  Scenario s = empty_pool(96, 8, 1);
  const RunResult r = run_once(s, in_mode(Mode::lockstep), 0);
  CHECK(r.failed == 0);
  for (std::uint64_t w = 0; w < 3; ++w)
    for (std::uint64_t l = 1; l < 32; ++l) CHECK(r.steps[32 * w + l] == r.steps[32 * w]);
}

// Freed after running out, the 3072 pages go to positions 3072..6143 (chunks 1 to 2 more, front
// moving past used-up ones and old trailing it), and are all served again, several times over.
TEST_CASE("ouro-p-vl frees every page after running out, and serves them all again",
          "[cpu_sim][ouro][vqueue]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  Scenario s = test::ouro_empty_pool(Algorithm::ouro_p_vl, 3072 + 100, 20, 1);
  auto a = make_allocator(s, in_mode(mode), 1);
  for (std::uint64_t round = 1; round <= 4; ++round) {
    CAPTURE(round);
    const RunResult r = a->allocate(round);
    REQUIRE(r.taken == 3072);
    CHECK(r.failed == 100);
    for (auto f : r.first_page)
      if (f >= 0) a->free(static_cast<std::uint64_t>(f), 1);
    CHECK(a->free_count() == s.T);
  }
}
