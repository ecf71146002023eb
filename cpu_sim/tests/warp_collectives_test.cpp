// The simulator's warp collectives against hand-worked cases (CUDA's documented semantics).
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "alloclab/cpu_sim/warp_collectives.hpp"

using namespace alloclab::sim::warp;

namespace {

// Lanes 0..4 hold keys 5, 3, 5, 7, 3; every other lane holds 9.
Warp::Lanes<int> example_keys() {
  Warp::Lanes<int> k{};
  k.fill(9);
  k[0] = 5;
  k[1] = 3;
  k[2] = 5;
  k[3] = 7;
  k[4] = 3;
  return k;
}

Warp::Lanes<bool> every_third_lane() {
  Warp::Lanes<bool> p{};
  for (unsigned t = 0; t < 32; ++t) p[t] = t % 3 == 0;
  return p;
}

Warp::Lanes<unsigned> hundred_plus_lane() {
  Warp::Lanes<unsigned> v{};
  for (unsigned t = 0; t < 32; ++t) v[t] = 100 + t;
  return v;
}

// Records every fetch_add a warp issues.
struct RecordingCounter {
  std::uint64_t value = 0;
  std::vector<std::uint64_t> adds;
  std::uint64_t fetch_add(std::uint64_t x) {
    adds.push_back(x);
    const std::uint64_t old = value;
    value += x;
    return old;
  }
};

}  // namespace

TEST_CASE("ballot, any, all, count and rank", "[cpu_sim][warp]") {
  const Warp full(0xffffffffu);
  const auto p = every_third_lane();
  // Lanes 0, 3, 6, ..., 30: binary 0100 1001 0010 0100 1001 0010 0100 1001.
  CHECK(full.ballot(p) == 0x49249249u);
  CHECK(full.count(p) == 11);
  CHECK(full.any(p));
  CHECK_FALSE(full.all(p));
  const auto r = full.rank(full.ballot(p));
  CHECK(r[0] == 0);
  CHECK(r[7] == 3);  // lanes 0, 3, 6 below
  CHECK(r[9] == 3);  // lane 9's own rank among the predicate lanes
  CHECK(r[31] == 11);

  const Warp partial = Warp::first_lanes(20);
  CHECK(partial.active() == 0x000fffffu);
  CHECK(partial.ballot(p) == 0x00049249u);  // lanes 21, 24, 27, 30 are inactive
  CHECK(partial.count(p) == 7);
  // A predicate false only on inactive lanes: all() holds.
  Warp::Lanes<bool> low{};
  for (unsigned t = 0; t < 20; ++t) low[t] = true;
  CHECK(partial.all(low));
  CHECK_FALSE(full.all(low));
  CHECK_FALSE(partial.any(Warp::Lanes<bool>{}));
  // Inactive lanes receive nothing.
  CHECK(partial.rank(0xffffffffu)[25] == 0);
  CHECK(partial.rank(0xffffffffu)[19] == 19);
  CHECK(Warp::nth_lane(0x49249249u, 0) == 0);
  CHECK(Warp::nth_lane(0x49249249u, 4) == 12);
  CHECK(Warp::nth_lane(0x49249249u, 11) == -1);
  CHECK_THROWS_AS(Warp::first_lanes(33), std::invalid_argument);
}

TEST_CASE("match_any gives each lane the lanes holding its key", "[cpu_sim][warp]") {
  const auto k = example_keys();
  const auto m = Warp(0xffffffffu).match_any(k);
  CHECK(m[0] == 0x5u);   // lanes 0, 2 (key 5)
  CHECK(m[1] == 0x12u);  // lanes 1, 4 (key 3)
  CHECK(m[2] == 0x5u);
  CHECK(m[3] == 0x8u);  // lane 3 alone (key 7)
  CHECK(m[4] == 0x12u);
  for (unsigned t = 5; t < 32; ++t) CHECK(m[t] == 0xffffffe0u);

  // A partial warp of 20 lanes: the 9s are lanes 5..19 only; inactive lanes get no mask.
  const auto mp = Warp::first_lanes(20).match_any(k);
  CHECK(mp[2] == 0x5u);
  CHECK(mp[10] == 0x000fffe0u);
  CHECK(mp[25] == 0u);

  // A hole in the active mask: lane 2 inactive leaves lane 0 alone with key 5.
  const auto mh = Warp(0xfffffffbu).match_any(k);
  CHECK(mh[0] == 0x1u);
  CHECK(mh[2] == 0u);
}

TEST_CASE("shfl and shfl_xor read active lanes only", "[cpu_sim][warp]") {
  const auto v = hundred_plus_lane();
  const Warp full(0xffffffffu);
  Warp::Lanes<unsigned> next{};
  for (unsigned t = 0; t < 32; ++t) next[t] = t + 1;  // lane 31 reads 32 % 32 = lane 0
  const auto got = full.shfl(v, next);
  CHECK(got[0] == 101);
  CHECK(got[31] == 100);
  CHECK(full.shfl(v, 33u)[7] == 101);  // source lane taken modulo the width
  const auto x = full.shfl_xor(v, 1);
  CHECK(x[4] == 105);
  CHECK(x[5] == 104);
  CHECK(full.shfl_xor(v, 32)[3] == 103);  // source past the warp: own value

  const Warp partial = Warp::first_lanes(20);
  CHECK_THROWS_AS(partial.shfl(v, next), std::logic_error);  // lane 19 reads inactive lane 20
  CHECK_THROWS_AS(partial.shfl(v, 25u), std::logic_error);
  CHECK_THROWS_AS(partial.shfl_xor(v, 16), std::logic_error);  // lane 4 reads lane 20
  Warp::Lanes<unsigned> wrap{};
  for (unsigned t = 0; t < 32; ++t) wrap[t] = (t + 1) % 20;
  const auto pw = partial.shfl(v, wrap);
  CHECK(pw[19] == 100);
  CHECK(pw[5] == 106);
  CHECK(pw[20] == 0);  // inactive lanes receive nothing
  const auto b = partial.shfl(v, 7u);
  CHECK(b[0] == 107);
  CHECK(b[19] == 107);
  CHECK(b[20] == 0);
}

