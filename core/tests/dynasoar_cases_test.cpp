// The correctness cases of DynaSOAr's App. A.3-A.4 (Springer & Masuhara, ECOOP'19), each as a
// deterministic interleaving of the step machines of core/dynasoar/alloc.hpp and free.hpp (one
// memory operation per step, as the simulator's lockstep mode runs them) on a heap built by hand.
// Each case checks the outcome the paper argues for and, at the end, the whole heap at rest
// (heap_storage.hpp's check: Def. 1 in every block bitmap, every block's state against the slots
// the test knows are held).
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::dynasoar;

namespace {
using A = alloclab::ouro::HostAtomics;
constexpr int kBound = 10000;  // steps: far beyond any case here

struct Alloc {
  AllocOp<A> op;
  DsCounts c;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> got;  // (block, slot bits) delivered
  Alloc(unsigned n, unsigned seed, AllocConfig cfg = {}) : op(n, 1, 0, seed, cfg) {}
  void step(const Heap& h) {
    op.step(h, c);
    if (op.pending()) {
      got.emplace_back(op.pending_block(), op.pending_mask());
      op.take();
    }
  }
  void until(const Heap& h, AllocPhase p) {
    for (int k = 0; k < kBound && op.phase() != p; ++k) step(h);
    REQUIRE(op.phase() == p);
  }
  void finish(const Heap& h) {
    for (int k = 0; k < kBound && !op.finished(); ++k) step(h);
    REQUIRE(op.finished());
  }
  // The one slot it got: its block and slot index.
  std::pair<std::uint64_t, unsigned> slot() const {
    REQUIRE(got.size() == 1);
    return {got[0].first, alloclab::bits::count_trailing_zeros(got[0].second)};
  }
};
struct Free {
  DeallocOp<A> op;
  DsCounts c;
  Free(std::uint64_t bid, unsigned slot, unsigned n) : op(bid, slot, n) {}
  BitStatus step(const Heap& h) { return op.step(h, c); }
  void until(const Heap& h, FreePhase p) {
    for (int k = 0; k < kBound && op.phase() != p; ++k) step(h);
    REQUIRE(op.phase() == p);
  }
  void finish(const Heap& h) {
    for (int k = 0; k < kBound && !op.finished(); ++k) step(h);
    REQUIRE(op.finished());
    REQUIRE(!op.double_free());
  }
};

// A heap of `pages` pages, every block free but those placed.
struct World {
  HeapStorage st;
  std::set<std::uint64_t> live;  // first pages of the objects held
  explicit World(std::uint64_t pages) : st(pages, std::vector<bool>(pages, false)) {}
  const Heap& h() const { return st.heap; }
  void place(std::uint64_t bid, unsigned n, std::uint64_t slots) {
    st.place(bid, n, slots);
    for (std::uint64_t m = slots; m; m &= m - 1)
      live.insert(slot_first_page(bid, alloclab::bits::count_trailing_zeros(m), n));
  }
  void hold(std::uint64_t bid, unsigned slot, unsigned n) {
    REQUIRE(live.insert(slot_first_page(bid, slot, n)).second);
  }
  void release(std::uint64_t bid, unsigned slot, unsigned n) {
    REQUIRE(live.erase(slot_first_page(bid, slot, n)) == 1);
  }
  void check() const {
    const std::string e = st.check([&](std::uint64_t p) { return live.count(p) == 1; });
    CHECK(e == "");
  }
  bool in(const HBitmap& b, std::uint64_t i) const { return (b.word(0, i / 64) >> (i % 64)) & 1u; }
};
std::uint64_t all_but(unsigned slot) {
  return ~(std::uint64_t{1} << slot);
}
}  // namespace

