// UAlloc's shared code (core/gelado/ualloc_*.hpp): the layout against §4.2's numbers worked by
// hand and a byte map of a whole chunk, a bin's exhaustion and relink, and the conditional RCU
// barrier's delegation replayed step by step (§4.2.1, Fig. 4b).
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "alloclab/core/gelado/ualloc_alloc.hpp"
#include "alloclab/core/gelado/ualloc_free.hpp"
#include "alloclab/core/gelado/ualloc_layout.hpp"
#include "alloclab/core/gelado/ualloc_state.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gelado;
using Atom = alloclab::ouro::HostAtomics;

TEST_CASE("UAlloc layout: slots per bin by hand from §4.2", "[gelado][ualloc]") {
  // 3968 B of body; sizes <= 128 B add a 128 B tail where the bin has one (bins 2..63).
  const std::uint32_t with_tail[8] = {512, 256, 128, 64, 32, 15, 7, 3};
  const std::uint32_t without[8] = {496, 248, 124, 62, 31, 15, 7, 3};
  for (std::uint32_t k = 0; k < kUAllocClasses; ++k) {
    CHECK(ualloc_slots(k, 2) == with_tail[k]);
    CHECK(ualloc_slots(k, 63) == with_tail[k]);
    CHECK(ualloc_slots(k, 64) == without[k]);  // the 128-bin reading's bins 64..127
    CHECK(ualloc_batch(k) == with_tail[k]);
  }
  CHECK(ualloc_class_of(1) == 0);
  CHECK(ualloc_class_of(9) == 1);
  CHECK(ualloc_class_of(1024) == 7);
  // Hand-worked offsets: bin 5's first 8 B slot after its header; bin 2's tail is tail 0 at the
  // start of bin 0's body; bin 33's is tail 31, bin 1's first; bin 63's is tail 61.
  CHECK(ualloc_slot_offset(0, 5, 0) == 5 * 4096 + 128);
  CHECK(ualloc_slot_offset(0, 2, 496) == 128);
  CHECK(ualloc_slot_offset(0, 33, 496) == 4096 + 128);
  CHECK(ualloc_slot_offset(0, 63, 511) == 4096 + 128 + 30 * 128 + 15 * 8);
  // A fresh bitmap lets only the bin's slots be taken: 15 slots of 256 B.
  CHECK(ualloc_fresh_bitmap_word(15, 0) == ~std::uint64_t{0} << 15);
  for (std::uint32_t w = 1; w < 8; ++w) CHECK(ualloc_fresh_bitmap_word(15, w) == ~std::uint64_t{0});
  for (std::uint32_t w = 0; w < 8; ++w) CHECK(ualloc_fresh_bitmap_word(512, w) == 0);
  CHECK(ualloc_fresh_bitmap_word(100, 1) == ~std::uint64_t{0} << 36);
  // The header's words fit its 128 B: 8 bitmap words and count, next, class, arena, rcu_next.
  CHECK(kUAllocBitmapWords * 8 + 5 * 4 <= kUAllocHeaderBytes);
}

TEST_CASE("UAlloc layout: a chunk's byte map for every class under both readings",
          "[gelado][ualloc]") {
  for (const std::uint32_t bins : {64u, 128u})
    for (std::uint32_t k = 0; k < kUAllocClasses; ++k) {
      CAPTURE(bins, k);
      const std::uint32_t s = ualloc_class_bytes(k);
      std::vector<std::uint8_t> owner(std::size_t{bins} * 4096, 0);
      std::uint64_t objects = 0;
      bool disjoint = true, clear_of_headers = true, unaligned = true, round_trip = true;
      for (std::uint32_t b = 2; b < bins; ++b)
        for (std::uint32_t j = 0; j < ualloc_slots(k, b); ++j) {
          const std::uint32_t off = ualloc_slot_offset(k, b, j);
          unaligned = unaligned && off % 4096 != 0;
          const UAllocPlace p = ualloc_place(off);
          round_trip = round_trip && p.bin == b && ualloc_slot_of(p, k) == j;
          for (std::uint32_t x = off; x < off + s; ++x) {
            disjoint = disjoint && owner[x] == 0;
            clear_of_headers = clear_of_headers && x % 4096 >= 128;
            owner[x] = 1;
          }
          ++objects;
        }
      CHECK(disjoint);
      CHECK(clear_of_headers);
      CHECK(unaligned);
      CHECK(round_trip);
      // By hand: (bins - 2) x floor(3968 / s), plus 62 tails of 128 / s for s <= 128.
      CHECK(objects == (bins - 2) * std::min(3968 / s, 512u) + (s <= 128 ? 62 * (128 / s) : 0));
    }
}