TEST_CASE("reduce_add and exclusive_sum over the active lanes", "[cpu_sim][warp]") {
  const auto v = hundred_plus_lane();
  const Warp partial = Warp::first_lanes(20);
  CHECK(partial.reduce_add(v) == 100 * 20 + 190);  // 100..119
  const auto e = partial.exclusive_sum(v);
  CHECK(e[0] == 0);
  CHECK(e[5] == 500 + 10);  // 100 + 101 + 102 + 103 + 104
  CHECK(e[25] == 0);

  const Warp holes(0b1011u);  // lanes 0, 1, 3
  const Warp::Lanes<unsigned> amounts{1, 2, 4, 8};
  CHECK(holes.reduce_add(amounts) == 11);
  const auto eh = holes.exclusive_sum(amounts);
  CHECK(eh[0] == 0);
  CHECK(eh[1] == 1);
  CHECK(eh[2] == 0);
  CHECK(eh[3] == 3);
}

TEST_CASE("coalesced groups: labeled_partition and coalesced_threads", "[cpu_sim][warp]") {
  using G = Group<32>;
  const auto k = example_keys();
  const auto g = Warp(0xffffffffu).labeled_partition(k);
  CHECK(g[0] == G{0x5u, 0, 0, 2});
  CHECK(g[2] == G{0x5u, 0, 1, 2});
  CHECK(g[3] == G{0x8u, 3, 0, 1});
  CHECK(g[4] == G{0x12u, 1, 1, 2});
  CHECK(g[10] == G{0xffffffe0u, 5, 5, 27});

  const auto gp = Warp::first_lanes(20).labeled_partition(k);
  CHECK(gp[10] == G{0x000fffe0u, 5, 5, 15});
  CHECK(gp[20] == G{});

  const auto c = Warp(0b10110000u).coalesced_threads();  // lanes 4, 5, 7
  CHECK(c[4] == G{0xb0u, 4, 0, 3});
  CHECK(c[7] == G{0xb0u, 4, 2, 3});
  CHECK(c[6] == G{});
}

TEST_CASE("aggregated_fetch_add issues one atomic per group", "[cpu_sim][warp]") {
  // Six lanes, keys 5, 3, 5, 7, 3, 5, amounts 1..6, counter at 100. Groups by leader lane:
  // key 5 (lanes 0, 2, 5: 1 + 3 + 6 = 10), key 3 (lanes 1, 4: 2 + 5 = 7), key 7 (lane 3: 4).
  Warp::Lanes<int> keys{5, 3, 5, 7, 3, 5};
  Warp::Lanes<std::uint64_t> amounts{1, 2, 3, 4, 5, 6};
  const Warp six = Warp::first_lanes(6);
  RecordingCounter counter{100, {}};
  const auto r = six.aggregated_fetch_add(counter, amounts, keys);
  CHECK(r.atomics == 3);
  CHECK(counter.adds == std::vector<std::uint64_t>{10, 7, 4});
  CHECK(counter.value == 121);
  // key 5 got [100, 110): lane 0 at 100, lane 2 at 101, lane 5 at 104; key 3 got [110, 117):
  // lane 1 at 110, lane 4 at 112; key 7 got [117, 121): lane 3 at 117.
  const std::vector<std::uint64_t> expected{100, 110, 101, 117, 112, 104};
  for (unsigned t = 0; t < 6; ++t) CHECK(r.offsets[t] == expected[t]);
  CHECK(r.offsets[6] == 0);

  // With std::atomic, and lane 5 inactive: key 5's group is lanes 0, 2 only (1 + 3).
  std::atomic<std::uint64_t> a{0};
  const auto ra = Warp(0b011111u).aggregated_fetch_add(a, amounts, keys);
  CHECK(ra.atomics == 3);
  CHECK(a.load() == 15);
  CHECK(ra.offsets[0] == 0);
  CHECK(ra.offsets[2] == 1);
  CHECK(ra.offsets[1] == 4);
  CHECK(ra.offsets[4] == 6);
  CHECK(ra.offsets[3] == 11);
  CHECK(ra.offsets[5] == 0);

  // Without keys the whole active warp is one group: one atomic, offsets = exclusive sums.
  RecordingCounter one{7, {}};
  const auto r1 = six.aggregated_fetch_add(one, amounts);
  CHECK(r1.atomics == 1);
  CHECK(one.adds == std::vector<std::uint64_t>{21});
  CHECK(r1.offsets[0] == 7);
  CHECK(r1.offsets[5] == 7 + 15);
}

TEST_CASE("a 64-lane warp (the simulator's widest) uses 64-bit masks", "[cpu_sim][warp]") {
  using Wide = BasicWarp<64>;
  const Wide w = Wide::first_lanes(64);
  Wide::Lanes<bool> p{};
  p[63] = true;
  p[40] = true;
  CHECK(w.ballot(p) == ((std::uint64_t{1} << 63) | (std::uint64_t{1} << 40)));
  CHECK(w.rank(w.ballot(p))[63] == 1);
  CHECK(Wide::nth_lane(w.ballot(p), 1) == 63);
}
