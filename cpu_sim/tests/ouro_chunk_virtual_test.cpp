// ouro-c-va and ouro-c-vl (Ouroboros variant C over virtualized array and linked queues, Winter
// et al., ICS'20, Alg. 4-5 and §5) in the simulator: step counts worked by hand, out of memory
// where the Queue-Chunks a class keeps in the pool leave it, and every page freed and served again
// after the pool ran out, in every mode.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/cpu_sim/simulator.hpp"
#include "ouro_test_support.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using test::in_mode;
using test::total_steps;

// Worked from Alg. 4-5 and §5 for one request at a time on an empty pool (the queue positions are
// the growers': grower g's chunk at position g, taken out by the request that empties it).
// ouro-c-s's steps (ouro_chunk_test.cpp): 16 B (p = 512, W = 8): 35 for a grower, 8 + j / 64 for
// the j-th request on a chunk, + 6 for its last; 8 KiB (p = 1, W = 1): 34 a request. Then:
//  both: a grower reads its class's reserve of Queue-Chunks and commits its fresh chunk (2); the
//      first commits the reserve (the add and the CAS: 2);
//  VA: every walk finds its Queue-Chunk (reference, start: 2), so does every publish (2); the
//      first publish prepares chunks 0 and 1 fresh (spare head, chunk counter and id, count of
//      drawn chunks, count, 1024 empty entries, start, reference: 1031 each); a removal counts
//      itself (1), the 1024th of a chunk gives it back (reference, spare head, next, CAS, count of
//      spares: 5); a later first item's publish takes that chunk from the spare stack (head,
//      next, CAS, count of spares, count, start, reference: 7).
//  VL: walks from front and publishes from back find their chunk with 2 loads; the first publish
//      draws chunk 0 (1031, with its next reset), sets front, back, old and the trail count (4),
//      draws chunk 1 and links it (1032); a later first item follows back's next (2), draws (1031
//      fresh while the trail holds chunks back, 7 from the spare stack after), links it and moves
//      back (2); the 1024th removal of a chunk moves front (next, CAS, trail, the next chunk's
//      count: 4) and, past a trail of 10, gives old's chunk to the spare stack (old, next, CAS,
//      trail, then head, next, CAS, count of spares: 8).
TEST_CASE("ouro-c-va and -vl sequential steps, worked by hand", "[cpu_sim][ouro][vqueue]") {
  struct Case {
    Algorithm algo;
    std::uint64_t N;
    unsigned units;
    std::uint64_t chunks;
    std::uint64_t steps;
  };
  for (const Case c : {
           // One request of 16 B, a grower: 35 + 2 (walk) + 2 (publish) + 4 (reserve) + 2062.
           Case{Algorithm::ouro_c_va, 1, 1, 64, 2105},
           // 35 + 2 + 4 + (2 x 1031 + 4 + 1).
           Case{Algorithm::ouro_c_vl, 1, 1, 64, 2108},
           // 5000 of 16 B: ouro-c-s's 57460, + 2 x 5000 walks, + 4 x 10 growers + 2 + 2062,
           // + 9 removals.
           Case{Algorithm::ouro_c_va, 5000, 1, 64, 69573},
           // VL: publishes after the first find their chunk with 2 (9 x 2), the first 2067.
           Case{Algorithm::ouro_c_vl, 5000, 1, 64, 69576},
           // 2100 of 8 KiB: every request grows, takes its page and removes its entry:
           // 34 + 2 + 2 + 2 + 1 = 41 each, + 2 + 2062, + 7 at g = 1024 and 2048, + 5 at
           // g = 1023 and 2047.
           Case{Algorithm::ouro_c_va, 2100, 512, 2130, 88188},
           // 34 + 2 + 2 + 1 = 39 each, + 2 + 2067 at g = 0, + 2 for each later publish,
           // + (4 + 1031) at g = 1024 and 2048, + 4 at g = 1023 and 2047.
           Case{Algorithm::ouro_c_vl, 2100, 512, 2130, 90245},
           // 12400 of 8 KiB: VA takes every chunk after the first two from the spare stack:
           // 41 x 12400 + 2 + 2062 + 12 x 7 + 12 x 5.
           Case{Algorithm::ouro_c_va, 12400, 512, 12500, 510608},
           // VL draws chunks 2 .. 11 fresh (b = 1 .. 10) and 12, 13 from the spare stack, where
           // the trail gave chunks 0 and 1 back at g = 11263 and 12287: 39 x 12400 + 2 + 2067 +
           // 2 x 12399 + 12 x 4 + 10 x 1031 + 2 x 7 + 12 x 4 + 2 x 8.
           Case{Algorithm::ouro_c_vl, 12400, 512, 12500, 520903},
       }) {
    CAPTURE(name(c.algo), c.N, c.units);
    const RunResult r = run_once(test::ouro_empty_pool(c.algo, c.N, c.chunks, c.units),
                                 in_mode(Mode::sequential), 0);
    REQUIRE(r.failed == 0);
    CHECK(total_steps(r) == c.steps);
  }
}