TEST_CASE("dynasoar A.3 Block Full: the selected block fills up before the reservation",
          "[dynasoar][cases]") {
  World w(128);               // blocks 0 and 1
  w.place(0, 1, all_but(5));  // one free slot: 5
  Alloc x(1, 0);
  x.until(w.h(), AllocPhase::reserve_load);  // x selected block 0
  Alloc y(1, 7);
  y.finish(w.h());  // y takes slot 5: block 0 is full and inactive
  CHECK(y.slot() == std::make_pair(std::uint64_t{0}, 5u));
  w.hold(0, 5, 1);
  CHECK(!w.in(w.h().active(1), 0));
  x.finish(w.h());  // x's reservation fails; it starts over and initialises block 1
  CHECK(x.c.reserve_fails == 1);
  CHECK(x.c.blocks_initialised == 1);
  REQUIRE(x.slot().first == 1);
  w.hold(1, x.slot().second, 1);
  w.check();
}

TEST_CASE("dynasoar A.3 Block Deallocated: the selected block is deleted before the reservation",
          "[dynasoar][cases]") {
  World w(128);
  w.place(0, 1, std::uint64_t{1} << 3);  // one object, slot 3
  Alloc x(1, 0);
  x.until(w.h(), AllocPhase::reserve_load);
  Free f(0, 3, 1);
  f.finish(w.h());  // the last object: block 0 is invalidated and deleted
  w.release(0, 3, 1);
  CHECK(f.op.deleted_block());
  CHECK(w.in(w.h().free(), 0));
  x.finish(w.h());  // the reservation sees an invalidated block (all ones) and fails
  CHECK(x.c.reserve_fails == 1);
  CHECK(x.c.blocks_initialised == 1);
  const auto [bid, slot] = x.slot();
  w.hold(bid, slot, 1);
  w.check();
}

TEST_CASE("dynasoar A.3 Block Replaced (ABA): deleted and re-initialised to the same type",
          "[dynasoar][cases]") {
  World w(64);  // one block
  w.place(0, 1, std::uint64_t{1} << 3);
  Alloc x(1, 0);
  x.until(w.h(), AllocPhase::reserve_load);
  Free f(0, 3, 1);
  f.finish(w.h());
  w.release(0, 3, 1);
  Alloc z(1, 20);
  z.finish(w.h());  // re-initialises block 0 for type 1
  CHECK(z.c.blocks_initialised == 1);
  const auto [zb, zs] = z.slot();
  w.hold(zb, zs, 1);
  x.finish(w.h());  // harmless: x reserves in the new block of its type
  CHECK(x.c.rollbacks == 0);
  CHECK(x.c.reserve_fails == 0);
  const auto [xb, xs] = x.slot();
  CHECK(xb == 0);
  CHECK(xs != zs);
  w.hold(xb, xs, 1);
  w.check();
}

TEST_CASE("dynasoar A.3 Block Replaced (different type): the reservation is rolled back",
          "[dynasoar][cases]") {
  World w(64);
  w.place(0, 1, std::uint64_t{1} << 3);
  Alloc x(1, 0);
  x.until(w.h(), AllocPhase::reserve_load);
  Free f(0, 3, 1);
  f.finish(w.h());
  w.release(0, 3, 1);
  Alloc z(2, 20);  // objects of two pages: 32 per block
  z.finish(w.h());
  const auto [zb, zs] = z.slot();
  CHECK(zs < 32);
  w.hold(zb, zs, 2);
  x.finish(w.h());  // x reserves a slot of the type-2 block, reads type 2, deallocates it as such
  CHECK(x.c.reserves == 1);
  CHECK(x.c.rollbacks == 1);
  CHECK(x.got.empty());
  CHECK(x.c.gave_up == 1);  // nothing else: no active block of type 1 and no free block
  CHECK(w.st.types[0] == 2);
  w.check();  // block 0 holds z's object only; its bitmaps as before x
}

