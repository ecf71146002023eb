// Ouroboros' virtualized linked-chunk queue (VL, Winter et al., ICS'20, §5.2;
// virtual_linked_queue.hpp): FIFO order over many linked chunks with front, back and old moving
// and a trail of t used-up chunks, a reader that holds a chunk reclaimed and reused by another
// class's queue walking again instead of reading it, and concurrent host threads moving every
// index exactly once. Also built with -fsanitize=thread.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/virtual_linked_queue.hpp"
#include "ouro_virtual_queue_support.hpp"

using namespace alloclab::ouro;
using alloclab::ouro::test::churn_in_threads;
using alloclab::ouro::test::VirtualQueue;

namespace {

using A = HostAtomics;
using Read = VlRead<A>;
using Write = VlWrite<A>;

// Chunks a VL queue holds at rest: VA's (the window and the one prepared ahead) and the trail of
// used-up ones, min(t, chunks used up).
std::int64_t vl_held_at_rest(std::uint64_t front, std::uint64_t back) {
  return static_cast<std::int64_t>(va_chunks_at_rest(front, back) +
                                   std::min<std::uint64_t>(kVlTrail, front / kQueueChunkItems));
}

}  // namespace

TEST_CASE("VL queue: FIFO over linked chunks, pointers moved, a trail of t kept",
          "[core][ouro][vqueue]") {
  VirtualQueue v(40, 2048, kVlStaticWords, 3);
  OpCounts c;
  std::uint64_t back = 0, front = 0;
  for (std::uint32_t n = 0; n < 60000; ++n) {
    Write w(1000000 + n, back++);
    v.run(w, c);
    if (back - front >= 3000 || n % 11 == 0) {
      const std::uint64_t until = back - (n % 7);
      while (front < until) {
        Read r(front);
        v.run(r, c);
        CHECK(r.index() == 1000000 + front);
        ++front;
      }
    }
    REQUIRE(v.held() == vl_held_at_rest(front, back));
  }
  // 60,000 positions: 29 chunks used up, every one but the trail given back and reused.
  CHECK(vl_trail_count(v.refs[kVlTrailCount]) == kVlTrail);
  const std::uint64_t used_up = front / kQueueChunkItems;
  CHECK(v.meta[v.refs[kVlFront]].virtual_start == vl_start_word(3, used_up * kQueueChunkItems));
  CHECK(v.meta[v.refs[kVlOld]].virtual_start ==
        vl_start_word(3, (used_up - kVlTrail) * kQueueChunkItems));
  CHECK(v.source.next_chunk < 40);  // chunks reclaimed came back
  CHECK(c.slot_spins == 0);
}

TEST_CASE("VL queue: a reader holding a chunk reclaimed and reused walks again",
          "[core][ouro][vqueue]") {
  VirtualQueue v(40, 2048, kVlStaticWords, 2);
  OpCounts c;
  // Position 0 makes chunk 0 and links chunk 1.
  Write w0(7, 0);
  v.run(w0, c);
  const std::uint32_t chunk0 = v.refs[kVlFront];
  // A reader of a position far ahead loads front (chunk 0) and stops there.
  Read ahead(15 * kQueueChunkItems + 5);
  ahead.step(v.q, c);
  REQUIRE(ahead.phase() == VlPhase::check);
  // 15 chunks written and read: chunks 0..14 are used up, front moves past them, and past the
  // trail of 10 chunks 0..4 go back to the reuse queue; two more chunks written take chunk 0 and
  // chunk 1 from there for chunks 17 and 18.
  std::uint64_t back = 1, front = 0;
  for (; back < 15 * kQueueChunkItems + 6; ++back) {
    Write w(static_cast<std::uint32_t>(back), back);
    v.run(w, c);
  }
  for (; front < 15 * kQueueChunkItems + 5; ++front) {
    Read r(front);
    v.run(r, c);
  }
  for (; back < 18 * kQueueChunkItems; ++back) {
    Write w(static_cast<std::uint32_t>(back), back);
    v.run(w, c);
  }
  CHECK(v.meta[chunk0].virtual_start == vl_start_word(2, 17 * kQueueChunkItems));
  // The reader that held chunk 0 checks its start, finds it is not its queue's chunk 0 any more,
  // walks again from front and reads position 15 * 2048 + 5.
  v.run(ahead, c);
  CHECK(ahead.index() == 15 * kQueueChunkItems + 5);
  CHECK(v.held() == vl_held_at_rest(front + 1, back));
}

TEST_CASE("VL queue: concurrent writers and readers move every index exactly once",
          "[core][ouro][vqueue][threads]") {
  VirtualQueue v(40, 2048, kVlStaticWords, 5);
  const auto seen = churn_in_threads<Read, Write>(v, 4, 8000);
  for (auto n : seen) CHECK(n == 1);
  const std::uint64_t positions = seen.size();
  CHECK(v.held() == vl_held_at_rest(positions, positions));
  CHECK(vl_trail_count(v.refs[kVlTrailCount]) == kVlTrail);
}

TEST_CASE("VL queue: a warp group's leader walks once, its lanes walk on from its chunk",
          "[core][ouro][vqueue]") {
  using L = VirtualLinked<A>;
  VirtualQueue v(40, 2048, kVlStaticWords, 1);
  OpCounts c;
  for (std::uint64_t p = 0; p < 3 * kQueueChunkItems; ++p) {
    Write w(static_cast<std::uint32_t>(p), p);
    v.run(w, c);
  }
  // The leader of a group at positions 2040..2071 walks to chunk 0 (front: 2 loads) and stops.
  auto locate = L::locate<false>(2040);
  OpCounts lead;
  v.run(locate, lead);
  CHECK(locate.chunk() == v.refs[kVlFront]);
  CHECK(lead.memory_ops == 2);
  CHECK(v.meta[locate.chunk()].count == queue_chunk_enqueue_delta() * kQueueChunkItems);  // no read
  // A lane whose position is on the next chunk walks on from the leader's: its start, its next,
  // the next's start, then the item and the count.
  Read lane = L::from_hint<false>(kDeletionMarker, 2050, locate.chunk());
  OpCounts own;
  v.run(lane, own);
  CHECK(lane.index() == 2050);
  CHECK(own.memory_ops == 5);
  // A hint that is no chunk of this queue (another class's start word) makes the lane walk again
  // from the pointer.
  v.meta[39].virtual_start = vl_start_word(7, 0);
  Read stray = L::from_hint<false>(kDeletionMarker, 11, 39);
  v.run(stray, own);
  CHECK(stray.index() == 11);
}
