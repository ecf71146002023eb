// gallatin's model (model/src/gallatin.cpp) against hand-worked counts from the algorithm.
#include <catch2/catch.hpp>

#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {
constexpr std::uint64_t kSegment = std::uint64_t{1} << 20;  // pages of 16 B in 16 MiB
Scenario point(std::uint64_t N, std::uint64_t segments, unsigned pages) {
  Scenario s;
  s.algo = Algorithm::gallatin;
  s.N = N;
  s.A = s.T = segments * kSegment;
  s.pages = pages;
  s.lanes = 32;
  return s;
}
}  // namespace

TEST_CASE("gallatin model: hand-worked atomics of the slice path", "[model][gallatin]") {
  // 10000 requests of 64 B (class 2: 33 slots, 64 blocks a segment): 40 thread blocks of 256 on
  // SMs 0..39, slot = SM mod 33: slots 0..6 serve 512 requests, 7..32 serve 256; every slot one
  // block (n < 4096): R = 33 refills, one segment (G = 1, D = 0), L = 1: the block tree's insert
  // (1), the segment tree's remove (1) and the format counted in flight (2). Atomics = 10000 +
  // 4 * 33 + 1 + 1 + 2 = 10136.
  const Record r = evaluate(point(10000, 1, 4));
  CHECK(r.number("block_refills") == 33);
  CHECK(r.number("segments_formatted") == 1);
  CHECK(*r.number("atomics_per_request") == Approx(10136.0 / 10000).epsilon(1e-12));
  // Teams of 32 would not divide 10000: no exact value.
  CHECK_FALSE(r.number("atomics_per_request_teams").has_value());

  // 2^17 requests of 4096 B (class 8: 4 slots, one block a segment) on 64 segments: 512 thread
  // blocks, SMs 0..131 cycling, slot = SM mod 4: each slot serves 2^15 slices = 8 full blocks,
  // so 9 refills (the last swap pulls a ninth): R = 36, G = D = 36 (each segment one block), L = 1
  // (64 segments fit one word): block tree 36 inserts and 36 removes, segment tree 36 removes,
  // 36 formats counted in flight (2 each).
  const Record big = evaluate(point(std::uint64_t{1} << 17, 64, 256));
  CHECK(big.number("block_refills") == 36);
  CHECK(big.number("segments_formatted") == 36);
  const double fixed = 4 * 36 + 36 + 36 + 36 + 2 * 36;
  CHECK(*big.number("atomics_per_request") == Approx((131072 + fixed) / 131072).epsilon(1e-12));
  CHECK(*big.number("atomics_per_request_teams") ==
        Approx((131072 / 32 + fixed) / 131072).epsilon(1e-12));

  // 65 segments: two levels; segment 63 is the last of leaf word 0, so its remove also clears
  // the root's bit 0 (2 atomics); each insert into and remove from the empty block tree is 2.
  const Record two = evaluate(point(std::uint64_t{1} << 17, 65, 256));
  CHECK(two.number("veb_levels") == 2);
  const double fixed2 = 4 * 36 + 2 * (36 + 36) + 36 + 2 * 36;  // no segment past 63 is used
  CHECK(*two.number("atomics_per_request") == Approx((131072 + fixed2) / 131072).epsilon(1e-12));
}

TEST_CASE("gallatin model: where it applies", "[model][gallatin]") {
  const ModelEntry& e = *ModelTable::instance().find(Algorithm::gallatin);
  CHECK(e.applies(point(1000, 1, 1)));
  Scenario s = point(1000, 1, 1);
  s.T = 1000;
  s.A = 1000;
  CHECK_FALSE(e.applies(s));  // not whole segments
  s = point(1000, 1, 1);
  s.A = s.T - 1;
  CHECK_FALSE(e.applies(s));                    // not an empty pool
  CHECK_FALSE(e.applies(point(1000, 1, 257)));  // 2 x 4 KiB slices: not modelled
  // 2^17 requests of 4096 B need 36 segments: 35 are too few.
  CHECK_FALSE(e.applies(point(std::uint64_t{1} << 17, 35, 256)));
}

TEST_CASE("gallatin model: the segment path - ceil(size / 16 MiB) segments and m + 2 atomics",
          "[model][gallatin]") {
  const ModelEntry& e = *ModelTable::instance().find(Algorithm::gallatin);
  // 40 MiB (2621440 pages of 16 B): 3 segments, claimed with 3 leaf ANDs (one vEB level) and the
  // in-flight count's add and subtract; 10 segments hold 3 of them; 40 / 48 of their bytes used.
  const unsigned forty = 40u << 16;
  REQUIRE(e.applies(point(3, 10, forty)));
  const Record r = evaluate(point(3, 10, forty));
  CHECK(r.number("segments_per_request") == 3);
  CHECK(r.number("requests_fit") == 3);
  CHECK(*r.number("atomics_per_request") == 5);
  CHECK(*r.number("utilisation") == Approx(40.0 / 48));
  CHECK_FALSE(e.applies(point(4, 10, forty)));  // 12 segments: more than the pool
  CHECK_FALSE(e.applies(point(1, 65, forty)));  // two vEB levels: not modelled
}
