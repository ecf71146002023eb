// Gallatin's requests above 4096 B in the simulator (cpu_sim/src/gallatin.cpp over
// core/gallatin/large.hpp), in the three modes, every run verified by the simulator (no page
// handed out twice, nothing lost, the structural check at rest): each route served and freed,
// out of memory null and counted, exhaust / free everything / allocate again, small and large
// requests in one run meeting in the middle of the pool; and the pre-boot (--preboot) against
// the hand-worked wavefront of the paper's init.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "alloclab/cpu_sim/simulator.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {

constexpr std::uint64_t kSegmentPages = std::uint64_t{1} << 20;  // 16 MiB of 16 B pages
constexpr unsigned kKiB = 64;                                    // pages of 16 B in 1 KiB

Scenario pool_of(std::uint64_t N, std::uint64_t segments) {
  Scenario s;
  s.algo = Algorithm::gallatin;
  s.N = N;
  s.T = s.A = segments * kSegmentPages;
  s.pages = 1;
  s.seed = 11;
  return s;
}

const Mode kModes[] = {Mode::sequential, Mode::lockstep, Mode::threads};

// Frees everything run r handed out.
void free_all(Allocator& a, const RunResult& r, const SimOptions& o, const Scenario& s) {
  for (std::uint64_t i = 0; i < r.first_page.size(); ++i)
    if (r.first_page[i] >= 0)
      a.free(static_cast<std::uint64_t>(r.first_page[i]),
             o.pages_per_thread.empty() ? s.pages : o.pages_per_thread[i]);
}

}  // namespace

TEST_CASE("gallatin large sizes: each route served and freed in every mode",
          "[cpu_sim][gallatin][large]") {
  for (const Mode mode : kModes) {
    INFO(mode_name(mode));
    // 16 segments; per warp of 32: slices of 16 B and 4 KiB, 2 x 4 KiB (8 KiB), a 128 KiB block,
    // a 16 MiB block and 2 segments (20 MiB). 64 warps: 64 x (128 KiB + 16 MiB + 32 MiB) is far
    // more than the pool: some large ones fail, the rest is verified.
    Scenario s = pool_of(64 * 32, 16);
    SimOptions o;
    o.mode = mode;
    o.host_threads = 2;
    for (std::uint64_t i = 0; i < s.N; ++i) {
      const unsigned lane = i % 32;
      unsigned pages = lane % 2 ? 1 : 256;
      if (lane == 4) pages = 8 * kKiB;
      if (lane == 6 && i < 8 * 32) pages = 100 * kKiB;
      if (lane == 8 && i < 2 * 32) pages = static_cast<unsigned>(kSegmentPages);
      if (lane == 10 && i < 3 * 32) pages = static_cast<unsigned>(20 * kSegmentPages / 16);
      o.pages_per_thread.push_back(pages);
    }
    auto a = make_allocator(s, o, 1);
    const RunResult r = a->allocate(1);
    // 2 + 3 x 2 = 8 segments of large ones, 8 x 128 KiB, the slices: everything fits.
    CHECK(r.failed == 0);
    free_all(*a, r, o, s);
    CHECK(a->free_count() == s.T);
    const RunResult r2 = a->allocate(2);  // the state is checked at rest before and after
    CHECK(r2.failed == 0);
  }
}

TEST_CASE("gallatin large sizes: out of memory is null - exhaust, free everything, again",
          "[cpu_sim][gallatin][large]") {
  struct Case {
    unsigned pages;
    std::uint64_t fit;  // on 4 segments (hand-worked)
  };
  const Case cases[] = {
      {static_cast<unsigned>(kSegmentPages + 1), 2},  // 2 segments each
      {static_cast<unsigned>(3 * kSegmentPages), 1},  // 3 segments: one, then no run of 3
      {1024 * kKiB, 4 * 16},                          // a 1 MiB block: 16 a segment
      {32 * kKiB, 4 * 512},                           // 8 x 4 KiB slices: 512 a 16 MiB block
  };
  for (const Case& k : cases)
    for (const Mode mode : kModes) {
      INFO(k.pages << " pages, " << mode_name(mode));
      Scenario s = pool_of(k.fit + 5, 4);
      s.pages = k.pages;
      SimOptions o;
      o.mode = mode;
      o.host_threads = 2;
      auto a = make_allocator(s, o, 1);
      for (std::uint64_t round = 1; round <= 2; ++round) {
        const RunResult r = a->allocate(round);
        // 8 x 4 KiB slices come from the class-8 slots: a slot without a block left strands
        // none here (one block per slot is the last one in the pool), so exactly `fit`.
        CHECK(r.failed == 5);
        CHECK(r.taken == k.fit * k.pages);
        free_all(*a, r, o, s);
        CHECK(a->free_count() == s.T);
      }
    }
}