// A class's first grow commits the Queue-Chunks its queue can hold at once: for 20 chunks,
// ouro-c-s's ring of 64 entries, ceil(64 / 1024) + 2 = 3 (VA), and VL's trail of 10 more: 17 chunks
// of pages (VA), 7 (VL), at 16 B (512 a chunk) and at 1 KiB (8).
TEST_CASE("ouro-c-va and -vl out of memory: the pages the reserve leaves, then null",
          "[cpu_sim][ouro][vqueue]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  const Algorithm algo = GENERATE(Algorithm::ouro_c_va, Algorithm::ouro_c_vl);
  const unsigned units = GENERATE(1u, 64u);
  CAPTURE(name(algo), mode_name(mode), units);
  const std::uint64_t pages =
      (algo == Algorithm::ouro_c_va ? 17 : 7) * std::uint64_t{units == 1 ? 512u : 8u};
  // A few more requests than pages: in lockstep every request that finds none waits out the
  // others' grows, so thousands of them take a minute.
  Scenario s = test::ouro_empty_pool(algo, pages + 70, 20, units);
  const RunResult r = run_once(s, in_mode(mode), 0);
  CHECK(r.taken == pages * units);
  CHECK(r.failed == s.N - pages);
}

// After the pool ran out, every free of a chunk's first page publishes it again (new positions,
// on the Queue-Chunks the reserve keeps), a chunk wholly freed is flashed and taken out of its
// queue; then every page is served again, four times over.
TEST_CASE("ouro-c-va and -vl free every page after running out, and serve them all again",
          "[cpu_sim][ouro][vqueue]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  const Algorithm algo = GENERATE(Algorithm::ouro_c_va, Algorithm::ouro_c_vl);
  CAPTURE(name(algo), mode_name(mode));
  const std::uint64_t pages = (algo == Algorithm::ouro_c_va ? 17 : 7) * 512;
  Scenario s = test::ouro_empty_pool(algo, pages + 100, 20, 1);
  auto a = make_allocator(s, in_mode(mode), 1);
  for (std::uint64_t round = 1; round <= 4; ++round) {
    CAPTURE(round);
    const RunResult r = a->allocate(round);
    REQUIRE(r.taken == pages);
    CHECK(r.failed == 100);
    for (auto f : r.first_page)
      if (f >= 0) a->free(static_cast<std::uint64_t>(f), 1);
    CHECK(a->free_count() == s.T);
  }
}

// The counts a run reports beside its steps (RunResult::op_counts; `simulate` prints them per
// request), worked by hand for one request at a time on an empty pool:
//  * 1000 of 16 B over a ring: two growers (one semaphore CAS each), chunk 0's last page taken by
//    request 511 (DEQUEUE, its entry taken out at front), the other 999 SUCCESS; no walk passes a
//    position;
//  * 12400 of 8 KiB: every request grows, publishes and empties its chunk; VA draws 2 Queue-Chunks
//    and takes the other 12 from its spare stack, VL draws 12 (its trail holds 10 back) and
//    recycles 2;
//  * variant P reports the first six counts only (over a ring, no Queue-Chunk).
TEST_CASE("Ouroboros runs count CAS attempts, chunks, C's walk and Queue-Chunks, by hand",
          "[cpu_sim][ouro][vqueue]") {
  const auto counts = [](Algorithm a, std::uint64_t N, unsigned units, std::uint64_t chunks) {
    const RunResult r =
        run_once(test::ouro_empty_pool(a, N, chunks, units), in_mode(Mode::sequential), 0);
    REQUIRE(r.failed == 0);
    return r.op_counts;
  };
  const auto get = [](const std::vector<std::pair<std::string, std::uint64_t>>& c,
                      const std::string& key) -> std::uint64_t {
    for (const auto& [k, v] : c)
      if (k == key) return v;
    FAIL("no count " << key);
    return 0;
  };
  const auto s = counts(Algorithm::ouro_c_s, 1000, 1, 64);
  CHECK(s.size() == 17);
  CHECK(get(s, "chunks") == 2);
  CHECK(get(s, "sem_cas") == 2);
  CHECK(get(s, "success") == 999);
  CHECK(get(s, "dequeue") == 1);
  CHECK(get(s, "pops") == 1);
  CHECK(get(s, "published") == 2);
  CHECK(get(s, "traversal") == 0);
  CHECK(get(s, "queue_chunks") == 0);
  for (const Algorithm a : {Algorithm::ouro_c_va, Algorithm::ouro_c_vl}) {
    CAPTURE(name(a));
    const auto v = counts(a, 12400, 512, 12500);
    CHECK(get(v, "chunks") == 12400);
    CHECK(get(v, "dequeue") == 12400);
    CHECK(get(v, "pops") == 12400);
    CHECK(get(v, "published") == 12400);
    CHECK(get(v, "queue_chunks") == (a == Algorithm::ouro_c_va ? 2 : 12));
    CHECK(get(v, "queue_recycled") == (a == Algorithm::ouro_c_va ? 12 : 2));
  }
  const auto p = counts(Algorithm::ouro_p_s, 1000, 1, 64);
  CHECK(p.size() == 6);
  CHECK(get(p, "queue_chunks") == 0);
  CHECK(get(p, "chunks") == 2);
  CHECK(get(p, "sem_cas") == 2);
}
