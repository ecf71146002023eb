// What variant C's virtualized queues share (chunk_queue_virtual.hpp says how they work and why):
// a class's spare stack, the reserve a class keeps in the pool, drawing a Queue-Chunk and putting
// one on the spare stack (step machines, one memory operation per step), and what a layout's
// locate reports. The layouts: chunk_queue_array.hpp (VA), chunk_queue_linked.hpp (VL).
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/chunk_queue.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/op_counts.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"

namespace alloclab::ouro {

// ---- A class's spare stack: head = id | tag << 32 (empty: id kDeletionMarker) ----
ALLOCLAB_HD std::uint32_t spare_id(std::uint64_t head) {
  return static_cast<std::uint32_t>(head);
}
ALLOCLAB_HD std::uint64_t spare_head(std::uint32_t id, std::uint64_t old_head) {
  return ((old_head >> 32) + 1) << 32 | id;
}
inline constexpr std::uint64_t kEmptySpare = ~std::uint64_t{0};

// The Queue-Chunks a class's queue can hold at once, which its first grow commits in the pool
// (queue_chunks_spanning at 1024 entries a chunk, VL's trail of t included).
ALLOCLAB_HD std::uint32_t chunk_queue_reserve(std::uint32_t capacity, std::uint32_t trail) {
  return static_cast<std::uint32_t>(queue_chunks_spanning(capacity, kChunkQueueEntries, trail));
}

// The first position of the Queue-Chunk that holds `position`.
ALLOCLAB_HD std::uint64_t entry_chunk_first(std::uint64_t position) {
  return position - position % kChunkQueueEntries;
}
ALLOCLAB_HD std::uint64_t* chunk_queue_entry(const ChunkQueueChunks& v, std::uint32_t chunk,
                                             std::uint64_t position) {
  return v.entries + std::uint64_t{chunk} * kChunkQueueEntries + position % kChunkQueueEntries;
}

// Draws a Queue-Chunk for class k whose first position is `first` (see the file comment for
// where from), resets its count (and, `linked`, its next), and publishes its start last.
template <class Atomics>
class QueueChunkDraw {
 public:
  enum class Phase : std::uint8_t {
    spare_load,  // the class's spare head
    spare_next,  // its next
    spare_cas,   // pop it (lost: again)
    spared,      // the store's count of spares -= 1
    fresh,       // the chunk counter, then the id
    drawn,       // the store's count of drawn chunks += 1
    count,       // count = 0 (1024 empty entries on a chunk not used as one before), VL:
                 // next = none, then its first position: QueueChunkReset's steps
    done,
  };
  ALLOCLAB_HD QueueChunkDraw() = default;
  ALLOCLAB_HD QueueChunkDraw(unsigned k, std::uint64_t first, bool linked)
      : k_(k), first_(first), linked_(linked) {}
  ALLOCLAB_HD bool done() const { return phase_ == Phase::done; }
  ALLOCLAB_HD std::uint32_t chunk() const { return chunk_; }

  ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
    using M = CountedOps<Atomics>;
    ChunkQueueChunks& v = *q.virt;
    switch (phase_) {
      case Phase::spare_load:
        head_ = M::load(v.spare[k_], c.ops);
        if (spare_id(head_) == kDeletionMarker) {
          phase_ = Phase::fresh;
        } else {
          phase_ = Phase::spare_next;
        }
        return OpStatus::running;
      case Phase::spare_next:
        next_ = M::load(v.meta[spare_id(head_)].next, c.ops);
        phase_ = Phase::spare_cas;
        return OpStatus::running;
      case Phase::spare_cas: {
        const std::uint64_t got = M::cas(v.spare[k_], head_, spare_head(next_, head_), c.ops);
        if (got != head_) {
          ++c.ops.failed;
          phase_ = Phase::spare_load;
          return OpStatus::running;
        }
        chunk_ = spare_id(head_);
        ++c.ops.queue_recycled;
        phase_ = Phase::spared;
        return OpStatus::running;
      }
      case Phase::spared:
        M::add(v.counts->spared, ~std::uint64_t{0}, c.ops);
        begin_reset(v, false);
        return OpStatus::running;
      case Phase::fresh: {
        const std::uint64_t nth = M::add(q.fresh->next_chunk, std::uint64_t{1}, c.ops);
        if (nth >= q.available_count) {  // past the reserve: wait for a chunk to be used up
          M::add(q.fresh->next_chunk, ~std::uint64_t{0}, c.ops);
          phase_ = Phase::spare_load;
          return count_spin(c.ops);
        }
        ++c.ops.memory_ops;  // the id, read-only after set-up
        chunk_ = q.available[nth];
        phase_ = Phase::drawn;
        return OpStatus::running;
      }
      case Phase::drawn:
        M::add(v.counts->drawn, std::uint64_t{1}, c.ops);
        ++c.ops.queue_chunks;
        begin_reset(v, true);
        return OpStatus::running;
      case Phase::count:  // count, fill, link and start (QueueChunkReset)
        if (reset_.step(c.ops) != OpStatus::done) return OpStatus::running;
        phase_ = Phase::done;
        return OpStatus::done;
      case Phase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  // A spare's entries were all taken out (no fill); a fresh chunk's are anything.
  ALLOCLAB_HD void begin_reset(ChunkQueueChunks& v, bool fill) {
    reset_ = QueueChunkReset<Atomics, std::uint64_t>(
        &v.meta[chunk_], v.entries + std::uint64_t{chunk_} * kChunkQueueEntries, kChunkQueueEntries,
        kEmptyEntry, fill, linked_, first_);
    phase_ = Phase::count;
  }

  unsigned k_ = 0;
  std::uint64_t first_ = 0;
  bool linked_ = false;
  QueueChunkReset<Atomics, std::uint64_t> reset_;
  Phase phase_ = Phase::spare_load;
  std::uint64_t head_ = 0;
  std::uint32_t next_ = kDeletionMarker, chunk_ = kDeletionMarker;
};

// Puts a used-up Queue-Chunk on its class's spare stack.
template <class Atomics>
class QueueChunkSpare {
 public:
  ALLOCLAB_HD QueueChunkSpare() = default;
  ALLOCLAB_HD QueueChunkSpare(unsigned k, std::uint32_t chunk) : k_(k), chunk_(chunk) {}
  ALLOCLAB_HD bool done() const { return phase_ == 3; }
  ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
    using M = CountedOps<Atomics>;
    ChunkQueueChunks& v = *q.virt;
    switch (phase_) {
      case 0:  // the head
        head_ = M::load(v.spare[k_], c.ops);
        phase_ = 1;
        return OpStatus::running;
      case 1:  // the chunk's next: the head's chunk
        M::exchange(v.meta[chunk_].next, spare_id(head_), c.ops);
        phase_ = 2;
        return OpStatus::running;
      case 2: {  // the head to it (lost: again)
        const std::uint64_t got = M::cas(v.spare[k_], head_, spare_head(chunk_, head_), c.ops);
        if (got != head_) {
          ++c.ops.failed;
          head_ = got;
          phase_ = 1;
          return OpStatus::running;
        }
        M::add(v.counts->spared, std::uint64_t{1}, c.ops);
        phase_ = 3;
        return OpStatus::done;
      }
      default:
        return OpStatus::done;
    }
  }

