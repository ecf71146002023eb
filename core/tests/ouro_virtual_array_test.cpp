// Ouroboros' virtualized array queue (VA, Winter et al., ICS'20, §5.1; virtual_array_queue.hpp):
// FIFO order through laps of a short reference ring, the waits of a reader that comes before its
// writer and of a lane that finds the reference of the chunk a lap earlier, and concurrent host
// threads moving every index exactly once with the Queue-Chunks accounted for at rest. Also built
// with -fsanitize=thread.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/virtual_array_queue.hpp"
#include "ouro_virtual_queue_support.hpp"

using namespace alloclab::ouro;
using alloclab::ouro::test::churn_in_threads;
using alloclab::ouro::test::VirtualQueue;

namespace {

using A = HostAtomics;
using Read = VaRead<A>;
using Write = VaWrite<A>;

}  // namespace

TEST_CASE("VA queue: FIFO through laps of its references, used-up chunks reused",
          "[core][ouro][vqueue]") {
  // 2048 items of capacity: 3 references. Keep at most 2048 items queued; 20,000 positions make
  // nine and a half chunks, six laps of the references.
  VirtualQueue v(8, 2048, va_reference_count(2048));
  REQUIRE(v.q.ref_count == 3);
  OpCounts c;
  std::uint64_t back = 0, front = 0;
  for (std::uint32_t n = 0; n < 20000; ++n) {
    Write w(1000000 + n, back++);
    v.run(w, c);
    if (back - front == 2048 || n % 7 == 0) {
      const std::uint64_t until = back - (n % 5);
      while (front < until) {
        Read r(front);
        v.run(r, c);
        CHECK(r.index() == 1000000 + front);  // FIFO: position order
        ++front;
      }
    }
    CHECK(v.held() == static_cast<std::int64_t>(va_chunks_at_rest(front, back)));
  }
  // Chunks were taken fresh only while the reuse queue had none: never more than the references
  // plus the one a used-up chunk leaves before it is given back.
  CHECK(v.source.next_chunk <= 4);
  CHECK(c.slot_spins == 0);  // one operation at a time: nobody ever waited
}

TEST_CASE("VA queue: a reader before its writer waits on the reference, then on the item",
          "[core][ouro][vqueue]") {
  VirtualQueue v(4, 2048, va_reference_count(2048));
  OpCounts c;
  Read r(0);
  CHECK(r.step(v.q, c) == OpStatus::spinning);  // reference 0 empty: chunk 0 not prepared
  CHECK(c.slot_spins == 1);
  Write w(42, 0);
  // The writer of position 0 prepares chunk 0 (fresh), then chunk 1, then writes.
  while (w.phase() != VaPhase::slot) w.step(v.q, c);
  CHECK(v.refs[0] != kDeletionMarker);
  CHECK(v.refs[1] != kDeletionMarker);
  CHECK(v.meta[v.refs[0]].virtual_start == 0);
  CHECK(v.meta[v.refs[1]].virtual_start == kQueueChunkItems);
  // The reader finds the chunk now, but not the item yet: it spins on the marker.
  while (r.phase() != VaPhase::slot) r.step(v.q, c);
  CHECK(r.step(v.q, c) == OpStatus::spinning);
  v.run(w, c);
  v.run(r, c);
  CHECK(r.index() == 42);
}

TEST_CASE("VA queue: the reference a lap later waits until the chunk before is used up",
          "[core][ouro][vqueue]") {
  VirtualQueue v(
      8, 2048, va_reference_count(2048));  // 3 references: chunk 3 shares reference 0 with chunk 0
  OpCounts c;
  for (std::uint64_t p = 0; p < 2 * kQueueChunkItems; ++p) {
    Write w(static_cast<std::uint32_t>(p), p);
    v.run(w, c);
  }
  // Position 4096 starts chunk 2 and prepares chunk 3 into reference 0, still chunk 0's.
  Write w(7, 2 * kQueueChunkItems);
  OpStatus s = OpStatus::running;
  for (int i = 0; i < 100 && s != OpStatus::spinning; ++i) s = w.step(v.q, c);
  CHECK(s == OpStatus::spinning);
  CHECK(w.phase() == VaPhase::publish);
  // A reader of chunk 3 meanwhile finds chunk 0 in the reference and waits (its start differs).
  Read early(3 * kQueueChunkItems);
  early.step(v.q, c);
  CHECK(early.step(v.q, c) == OpStatus::spinning);
  CHECK(early.phase() == VaPhase::locate);
  // Reading chunk 0 out uses it up: it is given back, and the reference is free for chunk 3.
  for (std::uint64_t p = 0; p < kQueueChunkItems; ++p) {
    Read r(p);
    v.run(r, c);
    CHECK(r.index() == p);
  }
  CHECK(v.refs[0] == kDeletionMarker);
  CHECK(v.reuse_words.fill_count == 1);
  v.run(w, c);
  CHECK(v.meta[v.refs[0]].virtual_start == 3 * kQueueChunkItems);
  CHECK(v.held() ==
        static_cast<std::int64_t>(va_chunks_at_rest(kQueueChunkItems, 2 * kQueueChunkItems + 1)));
}

