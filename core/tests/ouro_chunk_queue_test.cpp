// Ouroboros variant C's step machines (core/ouroboros/chunk_queue.hpp, chunk_page.hpp) driven
// directly on host memory: the races of Alg. 5 replayed step by step, the flash of a wholly free
// chunk and its retyping, and a concurrent churn of host threads checked against an ownership
// table and the allocator's invariants at rest.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/ouroboros/chunk_free.hpp"
#include "alloclab/core/ouroboros/chunk_page.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::ouro;

namespace {
using A = HostAtomics;
constexpr std::uint64_t kNoBound = ~std::uint64_t{0};

auto yield_spin = [](std::uint64_t spins) {
  std::this_thread::yield();
  return spins < (std::uint64_t{1} << 28);  // far beyond any wait here: reaching it fails
};

// A pool of `chunks` fresh chunks and the ten queues over it.
struct Pool {
  explicit Pool(std::uint32_t chunks)
      : capacity(chunk_ring_capacity(chunks)),
        meta(chunks),
        cls(chunks, 0xff),
        reuse_slots(capacity, kDeletionMarker) {
    for (auto& w : words) w.semaphore = sem_pack({});
    for (std::uint32_t c = 0; c < chunks; ++c) available.push_back(c);
    for (unsigned k = 0; k < kPageClasses; ++k) {
      slots[k].assign(capacity, kEmptyEntry);
      q.slots[k] = slots[k].data();
      q.capacity[k] = capacity;
    }
    q.words = words.data();
    q.meta = meta.data();
    q.chunk_class = cls.data();
    q.fresh = &fresh;
    q.available = available.data();
    q.available_count = chunks;
    q.reuse = IndexQueueRef{&reuse_words, reuse_slots.data(), capacity};
  }
  std::uint32_t capacity;
  std::vector<ChunkMeta> meta;
  std::vector<std::uint8_t> cls;
  std::vector<std::uint32_t> reuse_slots, available;
  std::array<ChunkQueueWords, kPageClasses> words{};
  std::array<std::vector<std::uint64_t>, kPageClasses> slots;
  ChunkSourceWords fresh;
  IndexQueueWords reuse_words;
  ChunkQueues q;
  ChunkCounts counts;

  // One request of class k run to its end: (chunk, page), or chunk == kHoleChunk when it failed.
  std::pair<std::uint32_t, std::uint32_t> malloc(unsigned k, unsigned rotation = 0) {
    ChunkReserveOp<A> r(1, k);
    REQUIRE(run_chunk_reserve(r, q, counts, kNoBound, yield_spin));
    if (r.outcome() != ReserveOutcome::ok) return {kHoleChunk, 0};
    ChunkTakeOp<A> t(k, rotation);
    REQUIRE(run_chunk_take(t, q, counts, kNoBound, yield_spin));
    REQUIRE(t.outcome() == TakeOutcome::ok);
    return {t.chunk(), t.page()};
  }
  ChunkFreeOutcome free(std::pair<std::uint32_t, std::uint32_t> p) {
    return chunk_free_page<A>(q, p.first, p.second, counts, yield_spin);
  }
  SemCounters sem(unsigned k) const { return sem_unpack(words[k].semaphore); }
  bool queued(std::uint32_t c) const { return meta[c].flags & kChunkInQueue; }
};

// Steps `op` until its phase is `target` (one memory operation each).
template <class Op, class Phase>
void step_to(Op& op, Pool& p, Phase target) {
  for (int i = 0; i < 64 && op.phase() != target; ++i) op.step(p.q, p.counts);
  REQUIRE(op.phase() == target);
}

}  // namespace

// §4.2: "the chunk … can be reused as any chunk type". Four chunks of 16 B pages, all freed: each
// is flashed at its last free; then 8 KiB pages are served from exactly those four, and a fifth
// request is out of memory.
TEST_CASE("chunk queue: wholly freed chunks are flashed and retyped", "[core][ouro][chunk]") {
  Pool p(4);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
  for (int i = 0; i < 4 * 512; ++i) got.push_back(p.malloc(0, static_cast<unsigned>(i % 32)));
  for (const auto& g : got) REQUIRE(g.first < 4);
  CHECK(p.malloc(0).first == kHoleChunk);  // full
  std::uint32_t flashed = 0;
  for (const auto& g : got) flashed += p.free(g) == ChunkFreeOutcome::flashed;
  CHECK(flashed == 4);
  CHECK(p.sem(0).count == 0);  // every page of class 0 went back with its chunk
  std::vector<bool> seen(4, false);
  for (int i = 0; i < 4; ++i) {
    const auto g = p.malloc(9);
    REQUIRE(g.first < 4);
    CHECK_FALSE(seen[g.first]);
    seen[g.first] = true;
    CHECK(p.cls[g.first] == 9);
  }
  CHECK(p.counts.reused == 4);
  CHECK(p.malloc(9).first == kHoleChunk);
  const SemCounters s = p.sem(9);
  CHECK(s.count == 0);
  CHECK(s.expected == 0);
  CHECK(s.reserved == 0);
}

