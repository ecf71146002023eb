// Gallatin's 64-ary vEB tree (core/gallatin/veb_tree.hpp) against an independent reference: a
// std::set under random insert / remove / successor / predecessor / claim sequences, hand-worked
// counts, the cost bounds (successor and predecessor <= 2L - 1 loads, claims <= L atomics when
// alone), the two level counts.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <vector>

#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gallatin;

namespace {

using V = Veb<alloclab::ouro::HostAtomics>;

// The smallest L >= 1 with 64^L >= U, by exact integer powers.
unsigned levels_by_powers(std::uint64_t u) {
  unsigned l = 1;
  for (std::uint64_t span = 64; span < u; span *= 64) ++l;
  return l;
}

std::uint64_t set_successor(const std::set<std::uint64_t>& s, std::uint64_t x) {
  const auto it = s.lower_bound(x);
  return it == s.end() ? kVebFail : *it;
}

// The largest element <= x (x may be >= U: the whole set), or kVebFail.
std::uint64_t set_predecessor(const std::set<std::uint64_t>& s, std::uint64_t x) {
  const auto it = s.upper_bound(x);
  return it == s.begin() ? kVebFail : *std::prev(it);
}

constexpr std::uint64_t k64_3 = 64ull * 64 * 64;

}  // namespace

TEST_CASE("vEB levels: the paper's ceil(log64 U) and the public (bitlen(U)-1)/6+1",
          "[core][gallatin][veb]") {
  std::vector<std::uint64_t> differ;
  for (std::uint64_t u = 1; u <= k64_3 + 5; ++u) {
    REQUIRE(veb_levels_paper(u) == levels_by_powers(u));
    const unsigned pub = static_cast<unsigned>((std::bit_width(u) - 1) / 6 + 1);
    REQUIRE(veb_levels_public(u) == pub);
    if (pub != veb_levels_paper(u)) {
      CHECK(pub == veb_levels_paper(u) + 1);
      differ.push_back(u);
    }
  }
  // Exactly at the powers of 64 (beyond 1) the public code builds one level more.
  CHECK(differ == std::vector<std::uint64_t>{64, 4096, k64_3});
  // The paper's examples: one leaf covers 64 segments; 3 levels cover 64^3 (4 TB of 16 MB).
  CHECK(veb_levels_paper(64) == 1);
  CHECK(veb_levels_paper(4096) == 2);
  CHECK(veb_levels_paper(k64_3) == 3);
  CHECK(veb_levels_paper(k64_3 + 1) == 4);
}

TEST_CASE("vEB: hand-worked counts on U = 4096 (two levels)", "[core][gallatin][veb]") {
  VebStorage st(4096);
  const VebTree& t = st.tree;
  REQUIRE(t.levels == 2);
  VebCounts c;
  // Insert 5 into the empty tree: the leaf's OR, then the root's (the word turned non-empty)
  // and one re-read of the leaf word.
  CHECK(V::insert(t, 5, c));
  CHECK(c.atomics == 2);
  CHECK(c.loads == 1);
  CHECK(c.levels == 2);
  // Insert 6: the leaf word was not empty: one OR, one level.
  c = {};
  CHECK(V::insert(t, 6, c));
  CHECK(c.atomics == 1);
  CHECK(c.levels == 1);
  CHECK_FALSE(V::insert(t, 6, c));  // present already
  CHECK(veb_check(t).empty());
  // successor(7): leaf word 0 has nothing from bit 7 (1 load); the root from bit 1 has nothing
  // (1 load): none.
  c = {};
  CHECK(V::successor(t, 7, c) == kVebFail);
  CHECK(c.loads == 2);
  // Add 4095 (leaf word 63, bit 63): successor(7) floats up to the root, finds bit 63, floats
  // down into word 63: 3 loads = 2L - 1, two levels.
  CHECK(V::insert(t, 4095, c));
  c = {};
  CHECK(V::successor(t, 7, c) == 4095);
  CHECK(c.loads == 3);
  CHECK(c.levels == 2);
  // Claim from 0: successor finds 5 in the leaf (1 load), the AND clears it (1 atomic).
  c = {};
  CHECK(V::lock_offset(t, 0, c) == 5);
  CHECK(c.atomics == 1);
  CHECK(c.restarts == 0);
  // Claim 6: word 0 empties: the root's AND and one re-read.
  c = {};
  CHECK(V::lock_offset(t, 0, c) == 6);
  CHECK(c.atomics == 2);
  // predecessor(4094): leaf word 63 below bit 62 has nothing (1 load); the root below bit 63
  // has nothing (1 load) now that 5 and 6 are gone: none. predecessor(5000) starts at 4095 and
  // finds it in the leaf: 1 load.
  c = {};
  CHECK(V::predecessor(t, 4094, c) == kVebFail);
  CHECK(c.loads == 2);
  c = {};
  CHECK(V::predecessor(t, 5000, c) == 4095);
  CHECK(c.loads == 1);
  // With 70 (word 1) back: predecessor(4094) floats up to the root, takes its highest bit
  // below 63 (word 1) and floats down to its highest bit: 3 loads = 2L - 1.
  CHECK(V::insert(t, 70, c));
  CHECK(V::insert(t, 66, c));
  c = {};
  CHECK(V::predecessor(t, 4094, c) == 70);
  CHECK(c.loads == 3);
  CHECK(c.levels == 2);
  CHECK(V::remove(t, 70, c));
  CHECK(V::remove(t, 66, c));
  CHECK(V::lock_offset(t, 0, c) == 4095);
  CHECK(V::lock_offset(t, 0, c) == kVebFail);
  CHECK(veb_check(t).empty());
  for (std::uint64_t w : st.words) CHECK(w == 0);
}

