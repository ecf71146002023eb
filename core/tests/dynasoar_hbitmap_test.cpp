// DynaSOAr's hierarchical bitmap (core/dynasoar/hbitmap.hpp) against independent references: the
// level count worked by hand (and the paper's Listing 1: 262,144 blocks -> 3 levels), random
// operation sequences against a std::set of set bits for many sizes (1 .. 64^3 + 5, powers of 64
// and their neighbours), Def. 1 after every operation, try_find_set's cost (L loads, no atomics)
// and its choice (with rotation 0 the smallest set bit; on one container the first set bit at or
// after the rotation, cyclically), indices() against the set, and a checker that does catch a
// broken bitmap.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/hbitmap.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::dynasoar;

namespace {
using A = alloclab::ouro::HostAtomics;

BitmapCounts run(BitOp<A> op, const HBitmap& b) {
  BitmapCounts c;
  REQUIRE(run_bit_op(op, b, c, 64));
  return c;
}
std::int64_t find(const HBitmap& b, unsigned rot, BitmapCounts& c) {
  FindOp<A> op(b, rot);
  REQUIRE(run_bit_op(op, b, c, 64));
  return op.result();
}
}  // namespace

TEST_CASE("dynasoar bitmap: L = ceil(log64 N) levels and at least one", "[dynasoar][hbitmap]") {
  // Worked by hand: 64 bits fit one container; 65 need two and a level above them; 64^2 bits
  // have 64 containers, one word above; 64^2 + 1 need 65 containers, so two words above and a
  // third level. Listing 1's 16,777,216 objects are 262,144 blocks = 64^3: 3 levels.
  const std::vector<std::pair<std::uint64_t, unsigned>> cases = {
      {1, 1},    {63, 1},     {64, 1},     {65, 2},     {4095, 2},  {4096, 2},
      {4097, 3}, {262143, 3}, {262144, 3}, {262145, 4}, {262149, 4}};
  for (const auto& [bits, levels] : cases) {
    CAPTURE(bits);
    CHECK(hb_levels(bits) == levels);
  }
  // Words per level for 4097 bits: 65 containers, 2 above them, 1 at the top.
  CHECK(hb_level_words(4097, 0) == 65);
  CHECK(hb_level_words(4097, 1) == 2);
  CHECK(hb_level_words(4097, 2) == 1);
  CHECK(hb_total_words(4097) == 68);
}

TEST_CASE("dynasoar bitmap: random operations agree with a std::set and keep Def. 1",
          "[dynasoar][hbitmap]") {
  const std::uint64_t big = 64ull * 64 * 64;
  const std::vector<std::uint64_t> sizes = {1,    2,    63,   64,      65,  127,     128,    4095,
                                            4096, 4097, 5000, big - 1, big, big + 1, big + 5};
  for (const std::uint64_t M : sizes) {
    for (std::uint64_t seed = 1; seed <= (M > 5000 ? 3u : 12u); ++seed) {
      CAPTURE(M, seed);
      HBitmapStorage st(M);
      const HBitmap& b = st.bitmap;
      std::set<std::uint64_t> ref;
      std::mt19937_64 rng(seed * 7919 + M);
      const unsigned L = hb_levels(M);
      const int ops = M > 5000 ? 300 : 600;
      for (int k = 0; k < ops; ++k) {
        const unsigned what = static_cast<unsigned>(rng() % 4);
        const std::uint64_t pos = rng() % M;
        if (what == 0 && !ref.count(pos)) {  // set a clear bit (a legal set)
          const BitmapCounts c = run(BitOp<A>(BitOpKind::set, pos), b);
          // It climbs exactly as far as the containers on its way were empty.
          unsigned expect_levels = 1;
          for (std::uint64_t p = pos; expect_levels < L; p /= 64, ++expect_levels) {
            bool container_empty = true;
            for (const std::uint64_t s : ref) {
              std::uint64_t q = s;
              for (unsigned up = 1; up < expect_levels; ++up) q /= 64;
              container_empty = container_empty && q / 64 != p / 64;
            }
            if (!container_empty) break;
          }
          CHECK(c.levels == expect_levels);
          CHECK(c.set_spins == 0);
          ref.insert(pos);
        } else if (what == 1 && !ref.empty()) {  // clear a set bit
          auto it = ref.lower_bound(pos);
          if (it == ref.end()) it = ref.begin();
          const BitmapCounts c = run(BitOp<A>(BitOpKind::clear, *it), b);
          CHECK(c.clear_spins == 0);
          CHECK(c.atomics == c.levels);
          ref.erase(it);
        } else if (what == 2) {  // try_clear any bit: succeeds iff it was set
          BitOp<A> op(BitOpKind::try_clear, pos);
          BitmapCounts c;
          REQUIRE(run_bit_op(op, b, c, 64));
          CHECK(op.succeeded() == (ref.erase(pos) == 1));
        } else {  // try_find_set: L loads, no atomics; the choice checked below
          const unsigned rot = static_cast<unsigned>(rng() % 64);
          BitmapCounts c;
          const std::int64_t got = find(b, rot, c);
          CHECK(c.atomics == 0);
          if (ref.empty()) {
            CHECK(got == kNoBit);
            CHECK(c.loads == 1);  // the top word is empty
          } else {
            REQUIRE(got != kNoBit);
            CHECK(ref.count(static_cast<std::uint64_t>(got)) == 1);
            CHECK(c.loads == L);
            CHECK(c.find_fails == 0);
            BitmapCounts c0;
            CHECK(find(b, 0, c0) == static_cast<std::int64_t>(*ref.begin()));
            if (M <= 64) {  // one container: the first set bit at or after rot, cyclically
              auto it = ref.lower_bound(rot);
              CHECK(got == static_cast<std::int64_t>(it == ref.end() ? *ref.begin() : *it));
            }
          }
        }
        REQUIRE(hbitmap_consistency_error(b).empty());
      }
      const std::vector<std::uint64_t> idx = hbitmap_indices(b);
      CHECK(idx == std::vector<std::uint64_t>(ref.begin(), ref.end()));
    }
  }
}