 private:
  unsigned k_ = 0;
  std::uint32_t chunk_ = kDeletionMarker;
  unsigned phase_ = 0;
  std::uint64_t head_ = 0;
};

// The word of `position` where `cursor` serves it, else null (the layouts' covered()).
ALLOCLAB_HD std::uint64_t* chunk_queue_covered(const ChunkQueues& q, std::uint64_t position,
                                               ChunkCursor cursor) {
  return cursor.covers(position) ? chunk_queue_entry(*q.virt, cursor.chunk, position) : nullptr;
}

// What a layout's Locate reports (chunk_queue.hpp's policy comment), and how it records a find.
class ChunkLocateResult {
 public:
  ALLOCLAB_HD bool stale() const { return stale_; }
  ALLOCLAB_HD std::uint64_t* word() const { return word_; }
  ALLOCLAB_HD ChunkCursor cursor() const { return cursor_; }

 protected:
  ALLOCLAB_HD ChunkLocateResult() = default;
  ALLOCLAB_HD ChunkLocateResult(unsigned k, std::uint64_t position, EntryUse use)
      : k_(k), position_(position), use_(use) {}
  // The position's Queue-Chunk is `chunk`, whose first position is `first`.
  ALLOCLAB_HD void found(const ChunkQueues& q, std::uint32_t chunk, std::uint64_t first) {
    cursor_ = ChunkCursor{first, chunk};
    word_ = chunk_queue_entry(*q.virt, chunk, position_);
  }

  unsigned k_ = 0;
  std::uint64_t position_ = 0;
  EntryUse use_ = EntryUse::walk;
  bool stale_ = false;  // a walk's position is behind the chunk it found: start again from front
  std::uint64_t* word_ = nullptr;
  ChunkCursor cursor_;
};

}  // namespace alloclab::ouro