// Alg. 5's race, replayed: lane B reads the entry of a chunk whose last page lane A then takes
// (A removes the entry: DEQUEUE at front); B's subtraction finds 0; a free F gives the page back
// while B's miss is pending, so F's add finds -1 and does not publish; B's undo finds 0 (l.5: B
// made the page visible) and B takes it: the up-crossing and B's own last take cancel (SUCCESS,
// l.7), and the chunk is out of the queue with no page free, as it should be.
TEST_CASE("chunk queue: a pending miss that meets a free takes the page (l.5-7)",
          "[core][ouro][chunk]") {
  Pool p(2);
  ChunkReserveOp<A> ra(1, 9);
  REQUIRE(run_chunk_reserve(ra, p.q, p.counts, kNoBound, yield_spin));
  ChunkTakeOp<A> b(9, 0);
  step_to(b, p, TakePhase::sub);  // B has read the entry
  ChunkTakeOp<A> a(9, 0);
  REQUIRE(run_chunk_take(a, p.q, p.counts, kNoBound, yield_spin));
  CHECK(p.counts.dequeue == 1);
  CHECK(p.counts.pops == 1);
  CHECK_FALSE(p.queued(a.chunk()));
  b.step(p.q, p.counts);  // count 0 -> -1
  REQUIRE(b.phase() == TakePhase::undo);
  CHECK(p.free({a.chunk(), a.page()}) == ChunkFreeOutcome::ok);  // -1 -> 0: no publish
  CHECK_FALSE(p.queued(a.chunk()));
  REQUIRE(run_chunk_take(b, p.q, p.counts, kNoBound, yield_spin));
  CHECK(b.chunk() == a.chunk());
  CHECK(p.counts.success == 1);
  CHECK(p.counts.re_enqueue == 0);
  CHECK(state_free(p.meta[b.chunk()].state) == 0);
  CHECK_FALSE(p.queued(b.chunk()));
}

// The same with two pages freed around B's undo, on a chunk of four pages (two stay in use, so it
// is not flashed): F1 gives one back while B's miss is pending (-1 -> 0, no publish), B's undo
// makes it visible (0 -> 1: l.5, RE_ENQUEUE), F2 gives another back (1 -> 2, not a crossing: no
// publish), and B takes one of two: one is left that nobody else would publish, so B puts the
// chunk back in the queue (l.6-8).
TEST_CASE("chunk queue: RE_ENQUEUE publishes a chunk that a pending miss made visible",
          "[core][ouro][chunk]") {
  Pool p(3);
  const unsigned k = 7;  // four pages per chunk
  const auto x0 = p.malloc(k), x1 = p.malloc(k), x2 = p.malloc(k);
  ChunkReserveOp<A> r1(1, k);
  REQUIRE(run_chunk_reserve(r1, p.q, p.counts, kNoBound, yield_spin));
  ChunkTakeOp<A> b(k, 0);
  step_to(b, p, TakePhase::sub);  // B has read chunk X's entry
  // The last page of X: this request grows a chunk Y (B holds the unit X's page stood for), but
  // walks from front and takes X's page first: DEQUEUE, X out of the queue.
  const auto x3 = p.malloc(k);
  REQUIRE(x3.first == x0.first);
  CHECK_FALSE(p.queued(x0.first));
  b.step(p.q, p.counts);  // 0 -> -1
  REQUIRE(b.phase() == TakePhase::undo);
  CHECK(p.free(x0) == ChunkFreeOutcome::ok);  // -1 -> 0
  CHECK_FALSE(p.queued(x0.first));
  b.step(p.q, p.counts);  // 0 -> 1: B made the page visible
  REQUIRE(b.phase() == TakePhase::sub);
  CHECK(p.free(x1) == ChunkFreeOutcome::ok);  // 1 -> 2
  CHECK_FALSE(p.queued(x0.first));
  REQUIRE(run_chunk_take(b, p.q, p.counts, kNoBound, yield_spin));
  CHECK(b.chunk() == x0.first);
  CHECK(p.counts.re_enqueue == 1);
  CHECK(state_free(p.meta[x0.first].state) == 1);
  CHECK(p.queued(x0.first));
  (void)x2;
}