TEST_CASE("dynasoar A.3 Active Block Not Selected: a transient inconsistency fails a lookup",
          "[dynasoar][cases]") {
  // 65 blocks, two levels. Block 0 (container 0) has one free slot, block 64 (container 1) 63.
  // y takes block 0's last slot and clears active[1] bit 0 on level 0; before it clears level 1,
  // x reads level 1 (container 0 still marked) and then the empty container 0: its lookup fails
  // although block 64 is active.
  const unsigned retries = GENERATE(1u, 5u);
  CAPTURE(retries);
  World w(64 * 65);
  w.place(0, 1, all_but(5));
  w.place(64, 1, 1);
  Alloc y(1, 7);
  y.until(w.h(), AllocPhase::deactivate);
  y.step(w.h());  // level 0 of active[1]: container 0 is empty, level 1 not yet updated
  REQUIRE(y.op.phase() == AllocPhase::deactivate);
  AllocConfig cfg;
  cfg.retries = retries;
  Alloc x(1, 63, cfg);  // its first rotation is (63 + 1) mod 64 = 0: container 0 first
  x.step(w.h());        // loads level 1
  x.step(w.h());        // loads container 0: empty
  CHECK(x.c.bitmap.find_fails == 1);
  y.finish(w.h());
  w.hold(0, 5, 1);
  x.finish(w.h());
  const auto [xb, xs] = x.slot();
  w.hold(xb, xs, 1);
  if (retries == 1) {  // straight to the slow path: a new block, more fragmentation only
    CHECK(x.c.blocks_initialised == 1);
    CHECK(xb != 64);
  } else {  // the next lookup, rotated on, finds block 64
    CHECK(x.c.blocks_initialised == 0);
    CHECK(xb == 64);
  }
  w.check();
}

TEST_CASE("dynasoar A.4 Allocate after Delete-First: the filler's deactivation waits for it",
          "[dynasoar][cases]") {
  World w(128);
  w.place(0, 1, all_but(5));
  Alloc x(1, 0);  // t2: selected block 0 while it had a free slot
  x.until(w.h(), AllocPhase::reserve_load);
  Alloc y(1, 7);  // t3 fills the block
  y.finish(w.h());
  w.hold(0, 5, 1);
  Free f(0, 10, 1);  // t1 frees slot 10 of the full block: FIRST, not yet marked active
  f.step(w.h());
  REQUIRE(f.op.phase() == FreePhase::activate);
  w.release(0, 10, 1);
  x.until(w.h(), AllocPhase::deactivate);  // t2 got slot 10 and filled the block again
  for (int k = 0; k < 5; ++k) x.step(w.h());
  CHECK(x.op.phase() == AllocPhase::deactivate);  // spinning: the bit is not set yet
  CHECK(x.c.bitmap.clear_spins == 5);
  f.finish(w.h());
  x.finish(w.h());
  CHECK(x.slot() == std::make_pair(std::uint64_t{0}, 10u));
  w.hold(0, 10, 1);
  CHECK(!w.in(w.h().active(1), 0));  // full and inactive
  w.check();
}

TEST_CASE("dynasoar A.4 Block Deleted after Delete-First: impossible as the deleter waits",
          "[dynasoar][cases]") {
  World w(128);
  w.place(0, 32, 0b11);  // objects of 32 pages: 2 per block, both held (full)
  Free f1(0, 0, 32);
  f1.step(w.h());  // FIRST; active[32] not yet set
  REQUIRE(f1.op.phase() == FreePhase::activate);
  w.release(0, 0, 32);
  Free f2(0, 1, 32);  // the last object: EMPTY, invalidated, then active[32].clear waits
  f2.until(w.h(), FreePhase::del_active);
  for (int k = 0; k < 5; ++k) f2.step(w.h());
  CHECK(f2.op.phase() == FreePhase::del_active);
  CHECK(f2.c.bitmap.clear_spins == 5);
  CHECK(!w.in(w.h().free(), 0));  // not deleted while t1 has not marked it active
  w.release(0, 1, 32);
  f1.finish(w.h());
  f2.finish(w.h());
  CHECK(f2.op.deleted_block());
  CHECK(w.in(w.h().free(), 0));
  w.check();
}

