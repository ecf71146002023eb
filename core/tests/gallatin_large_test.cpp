// Gallatin's requests above 4096 B (core/gallatin/large.hpp) against hand-worked routes and an
// independent reference (a std::map of the byte ranges handed out): 2^j contiguous slices, whole
// blocks, contiguous segments from the back of the segment tree; frees of each kind give back
// what they took; out of memory is null after a bounded search; small requests from the front
// and large ones from the back meet in the middle without overlapping; the structural check
// covers the segments of large allocations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/large.hpp"
#include "alloclab/core/gallatin/state_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gallatin;

namespace {

using Op = Ops<alloclab::ouro::HostAtomics>;
using Big = Large<alloclab::ouro::HostAtomics>;

// 8 segments of 4 MiB, 1024 slices per block: blocks of 16 KiB (class 0) ... 4 MiB (class 8, one
// segment), so 4 KiB < size <= 8 KiB is 2 slices of 4 KiB, up to 4 MiB a whole block, and
// larger requests take segments.
Geometry large_geometry() {
  Geometry g;
  g.segment_bytes = 4 << 20;
  g.slices_per_block = 1024;
  g.segments = 8;
  return g;
}

struct Held {
  std::uint64_t offset, bytes;
  Route r;
};

// The byte ranges handed out: a new one must not overlap any held one.
struct Ranges {
  std::map<std::uint64_t, std::uint64_t> by_start;  // start -> end
  bool add(std::uint64_t from, std::uint64_t to) {
    auto it = by_start.lower_bound(from);
    if (it != by_start.end() && it->first < to) return false;
    if (it != by_start.begin() && std::prev(it)->second > from) return false;
    by_start[from] = to;
    return true;
  }
  void remove(std::uint64_t from) { by_start.erase(from); }
};

// Allocations held per block (each a slice, 2^j slices or a whole block).
std::vector<std::uint32_t> live_of(const State& st, const std::vector<Held>& held) {
  std::vector<std::uint32_t> live(std::uint64_t{st.g.segments} * st.g.max_blocks(), 0);
  for (const Held& h : held) {
    if (h.r.kind == RouteKind::segments) continue;
    const std::uint64_t s = h.offset / st.g.segment_bytes;
    ++live[st.g.block_id(
        static_cast<std::uint32_t>(s),
        static_cast<std::uint32_t>((h.offset % st.g.segment_bytes) / st.g.block_bytes(h.r.k)))];
  }
  return live;
}

// One request of `bytes` (a team of one for slices), or false at out of memory.
bool take(const State& st, std::uint64_t bytes, Counts& c, Ranges& ranges,
          std::vector<Held>& held) {
  const Route r = route_of(bytes, st.g);
  std::uint64_t off = kNoBlock;
  if (r.kind == RouteKind::slice) {
    if (Op::malloc_team(st, r.k, 0, 1, &off, c) == 0) return false;
  } else {
    off = Big::malloc(st, r, 0, c);
    if (off == kNoBlock) return false;
  }
  const std::uint64_t span = route_bytes(r, st.g);
  REQUIRE(span >= bytes);
  REQUIRE(off + span <= st.g.pool_bytes());
  REQUIRE(ranges.add(off, off + span));
  held.push_back({off, bytes, r});
  return true;
}

bool all_segments_free(const State& st) {
  for (std::uint32_t s = 0; s < st.g.segments; ++s)
    if (!veb_has(st.segment_tree, s) || st.tree_id[s] != kNoTree) return false;
  return true;
}

}  // namespace

TEST_CASE("gallatin large: routes by size (hand-worked)", "[core][gallatin][large]") {
  const Geometry g;  // 16 MiB segments, 4096 slices per block: blocks of 64 KiB ... 16 MiB
  auto is = [&](std::uint64_t bytes, RouteKind kind, unsigned k, std::uint32_t count) {
    const Route r = route_of(bytes, g);
    INFO(bytes << " B");
    CHECK(r.kind == kind);
    CHECK(r.k == k);
    CHECK(r.count == count);
  };
  is(16, RouteKind::slice, 0, 1);
  is(4096, RouteKind::slice, 8, 1);
  is(4097, RouteKind::slices, 8, 2);  // 8 KiB: two 4 KiB slices
  is(8192, RouteKind::slices, 8, 2);
  is(8193, RouteKind::slices, 8, 4);   // 16 KiB
  is(32768, RouteKind::slices, 8, 8);  // 32 KiB
  is(32769, RouteKind::block, 0, 1);   // 64 KiB: a class-0 block
  is(65536, RouteKind::block, 0, 1);
  is(65537, RouteKind::block, 1, 1);  // 128 KiB
  is(std::uint64_t{16} << 20, RouteKind::block, 8, 1);
  is((std::uint64_t{16} << 20) + 1, RouteKind::segments, 0, 2);
  is(std::uint64_t{48} << 20, RouteKind::segments, 0, 3);
  CHECK(route_bytes(route_of(20000, g), g) == 32768);
  CHECK(route_bytes(route_of(100000, g), g) == 131072);
  CHECK(route_bytes(route_of(std::uint64_t{40} << 20, g), g) == std::uint64_t{48} << 20);
}