// A chunk flashed while its entry waits behind front: the flasher leaves a hole there and hands
// the chunk to the reuse queue; the lane that later finds the hole at front removes it; the
// chunk serves the next grower.
TEST_CASE("chunk queue: a flashed chunk's entry becomes a hole and the chunk is reused",
          "[core][ouro][chunk]") {
  Pool p(2);
  const unsigned k = 8;                           // two pages per chunk
  const auto x0 = p.malloc(k), x1 = p.malloc(k);  // chunk X, emptied and removed
  const auto y0 = p.malloc(k);                    // chunk Y grown, at front with one page
  REQUIRE(x0.first == x1.first);
  REQUIRE(y0.first != x0.first);
  CHECK(p.free(x0) == ChunkFreeOutcome::ok);  // X published behind Y
  CHECK(p.queued(x0.first));
  CHECK(p.free(x1) == ChunkFreeOutcome::flashed);  // X flashed: a hole where its entry was
  CHECK_FALSE(p.queued(x0.first));
  CHECK(p.counts.flashes == 1);
  const auto y1 = p.malloc(k);  // Y's last page: Y removed at front
  CHECK(y1.first == y0.first);
  const std::uint32_t pops = p.counts.pops;
  const auto z = p.malloc(3);  // another class: the grower takes X from the reuse queue
  CHECK(z.first == x0.first);
  CHECK(p.counts.reused == 1);
  CHECK(p.cls[x0.first] == 3);
  // Class 8's next request grows (nothing free there) and walks past the hole at front.
  p.free(y0);
  const auto w = p.malloc(k);
  CHECK(w.first == y0.first);
  CHECK(p.counts.pops >= pops + 1);
}