TEST_CASE("vEB: random sequences agree with a std::set, within the cost bounds",
          "[core][gallatin][veb]") {
  const std::vector<std::uint64_t> universes = {
      1,    2,    3,    63,   64,    65,        127,   128,       1000,
      4095, 4096, 4097, 8191, 12345, k64_3 - 1, k64_3, k64_3 + 1, k64_3 + 5};
  for (const std::uint64_t u : universes)
    for (const bool public_levels : {false, true}) {
      const unsigned levels = public_levels ? veb_levels_public(u) : veb_levels_paper(u);
      const int seeds = u > 20000 ? 3 : 12;
      for (int seed = 0; seed < seeds; ++seed) {
        INFO("U = " << u << " levels " << levels << " seed " << seed);
        VebStorage st(u, levels);
        const VebTree& t = st.tree;
        std::set<std::uint64_t> ref;
        std::mt19937_64 rng(1000 * u + 17 * seed + public_levels);
        // Mostly indices near a few hot spots, so words fill and empty (the propagations).
        auto pick = [&]() -> std::uint64_t {
          if (rng() % 2) return rng() % u;
          const std::uint64_t hot = (rng() % 4) * (u / 4);
          return std::min<std::uint64_t>(u - 1, hot + rng() % 130);
        };
        if (seed % 3 == 1) {  // start full
          veb_fill(t);
          for (std::uint64_t x = 0; x < u; ++x) ref.insert(x);
        }
        REQUIRE(veb_check(t).empty());
        const int ops = u > 20000 ? 3000 : 1500;
        for (int op = 0; op < ops; ++op) {
          VebCounts c;
          const std::uint64_t x = pick();
          switch (rng() % 6) {
            case 0:
            case 1:
              REQUIRE(V::insert(t, x, c) == ref.insert(x).second);
              REQUIRE(c.atomics <= levels);
              break;
            case 2:
              REQUIRE(V::remove(t, x, c) == (ref.erase(x) == 1));
              REQUIRE(c.atomics <= levels);
              break;
            case 3:
              REQUIRE(V::successor(t, x, c) == set_successor(ref, x));
              REQUIRE(c.loads <= 2 * levels - 1);
              REQUIRE(c.atomics == 0);
              break;
            case 4:
              // Also past the universe: the search starts from U - 1.
              if (rng() % 8 == 0) {
                REQUIRE(V::predecessor(t, u + rng() % 100, c) == set_predecessor(ref, u - 1));
              } else {
                REQUIRE(V::predecessor(t, x, c) == set_predecessor(ref, x));
              }
              REQUIRE(c.loads <= 2 * levels - 1);
              REQUIRE(c.atomics == 0);
              break;
            default: {
              const std::uint64_t want = set_successor(ref, x);
              REQUIRE(V::lock_offset(t, x, c) == want);
              if (want != kVebFail) ref.erase(want);
              // A claim alone: one search (<= 2L - 1 loads) and one remove (<= L atomics, each
              // upward one followed by one re-read).
              REQUIRE(c.atomics <= levels);
              REQUIRE(c.loads <= 2 * levels - 1 + (levels - 1));
              break;
            }
          }
          REQUIRE(c.restarts == 0);  // alone, nothing is ever lost
          if (op % 250 == 0) REQUIRE(veb_check(t).empty());
        }
        REQUIRE(veb_check(t).empty());
        // Drain by claims from 0: the set in ascending order.
        std::vector<std::uint64_t> drained;
        VebCounts c;
        for (std::uint64_t s; (s = V::lock_offset(t, 0, c)) != kVebFail;) drained.push_back(s);
        CHECK(drained == std::vector<std::uint64_t>(ref.begin(), ref.end()));
        CHECK(veb_check(t).empty());
      }
    }
}

TEST_CASE("vEB: the checker finds an upper bit that disagrees with its child",
          "[core][gallatin][veb]") {
  VebStorage st(4000);  // two levels: the root over 63 leaf words
  const VebTree& t = st.tree;
  REQUIRE(t.levels == 2);
  VebCounts c;
  V::insert(t, 70, c);
  REQUIRE(veb_check(t).empty());
  t.words[t.offset[0]] &= ~(std::uint64_t{1} << 1);  // the root forgets leaf word 1
  CHECK_FALSE(veb_check(t).empty());
  t.words[t.offset[0]] |= std::uint64_t{1} << 1;
  t.words[t.offset[0]] |= std::uint64_t{1} << 5;  // a bit over an empty word
  CHECK_FALSE(veb_check(t).empty());
}
