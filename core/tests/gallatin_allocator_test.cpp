// Gallatin's segments, blocks and slices (core/gallatin/allocator.hpp) against hand-worked
// counts and an independent reference (a std::set of the bytes handed out): capacity to the last
// slice, then null after bounded attempts (Alg. 3 as printed would loop); one atomicAdd per team;
// front-first segments; exhaust, free everything, allocate again with and without the paper's
// segment return; and the structural check (state_check) at rest.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/state_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gallatin;

namespace {

using Op = Ops<alloclab::ouro::HostAtomics>;

// A small pool: 8 segments of 64 KiB, 16 slices per block (blocks of 256 B ... 64 KiB: 256
// blocks of class 0 per segment, one of class 8).
Geometry small_geometry() {
  Geometry g;
  g.segment_bytes = 64 * 1024;
  g.slices_per_block = 16;
  g.segments = 8;
  return g;
}

struct Held {
  std::uint64_t offset;
  unsigned k;
};

// Allocates class k one slice at a time (teams of one, slot 0) until null; checks each slice
// against the set of bytes handed out so far.
std::vector<Held> exhaust(const State& st, unsigned k, Counts& c, std::set<std::uint64_t>& bytes) {
  std::vector<Held> held;
  for (;;) {
    std::uint64_t off = 0;
    if (Op::malloc_team(st, k, 0, 1, &off, c) == 0) break;
    REQUIRE(off % st.g.slice_bytes(k) == 0);
    REQUIRE(off + st.g.slice_bytes(k) <= st.g.pool_bytes());
    REQUIRE(bytes.insert(off).second);  // slices of one class start apart
    held.push_back({off, k});
  }
  return held;
}

std::vector<std::uint32_t> live_of(const State& st, const std::vector<Held>& held) {
  std::vector<std::uint32_t> live(std::uint64_t{st.g.segments} * st.g.max_blocks(), 0);
  for (const Held& h : held) {
    const std::uint64_t s = h.offset / st.g.segment_bytes;
    ++live[st.g.block_id(
        static_cast<std::uint32_t>(s),
        static_cast<std::uint32_t>((h.offset % st.g.segment_bytes) / st.g.block_bytes(h.k)))];
  }
  return live;
}

}  // namespace

TEST_CASE("gallatin: every slice of the pool then null - one atomicAdd per slice alone",
          "[core][gallatin]") {
  for (unsigned k : {0u, 3u, 8u}) {
    INFO("class " << k);
    StateStorage ss(small_geometry(), 4);
    const State& st = ss.st;
    Counts c;
    std::set<std::uint64_t> bytes;
    const std::vector<Held> held = exhaust(st, k, c, bytes);
    // The whole pool in slices of 16 B << k: nothing keeps memory back (no pre-boot).
    CHECK(held.size() == st.g.pool_bytes() / st.g.slice_bytes(k));
    CHECK(c.segments_formatted == 8);
    CHECK(c.block_refills == 8 * st.g.blocks_per_segment(k));
    CHECK(c.stuck == 0);
    CHECK(state_check(st, live_of(st, held)).empty());
    // More requests: null, after bounded work.
    Counts more;
    std::uint64_t off = 0;
    CHECK(Op::malloc_team(st, k, 0, 1, &off, more) == 0);
    CHECK(more.atomics + more.veb.atomics + more.veb.loads < 100);
  }
  // Hand-worked fast path: a team of 32 lanes on a block in the slot: ONE atomicAdd.
  StateStorage ss(small_geometry(), 4);
  Counts c;
  std::uint64_t off[32];
  REQUIRE(Op::malloc_team(ss.st, 0, 1, 8, off, c) == 8);  // fills slot 1 with a block
  c = {};
  // 16 slices per block: the 8 left in slot 1's block, then a refill for the other 8.
  REQUIRE(Op::malloc_team(ss.st, 0, 1, 8, off, c) == 8);
  CHECK(c.loads + c.atomics >= 2);
  const Counts refill_before = c;
  c = {};
  REQUIRE(Op::malloc_team(ss.st, 0, 1, 8, off, c) == 8);  // the fresh block: the fast path
  CHECK(c.atomics == 1);
  CHECK(c.loads == 1);  // the slot
  CHECK(c.block_refills == 0);
  CHECK(refill_before.block_refills == 1);  // the team that took slice 15 swapped the block
}

TEST_CASE("gallatin: segments are used front-first", "[core][gallatin]") {
  StateStorage ss(small_geometry(), 4);
  const State& st = ss.st;
  Counts c;
  std::uint64_t max_segment = 0;
  // Class 5 (512 B slices, blocks of 8 KiB, 8 per segment): 3 segments' worth.
  for (int i = 0; i < 3 * 8 * 16; ++i) {
    std::uint64_t off = 0;
    REQUIRE(Op::malloc_team(st, 5, 0, 1, &off, c) == 1);
    const std::uint64_t s = off / st.g.segment_bytes;
    CHECK(s <= max_segment + 1);  // a new segment only after the ones before it
    max_segment = std::max(max_segment, s);
  }
  CHECK(max_segment == 2);
  // The team that took the last slice of segment 2 fetched the next block at once: segment 3 is
  // formatted too, the rest still free.
  for (std::uint32_t s = 0; s < 8; ++s) CHECK(veb_has(st.segment_tree, s) == (s >= 4));
}

