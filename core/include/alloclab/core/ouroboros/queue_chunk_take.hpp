// Taking a Queue-Chunk from the memory manager for a virtualized queue (VA:
// virtual_array_queue.hpp, VL: virtual_linked_queue.hpp), as a step machine (one memory operation
// per step): one given back (the reuse queue) before a fresh one, its count and next link reset, a
// fresh one's items filled with the deletion marker, and its virtual start written last, which
// publishes the rest.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/op_counts.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"

namespace alloclab::ouro {

template <class Atomics>
class QueueChunkTake {
 public:
  enum class Phase : std::uint8_t {
    reuse,  // a chunk from the reuse queue (DequeueOp steps)
    fresh,  // else the chunk counter and the id
    init,   // count = 0 (the marker in every item of a fresh chunk), VL: next = none, then its
            // virtual start (the queue's start word): QueueChunkReset's steps
    done,
  };
  // `linked`: the chunk's next link is reset too (VL).
  ALLOCLAB_HD explicit QueueChunkTake(std::uint64_t start_word = 0, bool linked = false)
      : start_(start_word), linked_(linked) {}
  ALLOCLAB_HD Phase phase() const { return phase_; }
  ALLOCLAB_HD bool done() const { return phase_ == Phase::done; }
  ALLOCLAB_HD std::uint32_t chunk() const { return chunk_; }

  ALLOCLAB_HD OpStatus step(const PageQueueRef& q, OpCounts& c) {
    using M = CountedOps<Atomics>;
    QueueChunkStore& st = *q.store;
    switch (phase_) {
      case Phase::reuse: {
        const OpStatus s = step_index_queue(take_, st.reuse, c);
        if (s == OpStatus::spinning) return s;
        if (s == OpStatus::done) {
          if (take_.outcome() == QueueOutcome::ok) {
            chunk_ = take_.index();
            ++c.queue_recycled;
            begin_reset(st, false);
          } else {
            phase_ = Phase::fresh;  // nothing given back: a chunk the pool has not used yet
          }
        }
        return OpStatus::running;
      }
      case Phase::fresh: {
        const std::uint64_t nth = M::add(q.chunks->next_chunk, std::uint64_t{1}, c);
        if (nth < q.chunk_count) {
          ++c.memory_ops;  // the id, read-only after set-up
          chunk_ = q.available[nth];
          ++c.queue_chunks;
          begin_reset(st, true);
          return OpStatus::running;
        }
        // None: a lagging lane holds a used chunk; look again from the reuse queue.
        take_ = DequeueOp<Atomics>();
        phase_ = Phase::reuse;
        return count_spin(c);
      }
      case Phase::init:  // count, fill, link and start (QueueChunkReset)
        if (reset_.step(c) != OpStatus::done) return OpStatus::running;
        phase_ = Phase::done;
        return OpStatus::done;
      case Phase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  // A chunk given back has every item emptied by its readers; a fresh one is filled.
  ALLOCLAB_HD void begin_reset(QueueChunkStore& st, bool fresh) {
    reset_ = QueueChunkReset<Atomics, std::uint32_t>(
        &st.meta[chunk_], st.slots + std::uint64_t{chunk_} * kQueueChunkItems, kQueueChunkItems,
        kDeletionMarker, fresh, linked_, start_);
    phase_ = Phase::init;
  }

  std::uint64_t start_;
  std::uint32_t chunk_ = kDeletionMarker;
  Phase phase_ = Phase::reuse;
  bool linked_ = false;
  DequeueOp<Atomics> take_;
  QueueChunkReset<Atomics, std::uint32_t> reset_;
};

// A virtualized layout's Read and Write (the drop-ins for the standard ring's SlotRead and
// SlotWrite, page_queue.hpp): its slot operation `Op<Atomics, kWrite>` (VaSlotOp, VlSlotOp) with
// the ring's constructors, and from a part of a warp group's aggregated path.
template <template <class, bool> class Op, class Atomics>
class QueueChunkRead : public Op<Atomics, false> {
 public:
  ALLOCLAB_HD explicit QueueChunkRead(std::uint64_t position = 0)
      : Op<Atomics, false>(kDeletionMarker, position) {}
  ALLOCLAB_HD QueueChunkRead(const Op<Atomics, false>& part) : Op<Atomics, false>(part) {}
};
template <template <class, bool> class Op, class Atomics>
class QueueChunkWrite : public Op<Atomics, true> {
 public:
  ALLOCLAB_HD QueueChunkWrite(std::uint32_t index = kDeletionMarker, std::uint64_t position = 0)
      : Op<Atomics, true>(index, position) {}
  ALLOCLAB_HD QueueChunkWrite(const Op<Atomics, true>& part) : Op<Atomics, true>(part) {}
};

// Moves one item of a Queue-Chunk: a write CASes it from the marker to `index` (Alg. 1 l.6), a
// read exchanges it with the marker into `index` (l.13). False: it waited (counted), the other
// side has not come yet.
template <class Atomics, bool kWrite>
ALLOCLAB_HD bool move_queue_chunk_item(std::uint32_t& item, std::uint32_t& index, OpCounts& c) {
  using M = CountedOps<Atomics>;
  if (kWrite ? M::cas(item, kDeletionMarker, index, c) != kDeletionMarker
             : (index = M::exchange(item, kDeletionMarker, c)) == kDeletionMarker) {
    count_spin(c);
    return false;
  }
  return true;
}

}  // namespace alloclab::ouro