namespace {

template <class Machine>
void run(Machine& m, const UAllocView& v) {
  for (int i = 0; i < 100000 && m.step(v) != StepStatus::done; ++i) {
  }
  REQUIRE(m.phase() == decltype(m.phase())::done);
}
std::uint64_t alloc(const UAllocView& v, std::uint32_t k) {
  UAllocAlloc<Atom> a(v, k, 0, 0);
  run(a, v);
  REQUIRE(a.result() != kUAllocFailed);
  return a.result();
}
UAllocStats free_obj(const UAllocView& v, std::uint64_t off) {
  UAllocFree<Atom> f(v, off);
  run(f, v);
  REQUIRE(f.outcome() == UAllocFreeOutcome::freed);
  return f.stats();
}
// Steps m until its phase is `p` (at most `limit` steps).
template <class Machine, class Phase>
void step_to(Machine& m, const UAllocView& v, Phase p, int limit = 1000) {
  for (int i = 0; i < limit && m.phase() != p; ++i) m.step(v);
  REQUIRE(m.phase() == p);
}

void step_to_barrier(UAllocFree<Atom>& f, const UAllocView& v, SrcuBarrierPhase p) {
  for (int i = 0; i < 1000 && !(f.phase() == UAllocFreePhase::barrier && f.barrier_phase() == p);
       ++i)
    f.step(v);
  REQUIRE(f.barrier_phase() == p);
}

}  // namespace

TEST_CASE("UAlloc: an exhausted bin leaves its list and a free brings it back",
          "[gelado][ualloc]") {
  UAllocStorage st(6, 6, 1);  // one 256 KB chunk
  const UAllocView& v = st.view;
  const std::uint32_t li = v.list(0, 7);
  const std::uint64_t a = alloc(v, 7), b = alloc(v, 7), c = alloc(v, 7);  // 3 slots of 1 KB
  CHECK(a == 2 * 4096 + 128);
  CHECK(b == a + 1024);
  CHECK(c == a + 2048);
  CHECK(v.heads[li] == kNoBin);  // exhausted: unlinked
  CHECK(v.bin_count[2] == 0);
  CHECK(ualloc_check(v, 1).empty());
  const UAllocStats s = free_obj(v, b);
  CHECK(s.relinks == 1);
  CHECK(v.heads[li] == 2);
  CHECK(v.bin_count[2] == (1u | kBinListed));
  CHECK(v.bin_bitmap[2 * 8] == (ualloc_fresh_bitmap_word(3, 0) | 0b101));
  CHECK(ualloc_check(v, 1).empty());
  CHECK(alloc(v, 7) == b);  // the freed slot again
}