TEST_CASE("gallatin large: each kind alone - its atomics, and its free gives it back",
          "[core][gallatin][large]") {
  StateStorage ss(large_geometry(), 4);
  const State& st = ss.st;
  Ranges ranges;
  std::vector<Held> held;
  Counts c;
  // 2 slices of 4 KiB: the slot's first block (a refill), then the fast path: one atomicAdd on
  // the malloc counter and one on the free counter (the second slice counted as freed).
  REQUIRE(take(st, 6000, c, ranges, held));
  c = {};
  REQUIRE(take(st, 6000, c, ranges, held));
  CHECK(c.atomics == 2);
  CHECK(c.block_refills == 0);
  CHECK(held[1].offset == held[0].offset + 8192);  // contiguous in the slot's block
  // A whole block of 64 KiB (class 2): get_block, one add filling its counter, one on its free
  // counter; a new segment (class 2) formatted for it.
  c = {};
  REQUIRE(take(st, 50000, c, ranges, held));
  CHECK(held[2].offset % (64 << 10) == 0);
  CHECK(c.block_refills == 1);
  CHECK(c.segments_formatted == 1);
  // 3 segments (9 MiB): the highest three, 5..7; the first says "3 segments".
  c = {};
  REQUIRE(take(st, 9 << 20, c, ranges, held));
  CHECK(held[3].offset == 5 * st.g.segment_bytes);
  CHECK(c.segments_claimed == 3);
  CHECK(st.tree_id[5] == kSizeClasses + 3);
  CHECK(st.tree_id[6] == kLargeTail);
  CHECK(state_check(st, live_of(st, held)).empty());
  // Every free is one increment (or the segments back).
  for (const Held& h : held) {
    Counts f;
    Big::free_one(st, h.offset, f);
    if (h.r.kind == RouteKind::segments) {
      CHECK(f.segments_returned == 3);
    } else {
      CHECK(f.atomics >= 1);
    }
  }
  // The buffer slot still holds its class-8 block (4 slices of 1024 taken); the block of 64 KiB
  // went back, and its segment with it.
  CHECK(state_check(st, live_of(st, {})).empty());
  for (std::uint32_t s = 1; s < 8; ++s) CHECK(veb_has(st.segment_tree, s));
}

TEST_CASE("gallatin large: exhaust, free everything, allocate again - null after bounded work",
          "[core][gallatin][large]") {
  // Sizes of each large kind, and how many of them the 8 segments of 4 MiB hold.
  struct Case {
    std::uint64_t bytes, fit;
  };
  const Case cases[] = {
      {8192, 8 * 512},   // 2 slices of 4 KiB: 512 a block, one block a segment
      {16384, 8 * 256},  // a block of 16 KiB (class 0): 256 a segment
      {1 << 20, 8 * 4},  // a block of 1 MiB (class 6)
      {4 << 20, 8},      // a block of 4 MiB (class 8): a segment each
      {5 << 20, 4},      // 2 segments each
      {12 << 20, 2},     // 3 segments each: 2 fit, 2 segments left over
      {32 << 20, 1},     // the whole pool
  };
  for (const Case& k : cases) {
    INFO(k.bytes << " B");
    StateStorage ss(large_geometry(), 4);
    const State& st = ss.st;
    for (int pass = 0; pass < 2; ++pass) {
      INFO("pass " << pass);
      Ranges ranges;
      std::vector<Held> held;
      Counts c;
      while (take(st, k.bytes, c, ranges, held)) REQUIRE(held.size() <= k.fit);
      CHECK(held.size() == k.fit);
      CHECK(c.stuck == 0);
      CHECK(state_check(st, live_of(st, held)).empty());
      // Out of memory: null again, after bounded work (the segment search looks at each
      // segment at most once).
      Counts more;
      CHECK_FALSE(take(st, k.bytes, more, ranges, held));
      CHECK(more.all_atomics() + more.veb.loads + more.loads < 200);
      // Free everything in a shuffled order: every segment back in the segment tree.
      std::mt19937_64 rng(k.bytes + pass);
      std::shuffle(held.begin(), held.end(), rng);
      Counts f;
      for (const Held& h : held) Big::free_one(st, h.offset, f);
      CHECK(f.stuck == 0);
      CHECK(state_check(st, live_of(st, {})).empty());
      // The slices route: the slot of class 8 emptied at exhaustion, so nothing is held.
      CHECK(all_segments_free(st));
    }
  }
}