TEST_CASE("dynasoar bitmap: the first set of an empty bitmap climbs all L levels",
          "[dynasoar][hbitmap]") {
  // 64^2 + 1 bits, 3 levels: setting bit 4096 writes level 0 word 64, level 1 word 1 bit 0 and
  // level 2 bit 1 (worked by hand); its neighbour 4097 then touches level 0 only.
  HBitmapStorage st(4097);
  const HBitmap& b = st.bitmap;
  BitmapCounts c = run(BitOp<A>(BitOpKind::set, 4096), b);
  CHECK(c.levels == 3);
  CHECK(c.atomics == 3);
  CHECK(b.word(0, 64) == 1);
  CHECK(b.word(1, 1) == 1);
  CHECK(b.word(2, 0) == 2);
  // 4095 is in container 63 (empty), marked by level 1 word 0 bit 63 (word 0 empty), marked by
  // level 2 bit 0: three levels again, the top word already non-empty.
  c = run(BitOp<A>(BitOpKind::set, 4095), b);
  CHECK(c.levels == 3);
  CHECK(b.word(1, 0) == std::uint64_t{1} << 63);
  CHECK(b.word(2, 0) == 3);
  c = run(BitOp<A>(BitOpKind::set, 4094), b);  // container 63 is not empty: one level
  CHECK(c.levels == 1);
  // Clearing 4096 empties container 64 and level 1's word 1: back up to level 2.
  c = run(BitOp<A>(BitOpKind::clear, 4096), b);
  CHECK(c.levels == 3);
  CHECK(b.word(2, 0) == 1);
  CHECK(hbitmap_consistency_error(b).empty());
}

TEST_CASE("dynasoar bitmap: the checker catches each kind of broken bitmap",
          "[dynasoar][hbitmap]") {
  HBitmapStorage st(200);  // 4 containers, one word above
  const HBitmap& b = st.bitmap;
  std::vector<bool> set(200, false);
  set[3] = set[130] = true;
  hbitmap_assign(b, set);
  REQUIRE(hbitmap_consistency_error(b).empty());
  b.word(1, 0) |= 2;  // container 1 is empty but marked
  CHECK(!hbitmap_consistency_error(b).empty());
  b.word(1, 0) &= ~std::uint64_t{2};
  b.word(1, 0) &= ~std::uint64_t{4};  // container 2 holds bit 130 but is not marked
  CHECK(!hbitmap_consistency_error(b).empty());
  b.word(1, 0) |= 4;
  b.word(0, 3) |= std::uint64_t{1} << 10;  // bit 202 does not exist
  CHECK(!hbitmap_consistency_error(b).empty());
}

TEST_CASE("dynasoar bitmap: clear() claims a set bit and fails only on an empty bitmap",
          "[dynasoar][hbitmap]") {
  HBitmapStorage st(300);
  const HBitmap& b = st.bitmap;
  std::vector<bool> set(300, false);
  for (std::uint64_t i = 0; i < 300; i += 7) set[i] = true;
  hbitmap_assign(b, set);
  std::set<std::uint64_t> claimed;
  for (unsigned k = 0;; ++k) {
    ClaimOp<A> op(b, k, 3);
    BitmapCounts c;
    REQUIRE(run_bit_op(op, b, c, 64));
    if (op.result() == kNoBit) break;
    CHECK(set[static_cast<std::uint64_t>(op.result())]);
    CHECK(claimed.insert(static_cast<std::uint64_t>(op.result())).second);
    CHECK(op.lost() == 0);  // alone, a found bit is never lost
    REQUIRE(hbitmap_consistency_error(b).empty());
  }
  CHECK(claimed.size() == 43);  // 0, 7, ..., 294
}

// The GPU builds level 0 on the device and the levels above on the host (hbitmap_build_upper):
// the result must be the bitmap hbitmap_assign builds bit by bit from the same set, and stale
// upper words must not survive. Sizes across one, two and three levels, a short last word.
TEST_CASE("dynasoar bitmap: upper levels built from level 0 equal the assigned bitmap",
          "[dynasoar][hbitmap]") {
  std::mt19937_64 rng(5);
  for (const std::uint64_t n : {1ull, 64ull, 65ull, 4097ull, 64ull * 64 * 3 + 5}) {
    INFO("N = " << n);
    for (const double density : {0.0, 0.001, 0.5}) {
      std::vector<bool> set(n);
      std::bernoulli_distribution bit(density);
      for (std::uint64_t i = 0; i < n; ++i) set[i] = bit(rng);
      HBitmapStorage expect(n), built(n);
      hbitmap_assign(expect.bitmap, set);
      for (auto& w : built.words) w = ~std::uint64_t{0};  // stale upper levels
      for (std::uint64_t k = 0; k < hb_level_words(n, 0); ++k) built.words[k] = expect.words[k];
      hbitmap_build_upper(built.bitmap);
      CHECK(built.words == expect.words);
      CHECK(hbitmap_consistency_error(built.bitmap).empty());
    }
  }
}