TEST_CASE("dynasoar A.4 Allocate after Delete-Last: the invalidation fails and rolls back",
          "[dynasoar][cases]") {
  World w(128);
  w.place(0, 1, std::uint64_t{1} << 3);
  Free f(0, 3, 1);
  f.step(w.h());  // EMPTY; not yet invalidated
  REQUIRE(f.op.phase() == FreePhase::inv_or);
  w.release(0, 3, 1);
  Alloc x(1, 0);
  x.finish(w.h());  // allocates in block 0 again (still active)
  const auto [xb, xs] = x.slot();
  CHECK(xb == 0);
  w.hold(xb, xs, 1);
  f.finish(w.h());
  CHECK(f.c.invalidations == 1);
  CHECK(f.c.inval_rollbacks == 1);
  CHECK(f.c.invalidated == 0);
  CHECK(!f.op.deleted_block());
  CHECK(w.in(w.h().active(1), 0));
  w.check();
}

TEST_CASE("dynasoar A.4 Block Deleted after Delete-Last: the late invalidation finds nothing",
          "[dynasoar][cases]") {
  World w(128);
  w.place(0, 1, std::uint64_t{1} << 3);
  Free f1(0, 3, 1);
  f1.step(w.h());
  w.release(0, 3, 1);
  Alloc x(1, 0);
  x.finish(w.h());
  const auto [xb, xs] = x.slot();
  REQUIRE(xb == 0);
  Free f3(0, xs, 1);  // frees it again and deletes the block
  f3.finish(w.h());
  CHECK(f3.op.deleted_block());
  f1.finish(w.h());  // its atomicOr changes nothing: the block is invalidated already
  CHECK(f1.c.invalidations == 1);
  CHECK(f1.c.invalidated == 0);
  CHECK(f1.c.inval_rollbacks == 0);
  CHECK(w.in(w.h().free(), 0));
  w.check();
}

TEST_CASE("dynasoar A.4 Block Replaced after Delete-Last: another type's block is left alone",
          "[dynasoar][cases]") {
  World w(64);  // one block
  w.place(0, 1, std::uint64_t{1} << 3);
  Free f1(0, 3, 1);
  f1.step(w.h());
  w.release(0, 3, 1);
  Alloc x(1, 0);
  x.finish(w.h());
  Free f3(0, x.slot().second, 1);
  f3.finish(w.h());
  Alloc z(2, 20);  // re-initialises block 0 for objects of two pages
  z.finish(w.h());
  const auto [zb, zs] = z.slot();
  w.hold(zb, zs, 2);
  f1.finish(w.h());  // not empty: the invalidation rolls back
  CHECK(f1.c.invalidated == 0);
  CHECK(f1.c.inval_rollbacks == 1);
  CHECK(w.st.types[0] == 2);
  w.check();
}

TEST_CASE("dynasoar A.4 Block Replaced after Delete-Last: an empty new block is deleted safely",
          "[dynasoar][cases]") {
  // As above, but z has only initialised the block (type 2, nothing reserved) when t1's
  // invalidation runs: t1 deletes it (its clears wait for z's sets), z's reservation fails, and
  // z starts over and initialises the block again.
  World w(64);
  w.place(0, 1, std::uint64_t{1} << 3);
  Free f1(0, 3, 1);
  f1.step(w.h());
  w.release(0, 3, 1);
  Alloc x(1, 0);
  x.finish(w.h());
  Free f3(0, x.slot().second, 1);
  f3.finish(w.h());
  Alloc z(2, 20);
  z.until(w.h(), AllocPhase::set_allocated);  // type and bitmap written
  for (int k = 0; k < kBound && !(f1.op.finished() && z.op.finished()); ++k) {
    f1.step(w.h());
    z.step(w.h());
  }
  REQUIRE(f1.op.finished());
  REQUIRE(z.op.finished());
  CHECK(f1.op.deleted_block());
  CHECK(z.c.reserve_fails >= 1);
  CHECK(z.c.blocks_initialised == 2);
  const auto [zb, zs] = z.slot();
  w.hold(zb, zs, 2);
  w.check();
}