TEST_CASE("gallatin large sizes: small from the front, large from the back, meeting in the middle",
          "[cpu_sim][gallatin][large]") {
  for (const Mode mode : kModes) {
    INFO(mode_name(mode));
    // 8 segments; 4 requests of 3 segments (48 MiB) and 20000 slices of 4 KiB (a 16 MiB block,
    // one segment, serves 4096): more than the pool holds in any order.
    Scenario s = pool_of(20004, 8);
    SimOptions o;
    o.mode = mode;
    o.host_threads = 2;
    const auto big = static_cast<unsigned>(3 * kSegmentPages);
    for (std::uint64_t i = 0; i < s.N; ++i) o.pages_per_thread.push_back(i % 5000 == 7 ? big : 256);
    auto a = make_allocator(s, o, 1);
    const RunResult r = a->allocate(1);
    CHECK(r.failed > 0);
    // Every large one served lies above every slice: large runs come from the back of the
    // segment tree, slices' segments from the front.
    std::int64_t top_small = -1, low_big = static_cast<std::int64_t>(s.T);
    std::uint64_t bigs = 0, smalls = 0;
    for (std::uint64_t i = 0; i < s.N; ++i) {
      if (r.first_page[i] < 0) continue;
      if (o.pages_per_thread[i] == big) {
        ++bigs;
        low_big = std::min(low_big, r.first_page[i]);
      } else {
        ++smalls;
        top_small = std::max(top_small, r.first_page[i]);
      }
    }
    CHECK(bigs >= 1);
    CHECK(bigs <= 2);  // 2 x 3 segments leave 2 for slices
    CHECK(top_small < low_big);
    CHECK(low_big % kSegmentPages == 0);
    // The segments the slices used and those of the large ones add up to at most the pool.
    const std::uint64_t small_segments = static_cast<std::uint64_t>(top_small) / kSegmentPages + 1;
    CHECK(small_segments + 3 * bigs <= 8);
    CHECK(smalls <= (8 - 3 * bigs) * 4096);
    free_all(*a, r, o, s);
    CHECK(a->free_count() == s.T);
  }
}

TEST_CASE("gallatin --preboot: the paper's wavefront holds segments back (hand-worked)",
          "[cpu_sim][gallatin][preboot]") {
  // 64 segments (1 GiB, a whole pre-boot), slices of 4096 B (class 8: a block fills a segment,
  // 4 slots). The pre-boot gives classes 0-6 a segment each (132 >> k slots of blocks of
  // 64 KiB << k), class 7 two, class 8 four (segments 9-12): 13 segments. The 4096 B requests
  // then have segments 9-63, 55 of 64: at most 55 x 4096 slices, at least that less what the 4
  // slots can strand (4 x 4095). Without the pre-boot the whole pool serves them.
  for (const bool preboot : {false, true}) {
    INFO("preboot " << preboot);
    Scenario s = pool_of(64 * 4096, 64);
    s.pages = 256;
    SimOptions o;
    o.mode = Mode::lockstep;
    o.preboot = preboot;
    auto a = make_allocator(s, o, 1);
    CHECK(a->free_count() == s.T);  // the pre-boot holds blocks, no pages
    const RunResult r = a->allocate(1);
    const std::uint64_t served = r.taken / 256;
    if (preboot) {
      CHECK(served <= 55 * 4096);
      CHECK(served >= 55 * 4096 - 4 * 4095);
      std::int64_t lowest = static_cast<std::int64_t>(s.T);
      for (const std::int64_t f : r.first_page)
        if (f >= 0) lowest = std::min(lowest, f);
      CHECK(lowest == static_cast<std::int64_t>(9 * kSegmentPages));  // class 8's first block
    } else {
      // At the end a slot with no block left strands nothing of its own, but the other slots'
      // last blocks may still hold slices when their requests ran out: at most 4 x 4095.
      CHECK(served >= 64 * 4096 - 4 * 4095);
      CHECK(served > 55 * 4096);
    }
  }
}

TEST_CASE("gallatin large sizes: the simulator's atomics match the model's segment path",
          "[cpu_sim][gallatin][large]") {
  // 3 requests of 40 MiB on 10 segments, one at a time: each claims 3 segments from the back
  // with 3 leaf atomics (one vEB level) and the in-flight count's 2 (model/src/gallatin.cpp:
  // m + 2 a request).
  Scenario s = pool_of(3, 10);
  s.pages = 40u << 16;
  SimOptions o;
  o.mode = Mode::sequential;
  auto a = make_allocator(s, o, 1);
  const RunResult r = a->allocate(1);
  CHECK(r.failed == 0);
  CHECK(r.atomics_issued == 3 * (3 + 2));
}