TEST_CASE("UAlloc: the conditional RCU barrier delegates (Fig. 4b) step by step",
          "[gelado][ualloc]") {
  UAllocStorage st(6, 6, 1);
  const UAllocView& v = st.view;
  // Bins 2, 3, 4 of 1 KB filled (3 slots each, in order), then each left with one object.
  std::uint64_t o[9], last[3];
  for (auto& x : o) x = alloc(v, 7);
  for (int bin = 0; bin < 3; ++bin) {
    CHECK(o[3 * bin] == (2u + bin) * 4096 + 128);
    free_obj(v, o[3 * bin]);
    free_obj(v, o[3 * bin + 1]);
    last[bin] = o[3 * bin + 2];
  }
  alloc(v, 0);  // an 8 B bin, so that a taker of 8 B reads its list
  // A reader: a taker of 8 B inside the read side (epoch 0).
  UAllocAlloc<Atom> reader(v, 0, 0, 0);
  step_to(reader, v, UAllocAllocPhase::visit);
  CHECK(v.rcu_readers[0] == 1);
  // F1 retires bin 2 and holds the barrier: it took the callback stack (bin 2), flipped the
  // epoch and waits for the reader.
  UAllocFree<Atom> f1(v, last[0]), f2(v, last[1]), f3(v, last[2]);
  step_to_barrier(f1, v, SrcuBarrierPhase::drain);
  CHECK(f1.step(v) == StepStatus::spinning);
  CHECK(v.rcu_state[0] == kRcuHeld);
  CHECK(v.rcu_epoch[0] == 1);
  // F2 retires bin 3 and waits to flip the epoch: the waiter.
  step_to_barrier(f2, v, SrcuBarrierPhase::waiting);
  CHECK(f2.step(v) == StepStatus::spinning);
  CHECK(v.rcu_state[0] == (kRcuHeld | kRcuWaiter));
  // F3 retires bin 4 and returns at once: F2 will run its callback.
  run(f3, v);
  CHECK(f3.stats().retires == 1);
  CHECK(f3.stats().delegations == 1);
  CHECK(f3.stats().barriers == 0);
  CHECK(v.rcu_callbacks[0] == 4);  // bin 4 on top of bin 3
  CHECK(v.bin_rcu_next[4] == 3);
  // The reader finishes; F1 drains, gives bin 2 back, releases; F2 takes over and gives back 3, 4.
  CHECK(f1.step(v) == StepStatus::spinning);
  run(reader, v);
  run(f1, v);
  CHECK(f1.stats().barriers == 1);
  CHECK(f1.stats().reclaimed == 1);
  CHECK(v.bin_class[2] == kNoBin);
  CHECK(v.bin_class[3] == 7);  // still waiting for F2
  run(f2, v);
  CHECK(f2.stats().barriers == 1);
  CHECK(f2.stats().reclaimed == 2);
  CHECK(v.bin_class[3] == kNoBin);
  CHECK(v.bin_class[4] == kNoBin);
  CHECK(v.rcu_epoch[0] == 2);
  CHECK(v.chunk_bins[0] == 0b100011);  // bins 0, 1 and the 8 B bin 5 remain
  CHECK(ualloc_check(v, 1).empty());
}

TEST_CASE("UAlloc: a warp leader's wait takes its lanes' units at once", "[gelado][ualloc]") {
  // The GPU's warp-aggregated wait (studies/gelado-garland/speed.md), by hand: one 256 KB chunk,
  // class 0 (8 B), batch B = 512 (a bin with a tail). A leader of 4 lanes on an empty arena
  // grows bin 2, keeps slot 0, leaves slots 1..511 on the bin's count, and signals
  // (512 - 4, 512 - 4): C = 508 (the three lanes' slots are the bin's, not C's), E = 0.
  UAllocStorage st(6, 6, 1);
  const UAllocView& v = st.view;
  const std::uint32_t li = v.list(0, 0);
  REQUIRE(ualloc_most_shared_units(0) == 32);
  REQUIRE(ualloc_most_shared_units(7) == 3);  // three 1 KB slots in a bin's body
  UAllocAlloc<Atom> leader(v, 0, 0, 0, 4);
  run(leader, v);
  const std::uint64_t first = 2 * 4096 + 128;
  CHECK(leader.result() == first);
  CHECK(leader.stats().waits_grew == 1);
  alloclab::SemCounters c = BulkWord::unpack(v.sems[li]);
  CHECK(c.count == 508);
  CHECK(c.expected == 0);
  CHECK(c.reserved == 0);
  CHECK(v.bin_count[2] == (511u | kBinListed));
  // The three lanes skip the wait and take slots 1, 2, 3 from the bin's count and bitmap.
  for (std::uint64_t j = 1; j <= 3; ++j) {
    UAllocAlloc<Atom> lane(v, 0, 0, 0);
    lane.grant_unit();
    run(lane, v);
    CHECK(lane.result() == first + 8 * j);
    CHECK(lane.stats().waits_took == 1);
    CHECK(lane.stats().reserves == 0);
  }
  CHECK(v.bin_count[2] == (508u | kBinListed));  // = C: the semaphore counts the list
  CHECK(ualloc_check(v, 1).empty());
  // A leader of 5 now takes (C = 508 >= 5): C = 503, and its lanes take slots 5..8.
  UAllocAlloc<Atom> taker(v, 0, 0, 0, 5);
  run(taker, v);
  CHECK(taker.stats().waits_took == 1);
  CHECK(taker.result() == first + 8 * 4);
  CHECK(BulkWord::unpack(v.sems[li]).count == 503);
  for (std::uint64_t j = 5; j <= 8; ++j) {
    UAllocAlloc<Atom> lane(v, 0, 0, 0);
    lane.grant_unit();
    run(lane, v);
    CHECK(lane.result() == first + 8 * j);
  }
  CHECK(v.bin_count[2] == (503u | kBinListed));
  CHECK(ualloc_check(v, 1).empty());
}