// Host threads allocate and free pages of three classes on a small pool (so that chunks empty,
// are flashed, retyped and run out), every page checked against an ownership table; at rest, the
// invariants the GPU's verification checks: per live chunk its count equals its mask's set bits
// and a chunk with free pages is in its queue; per class the semaphore counts exactly the free
// pages of its live chunks, with no promise or reservation left.
TEST_CASE("chunk queue: concurrent churn keeps pages unique and the counts consistent",
          "[core][ouro][chunk][threads]") {
  constexpr std::uint32_t kChunks = 6;
  Pool p(kChunks);
  std::vector<std::atomic<std::uint8_t>> owned(kChunks * kUnitsPerChunk);
  std::atomic<bool> twice{false}, stuck{false};
  std::atomic<std::uint64_t> served{0}, refused{0}, flashes{0}, reused{0};
  constexpr unsigned kClasses[] = {0, 4, 9};
  auto worker = [&](unsigned id) {
    ChunkCounts mine;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> held;
    std::vector<unsigned> held_class;
    std::uint64_t x = 0x9E3779B97F4A7C15ull * (id + 1);
    auto next = [&] {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    for (int op = 0; op < 40000 && !stuck; ++op) {
      if (held.size() < 48 && (held.empty() || next() % 3 != 0)) {
        const unsigned k = kClasses[next() % 3];
        ChunkReserveOp<A> r(1, k);
        if (!run_chunk_reserve(r, p.q, mine, kNoBound, yield_spin)) stuck = true;
        if (r.outcome() != ReserveOutcome::ok) {
          ++refused;
          continue;
        }
        ChunkTakeOp<A> t(k, id);
        if (!run_chunk_take(t, p.q, mine, kNoBound, yield_spin) || t.outcome() != TakeOutcome::ok) {
          stuck = true;
          break;
        }
        const std::uint64_t unit =
            std::uint64_t{t.chunk()} * kUnitsPerChunk + std::uint64_t{t.page()} * units_per_page(k);
        for (std::uint64_t u = unit; u < unit + units_per_page(k); ++u)
          if (owned[u].exchange(1) != 0) twice = true;
        held.push_back({t.chunk(), t.page()});
        held_class.push_back(k);
        ++served;
      } else {
        const std::size_t j = next() % held.size();
        const auto [c, pg] = held[j];
        const unsigned k = held_class[j];
        const std::uint64_t unit =
            std::uint64_t{c} * kUnitsPerChunk + std::uint64_t{pg} * units_per_page(k);
        for (std::uint64_t u = unit; u < unit + units_per_page(k); ++u) owned[u].store(0);
        if (chunk_free_page<A>(p.q, c, pg, mine, yield_spin) == ChunkFreeOutcome::stopped)
          stuck = true;
        held[j] = held.back();
        held.pop_back();
        held_class[j] = held_class.back();
        held_class.pop_back();
      }
    }
    for (std::size_t j = 0; j < held.size(); ++j) {
      const unsigned k = held_class[j];
      const std::uint64_t unit = std::uint64_t{held[j].first} * kUnitsPerChunk +
                                 std::uint64_t{held[j].second} * units_per_page(k);
      for (std::uint64_t u = unit; u < unit + units_per_page(k); ++u) owned[u].store(0);
      chunk_free_page<A>(p.q, held[j].first, held[j].second, mine, yield_spin);
    }
    flashes += mine.flashes;
    reused += mine.reused;
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) threads.emplace_back(worker, t);
  for (auto& t : threads) t.join();
  CHECK_FALSE(twice);
  CHECK_FALSE(stuck);
  CHECK(served > 1000);
  CHECK(refused > 0);  // the pool ran out for some class
  // The paths this test is for were taken: chunks flashed and retyped through the reuse queue.
  CHECK(flashes > 0);
  CHECK(reused > 0);
  std::array<std::int64_t, kPageClasses> free_pages{};
  for (std::uint32_t c = 0; c < kChunks; ++c) {
    const unsigned k = p.cls[c];
    if (k >= kPageClasses || (p.meta[c].flags & kChunkRetired)) continue;
    const std::int64_t f = state_free(p.meta[c].state);
    std::int64_t bits = 0;
    for (unsigned w = 0; w < mask_words(k); ++w)
      bits += alloclab::bits::popcount(p.meta[c].bits[w]);
    CAPTURE(c, k);
    CHECK(bits == f);
    CHECK(f == pages_per_chunk(k));  // everything was freed
    if (f > 0) CHECK(p.queued(c));
    free_pages[k] += f;
  }
  for (unsigned k = 0; k < kPageClasses; ++k) {
    CAPTURE(k);
    const SemCounters s = p.sem(k);
    CHECK(s.count == free_pages[k]);
    CHECK(s.expected == 0);
    CHECK(s.reserved == 0);
  }
}

// Front (chunk_page.hpp, kFrontRun): 34 chunks of one 8 KiB page each are published at positions
// 0..33; the pages of the first 32 are then taken by hand (as by lanes whose walk did not start at
// front, which leave their emptied entries where they are). Lane B reads the 32 dead entries from
// front and stops just before it moves front; lane A does the same, moves front to 32 with one
// max and removes the 32 entries itself, takes the page at 32 (its last: DEQUEUE) and moves front
// past it. B's max then finds front already past its run: B owns no removal and walks on from
// front, to the page at 33. Every entry is removed exactly once, and front ends at back.
TEST_CASE("chunk queue: a lane moves front past the dead entries it read and removes them",
          "[core][ouro][chunk]") {
  constexpr unsigned k = 9;
  constexpr std::uint32_t chunks = 34;
  Pool p(chunks);
  for (std::uint32_t i = 0; i < chunks; ++i) {
    ChunkReserveOp<A> r(1, k);
    REQUIRE(run_chunk_reserve(r, p.q, p.counts, kNoBound, yield_spin));
    REQUIRE(r.outcome() == ReserveOutcome::ok);
  }
  REQUIRE(p.words[k].back == chunks);
  std::vector<std::uint32_t> at(chunks);  // the chunk at each position
  for (std::uint32_t i = 0; i < chunks; ++i) at[i] = entry_chunk(p.slots[k][i]);
  for (std::uint32_t i = 0; i < kFrontRun; ++i) {
    p.meta[at[i]].state += kStateTakeOne;
    p.meta[at[i]].bits[0] = 0;
  }
  ChunkTakeOp<A> a(k), b(k);
  ChunkCounts ca, cb;
  for (int i = 0; i < 200 && b.phase() != TakePhase::advance_front; ++i) b.step(p.q, cb);
  REQUIRE(b.phase() == TakePhase::advance_front);
  CHECK(p.words[k].front == 0);  // B has read the run, not moved front yet
  REQUIRE(run_chunk_take(a, p.q, ca, kNoBound, yield_spin));
  CHECK(a.chunk() == at[kFrontRun]);
  CHECK(ca.dequeue == 1);
  CHECK(ca.pops == kFrontRun + 1);  // the run and the entry A emptied
  CHECK(ca.traversal == kFrontRun);
  CHECK(p.words[k].front == kFrontRun + 1);
  REQUIRE(run_chunk_take(b, p.q, cb, kNoBound, yield_spin));
  CHECK(b.chunk() == at[kFrontRun + 1]);
  CHECK(cb.pops == 1);        // only the entry it emptied itself
  CHECK(cb.ops.failed >= 1);  // its max lost to A's
  CHECK(p.words[k].front == chunks);
  for (std::uint32_t i = 0; i < chunks; ++i) {
    CAPTURE(i);
    CHECK(p.slots[k][i] == kEmptyEntry);
    CHECK_FALSE(p.queued(at[i]));
  }
}
