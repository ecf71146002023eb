// Queue-Chunks (Winter et al., ICS'20, §3.2 and §5): chunks of the pool that hold a virtualized
// queue's items, 2048 four-byte indices on an 8 KiB chunk. What every class's virtualized queue
// shares: the chunks' metadata, their slots, the queue of chunks given back, and how many chunks
// the queues may need, which the pool keeps for them.
//
// Why the pool keeps chunks for the queues (a decision; the paper and the public code take a
// Queue-Chunk from the pool when one is needed and do not say what happens when there is none):
// variant P never gives a page chunk back, so once the pool is handed out as pages, a free that
// needs a new Queue-Chunk would find none, and its page could never be queued again. Here a
// grow of class k commits, besides its page chunk, the Queue-Chunks its queue needs to hold
// every page of the class at once (queue_chunks_reserved); a grow that would commit more chunks
// than the pool has fails as out of memory. The class's count of committed Queue-Chunks only
// grows, one chunk per CAS (PageReserveOp's extend): a count derived from each grow's page
// count would come out short when a grow between others fails and takes its pages back. The price
// is pool space: at 16 B pages (512 per chunk) one Queue-Chunk per four page chunks, so at most 4/5
// of the pool serves 16 B requests.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/op_counts.hpp"
#include "alloclab/core/ouroboros/virtual_queue_math.hpp"