TEST_CASE("gallatin large: small from the front, large from the back, meeting in the middle",
          "[core][gallatin][large]") {
  StateStorage ss(large_geometry(), 4);
  const State& st = ss.st;
  Ranges ranges;
  std::vector<Held> held;
  Counts c;
  // Two large allocations of 2 segments: 6-7, then 4-5.
  REQUIRE(take(st, 6 << 20, c, ranges, held));
  REQUIRE(take(st, 6 << 20, c, ranges, held));
  CHECK(held[0].offset == 6 * st.g.segment_bytes);
  CHECK(held[1].offset == 4 * st.g.segment_bytes);
  // Slices of 256 B (blocks of 256 KiB, 16 a segment) until null: segments 0-3 only.
  std::size_t small = 0;
  while (take(st, 256, c, ranges, held)) ++small;
  CHECK(small == 4 * (st.g.segment_bytes / 256));
  for (std::size_t j = 2; j < held.size(); ++j) CHECK(held[j].offset < 4 * st.g.segment_bytes);
  // The pool is full: a whole block of 4 MiB (a segment) is null.
  Counts more;
  CHECK_FALSE(take(st, 3 << 20, more, ranges, held));
  CHECK(state_check(st, live_of(st, held)).empty());
  // Free the lower large one (4-5) and a small block's worth: a large request of 2 segments
  // takes 4-5 again; one of 3 finds no run of 3 (null).
  Big::free_one(st, held[1].offset, c);
  ranges.remove(held[1].offset);
  held.erase(held.begin() + 1);
  CHECK_FALSE(take(st, 9 << 20, more, ranges, held));
  REQUIRE(take(st, 8 << 20, c, ranges, held));
  CHECK(held.back().offset == 4 * st.g.segment_bytes);
  CHECK(state_check(st, live_of(st, held)).empty());
  // Everything back: every segment free, and the whole pool serves one request of 32 MiB.
  for (const Held& h : held) Big::free_one(st, h.offset, c);
  CHECK(state_check(st, live_of(st, {})).empty());
  // (the 256 B slot emptied at exhaustion: no block held)
  CHECK(all_segments_free(st));
  held.clear();
  Ranges fresh;
  REQUIRE(take(st, 32 << 20, c, fresh, held));
  CHECK(held[0].offset == 0);
  CHECK(c.stuck == 0);
}

TEST_CASE("gallatin: the structural check covers the segments of large allocations",
          "[core][gallatin][large]") {
  StateStorage ss(large_geometry(), 4);
  const State& st = ss.st;
  Counts c;
  const std::uint64_t off = Big::malloc(st, route_of(9 << 20, st.g), 0, c);  // segments 5-7
  REQUIRE(off == 5 * st.g.segment_bytes);
  const std::vector<std::uint32_t> none(std::uint64_t{8} * st.g.max_blocks(), 0);
  REQUIRE(state_check(st, none).empty());
  ss.tree_id[6] = kNoTree;  // a hole in the run
  CHECK(state_check(st, none) != "");
  ss.tree_id[6] = kLargeTail;
  ss.tree_id[5] = kNoTree;  // tails without their head
  CHECK(state_check(st, none) != "");
  ss.tree_id[5] = kSizeClasses + 4;  // a run past the pool's end
  CHECK(state_check(st, none) != "");
  ss.tree_id[5] = kSizeClasses + 3;
  REQUIRE(state_check(st, none).empty());
  VebCounts v;
  Veb<alloclab::ouro::HostAtomics>::insert(st.segment_tree, 7, v);  // held but free
  CHECK(state_check(st, none) != "");
}