namespace {
// The GPU's warp-aggregated protocol (gpu/src/gg_ualloc.cu, ualloc_warp_request) replayed on the
// step machines under a random interleaving of every thread's steps: per warp a leader waits for
// its run's n units; once it took, or grew and finished, its lanes go on as takers
// (grant_unit); a leader whose growth failed makes every lane of its run (itself too) ask alone.
// Returns the objects served; checks them disjoint and the state at rest.
std::uint64_t replay_warps(std::uint32_t k, std::uint32_t warps, std::uint32_t n,
                           std::uint64_t seed) {
  UAllocStorage st(6, 6, 1);  // one 256 KB chunk
  const UAllocView& v = st.view;
  struct Thread {
    std::unique_ptr<UAllocAlloc<Atom>> op;
    int warp = 0;
    bool leader = false, started = false;
  };
  std::vector<Thread> threads;
  for (std::uint32_t w = 0; w < warps; ++w)
    for (std::uint32_t l = 0; l < n; ++l) {
      Thread t;
      t.warp = static_cast<int>(w);
      t.leader = l == 0;
      t.started = t.leader;
      t.op = std::make_unique<UAllocAlloc<Atom>>(v, k, 0, l, t.leader ? n : 1);
      threads.push_back(std::move(t));
    }
  std::mt19937_64 rng(seed);
  std::set<std::uint64_t> served;
  bool all_done = false;
  for (int guard = 0; guard < 10000000 && !all_done; ++guard) {
    all_done = true;
    std::vector<std::size_t> runnable;
    for (std::size_t i = 0; i < threads.size(); ++i) {
      Thread& t = threads[i];
      if (t.op->phase() == UAllocAllocPhase::done) continue;
      all_done = false;
      if (!t.started) {  // a lane: its leader's word?
        const Thread& lead = threads[i - (i % n)];
        const UAllocStats& ls = lead.op->stats();
        const bool took = ls.waits_took > 0 && lead.op->phase() != UAllocAllocPhase::wait;
        const bool grew_done = ls.waits_grew > 0 && lead.op->phase() == UAllocAllocPhase::done;
        if (took || (grew_done && lead.op->result() != kUAllocFailed)) {
          t.op->grant_unit();
          t.started = true;
        } else if (grew_done) {
          t.started = true;  // the growth failed: ask alone, as a thread of its own
        } else {
          continue;
        }
      }
      runnable.push_back(i);
    }
    if (runnable.empty()) continue;
    Thread& t = threads[runnable[rng() % runnable.size()]];
    t.op->step(v);
  }
  REQUIRE(all_done);
  // Leaders whose growth failed ask again alone (their lanes did above, as fresh requests would).
  std::uint64_t objects = 0;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    Thread& t = threads[i];
    std::uint64_t r = t.op->result();
    if (r == kUAllocFailed && t.leader && t.op->stats().waits_grew > 0) {
      UAllocAlloc<Atom> again(v, k, 0, 0);
      run(again, v);
      r = again.result();
    }
    if (r == kUAllocFailed) continue;
    ++objects;
    CHECK(served.insert(r).second);  // no slot handed out twice
  }
  CHECK(ualloc_check(v, 1).empty());
  return objects;
}
}  // namespace

TEST_CASE("UAlloc: warp-aggregated waits under random interleavings serve each slot once",
          "[gelado][ualloc]") {
  // 1 KB (class 7): a bin holds 3, so runs of 3 lanes grow a bin each; 62 bins hold 186 slots.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    CHECK(replay_warps(7, 20, 3, seed) == 60);  // 60 fit
    // 70 runs of 3 = 210 requests, more than the 186 slots: exactly 186 served, whatever the
    // order (a failed growth sends its lanes to ask alone, which takes the slots left).
    CHECK(replay_warps(7, 70, 3, seed) == 186);
  }
  // 8 B (class 0): runs of 32 share bins of 512 and 496 slots.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) CHECK(replay_warps(0, 24, 32, seed) == 768);
}