TEST_CASE("gallatin: exhaust, free everything, allocate again (segment return)",
          "[core][gallatin]") {
  for (const bool return_segments : {true, false}) {
    INFO("return segments " << return_segments);
    StateStorage ss(small_geometry(), 4, return_segments);
    const State& st = ss.st;
    Counts c;
    std::set<std::uint64_t> bytes;
    std::vector<Held> held = exhaust(st, 2, c, bytes);
    REQUIRE(held.size() == st.g.pool_bytes() / 64);
    // Free everything, in a shuffled order, one slice at a time.
    std::mt19937_64 rng(3);
    std::shuffle(held.begin(), held.end(), rng);
    for (const Held& h : held) Op::free_slices(st, h.offset, 1, c);
    CHECK(state_check(st, live_of(st, {})).empty());
    CHECK(c.blocks_returned >= 8 * st.g.blocks_per_segment(2) - 1);
    // Another class: with the return (the paper's and the public code's), the pool is whole
    // again (at exhaustion the team that took the last slice found no block to swap in and
    // emptied the slot, so no block is held); without it (return_segments = false, a test
    // variant), every segment stays formatted for 64 B slices and the 4096 B class gets nothing.
    bytes.clear();
    Counts again;
    const std::vector<Held> big = exhaust(st, 8, again, bytes);
    if (return_segments) {
      CHECK(c.segments_returned == 8);
      CHECK(big.size() == st.g.pool_bytes() / 4096);
    } else {
      CHECK(c.segments_returned == 0);
      CHECK(big.empty());
      // The 64 B class itself gets every block back.
      bytes.clear();
      const std::vector<Held> small = exhaust(st, 2, again, bytes);
      CHECK(small.size() == st.g.pool_bytes() / 64);
    }
    CHECK(again.stuck == 0);
  }
}

TEST_CASE("gallatin: freeing a block's slices as one team is one atomicAdd", "[core][gallatin]") {
  StateStorage ss(small_geometry(), 4);
  const State& st = ss.st;
  Counts c;
  std::uint64_t off[16];
  REQUIRE(Op::malloc_team(st, 1, 0, 16, off, c) == 16);  // one whole block of 32 B slices
  for (int i = 1; i < 16; ++i) CHECK(off[i] == off[0] + 32 * static_cast<std::uint64_t>(i));
  Counts f;
  Op::free_slices(st, off[0], 10, f);
  CHECK(f.atomics == 1);
  CHECK(f.blocks_returned == 0);
  Op::free_slices(st, off[10], 6, f);  // the last 6: the block goes back to its segment
  CHECK(f.blocks_returned == 1);
  CHECK(state_check(st, live_of(st, {})).empty());
}

TEST_CASE("gallatin: the pre-booted block buffers take the paper's wavefront of segments",
          "[core][gallatin]") {
  // The default geometry (16 MiB segments, 4096 slices per block) sized for 128 SMs (the paper's
  // A40 example, §4.3): class k has max(4, 128 >> k) slots and a segment holds 256 >> k of its
  // blocks, so classes 0-6 take one segment each, class 7 two (4 slots, 2 blocks a segment) and
  // class 8 four (one block a segment): 13 segments, in class order (hand-worked).
  Geometry g;
  g.segments = 16;
  StateStorage ss(g, 128);
  Counts c;
  Op::preboot(ss.st, c);
  CHECK(c.segments_formatted == 13);
  CHECK(c.block_refills == 128 + 64 + 32 + 16 + 8 + 4 + 4 + 4 + 4);
  for (unsigned k = 0; k < kSizeClasses; ++k) {
    const std::uint32_t first = k <= 6 ? k : (k == 7 ? 7 : 9);
    CHECK(ss.st.buffer[ss.st.slot_offset[k]] - 1 == g.block_id(first, 0));
  }
  // The next segment any class formats is segment 13: the wavefront of §6.10.
  std::uint64_t off = 0;
  for (std::uint32_t i = 0; i < g.slices_per_block; ++i)
    REQUIRE(Op::malloc_team(ss.st, 8, 0, 1, &off, c) == 1);
  // Told that nobody holds them, the checker finds the block's 4096 slices unaccounted for.
  CHECK(state_check(ss.st, std::vector<std::uint32_t>(16 * g.max_blocks(), 0)) != "");
  CHECK(c.segments_formatted == 14);  // the slot's block was used up: its swap took segment 13
}