namespace alloclab::ouro {

// Items of one Queue-Chunk: an 8 KiB chunk of 4-byte page indices (queue_chunk_items).
inline constexpr std::uint32_t kQueueChunkItems = kChunkBytes / 4;  // 2048

// VL's trail t: used-up Queue-Chunks kept between old and front before they go back (the public
// code's LARGEST_OLD_COUNT_VALUE); its reserve keeps them in the pool too. The registry's
// queue_trail of ouro-p-vl says the same (checked where the allocator registers).
inline constexpr std::uint32_t kVlTrail = 10;

// A chunk's words while it is a Queue-Chunk (the paper keeps them in the chunk's metadata
// region; alloclab keeps one per pool chunk beside the pool).
struct QueueChunkMeta {
  std::uint32_t count = 0;               // countA | countB << 16 (virtual_queue_math.hpp)
  std::uint32_t next = kDeletionMarker;  // VL: the next Queue-Chunk of its queue
  std::uint64_t virtual_start = ~0ull;   // the first virtual position it holds
};

// What every class's virtualized queue shares. The chunks themselves come from the memory
// manager (PageQueueRef::chunks and ::available), as page chunks do.
struct QueueChunkStore {
  QueueChunkMeta* meta = nullptr;  // one per pool chunk
  std::uint32_t* slots = nullptr;  // kQueueChunkItems per pool chunk: chunk c's at c * 2048
  IndexQueueRef reuse{};           // Queue-Chunks given back (one slot per pool chunk)
};

// The Queue-Chunks of `items` items each that a queue holding `positions` positions at once can
// need: a window of them touches ceil(positions / items) + 1 chunks, and its enqueuers prepare one
// more ahead; plus (VL) the `trail` used-up chunks it reclaims late. Variant P's reserve (below),
// VA's references, and variant C's reserve (chunk_queue_chunks.hpp) are this count.
ALLOCLAB_HD std::uint64_t queue_chunks_spanning(std::uint64_t positions, std::uint32_t items,
                                                std::uint32_t trail = 0) {
  return (positions + items - 1) / items + 2 + trail;
}

// The Queue-Chunks a class of `pages` pages keeps in the pool: enough to hold every page at once
// and the one its enqueuers prepare ahead, and (VL) the `trail` used-up chunks it reclaims late;
// none before the class has pages.
ALLOCLAB_HD std::uint64_t queue_chunks_reserved(std::uint64_t pages, std::uint32_t trail = 0) {
  return pages == 0 ? 0 : queue_chunks_spanning(pages, kQueueChunkItems, trail);
}

// The references of a VA queue that holds `capacity` items: one per Queue-Chunk the items can
// span (ceil(capacity / 2048) + 1) and one for the chunk prepared ahead. The paper's "1/2048 of
// the original queue" counts ceil(capacity / 2048); the two more are what lets the enqueuer at
// the start of a chunk publish the next one without waiting for the oldest to be used up.
ALLOCLAB_HD std::uint32_t va_reference_count(std::uint64_t capacity) {
  return static_cast<std::uint32_t>(queue_chunks_spanning(capacity, kQueueChunkItems));
}

// Page chunks of one class a pool of `chunks` chunks serves before it runs out of memory, with
// `per_chunk` pages each: all of them, or, where the queue keeps its items in the pool, the most
// g with g + queue_chunks_reserved(g * per_chunk) <= chunks.
ALLOCLAB_HD std::uint64_t page_chunks_at_oom(std::uint64_t chunks, std::uint32_t per_chunk,
                                             bool queue_in_pool, std::uint32_t trail = 0) {
  if (!queue_in_pool) return chunks;
  std::uint64_t g = 0;
  while (g + 1 + queue_chunks_reserved((g + 1) * per_chunk, trail) <= chunks) ++g;
  return g;
}

// Queue-Chunks of `items` items a virtualized queue holds when every operation on it has finished,
// with front and back where they are: the writes prepared chunks 0 .. (back - 1) / items + 1, and
// those wholly below front have had every item written and read (or taken out, variant C), and
// were given back.
ALLOCLAB_HD std::uint64_t va_chunks_at_rest(std::uint64_t front, std::uint64_t back,
                                            std::uint32_t items = kQueueChunkItems) {
  return back == 0 ? 0 : (back - 1) / items + 2 - front / items;
}

// The last steps of taking a chunk as a Queue-Chunk, the same for variant P's (QueueChunkTake,
// queue_chunk_take.hpp) and variant C's (QueueChunkDraw, chunk_queue_chunks.hpp): its count to
// 0, with every item set to `empty` where the chunk's items may hold anything (a chunk not used as
// such a Queue-Chunk before; counted as one memory operation per item), its next link to none
// where the queue is linked (VL), and its virtual start written last, after a fence, which
// publishes the rest. One memory operation per step (the fill aside); done after the start.
template <class Atomics, class Item>
class QueueChunkReset {
 public:
  enum class Phase : std::uint8_t { count, unlink, start, done };
  ALLOCLAB_HD QueueChunkReset() = default;
  ALLOCLAB_HD QueueChunkReset(QueueChunkMeta* meta, Item* items, std::uint32_t item_count,
                              Item empty, bool fill, bool linked, std::uint64_t start)
      : meta_(meta),
        items_(items),
        item_count_(item_count),
        empty_(empty),
        fill_(fill),
        linked_(linked),
        start_(start) {}
  ALLOCLAB_HD bool done() const { return phase_ == Phase::done; }

  ALLOCLAB_HD OpStatus step(OpCounts& c) {
    using M = CountedOps<Atomics>;
    switch (phase_) {
      case Phase::count:
        M::exchange(meta_->count, std::uint32_t{0}, c);
        if (fill_) {
          for (std::uint32_t i = 0; i < item_count_; ++i) items_[i] = empty_;
          c.memory_ops += item_count_;
        }
        phase_ = linked_ ? Phase::unlink : Phase::start;
        return OpStatus::running;
      case Phase::unlink:
        M::exchange(meta_->next, kDeletionMarker, c);
        phase_ = Phase::start;
        return OpStatus::running;
      case Phase::start:
        Atomics::fence();  // the reset before the start that publishes it
        M::exchange(meta_->virtual_start, start_, c);
        phase_ = Phase::done;
        return OpStatus::done;
      case Phase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  QueueChunkMeta* meta_ = nullptr;
  Item* items_ = nullptr;
  std::uint32_t item_count_ = 0;
  Item empty_{};
  bool fill_ = false, linked_ = false;
  std::uint64_t start_ = 0;
  Phase phase_ = Phase::count;
};

}  // namespace alloclab::ouro