TEST_CASE("VA queue: concurrent writers and readers move every index exactly once",
          "[core][ouro][vqueue][threads]") {
  // At most 4 positions in flight, far below the 2048 the references hold.
  VirtualQueue v(16, 2048, va_reference_count(2048));
  const auto seen = churn_in_threads<Read, Write>(v, 4, 6000);
  for (auto n : seen) CHECK(n == 1);
  const std::uint64_t positions = seen.size();
  CHECK(v.words.front == positions);
  CHECK(v.held() == static_cast<std::int64_t>(va_chunks_at_rest(positions, positions)));
  CHECK(v.source.next_chunk <= 16);
}

TEST_CASE("VA queue: a warp group on one chunk, located once and counted with one atomic",
          "[core][ouro][vqueue]") {
  VirtualQueue v(4, 2048, va_reference_count(2048));
  OpCounts c;
  for (std::uint64_t p = 0; p < kQueueChunkItems; ++p) {
    Write w(static_cast<std::uint32_t>(500 + p), p);
    v.run(w, c);
  }
  CHECK_FALSE(va_group_aggregates(0, 32));     // the chunk's first item: its write prepares
  CHECK_FALSE(va_group_aggregates(2040, 32));  // spans chunks 0 and 1
  CHECK_FALSE(va_group_aggregates(10, 1));     // a lane alone
  REQUIRE(va_group_aggregates(10, 32));
  auto locate = va_locate_only<A>(10);
  v.run(locate, c);
  CHECK(locate.chunk() == v.refs[0]);
  OpCounts items;
  for (std::uint64_t l = 0; l < 32; ++l) {
    Read r = va_item_only<A, false>(kDeletionMarker, 10 + l, locate.chunk());
    v.run(r, items);
    CHECK(r.index() == 510 + l);
  }
  CHECK(items.atomics == 32);  // the exchanges alone
  const std::uint32_t before = v.meta[locate.chunk()].count;
  OpCounts counted;
  Read count = va_count_only<A, false>(10, locate.chunk(), 32);
  v.run(count, counted);
  CHECK(counted.atomics == 1);
  CHECK(queue_chunk_count_b(v.meta[locate.chunk()].count) == queue_chunk_count_b(before) - 32);
  CHECK(queue_chunk_count_a(v.meta[locate.chunk()].count) == kQueueChunkItems);
}

// Grows that run at once, some of them failing for want of chunks, in random interleavings: the
// pool's committed chunks stay exactly the page chunks plus the class's committed Queue-Chunks,
// and those never fall short of what the class's pages need (a count derived from each grow's
// own page count did, on the GPU, when a grow between two others failed).
TEST_CASE("VA queue: concurrent grows at out of memory keep the Queue-Chunk reserve whole",
          "[core][ouro][vqueue]") {
  std::uint64_t failed_grows = 0, extensions_lost = 0;
  for (std::uint32_t chunks : {4u, 5u, 6u, 9u})
    for (std::uint64_t seed = 0; seed < 150; ++seed) {
      CAPTURE(chunks, seed);
      VirtualQueue v(chunks, 1u << 20, va_reference_count(1u << 20));
      std::vector<std::uint8_t> chunk_class(chunks, 0xff);
      v.q.chunk_class = chunk_class.data();
      v.words.semaphore = sem_pack({});
      // Three groups of 400 pages of 16 B: the third finds too little promised and grows while
      // the first does.
      std::vector<PageReserveOp<A, VirtualArray<A>>> ops(3,
                                                         PageReserveOp<A, VirtualArray<A>>(400, 0));
      OpCounts c;
      std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
      for (int step = 0; step < 200000; ++step) {
        bool all = true;
        for (auto& op : ops) all = all && op.phase() == ReservePhase::done;
        if (all) break;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        auto& op = ops[x % 3];
        if (op.phase() != ReservePhase::done) op.step(v.q, c);
      }
      std::uint64_t served = 0;
      for (auto& op : ops) {
        REQUIRE(op.phase() == ReservePhase::done);
        served += op.outcome() == ReserveOutcome::ok ? 400 : 0;
        failed_grows += op.outcome() == ReserveOutcome::out_of_memory;
      }
      extensions_lost += c.failed;
      const SemCounters sem = sem_unpack(v.words.semaphore);
      CHECK(sem.expected == 0);
      CHECK(sem.reserved == 0);
      CHECK(static_cast<std::uint64_t>(sem.count) + served == v.words.pages);
      CHECK(v.source.committed == v.words.pages / 512 + v.words.queue_chunks);
      CHECK(v.words.queue_chunks >= queue_chunks_reserved(v.words.pages));
      CHECK(v.source.committed <= chunks);
    }
  // The cases the test is for happened: grows that failed, and lost races (extensions among them).
  CHECK(failed_grows > 0);
  CHECK(extensions_lost > 0);
}
