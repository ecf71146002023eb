// Ouroboros' virtualized array queue (VA; Winter et al., ICS'20, §5.1) under variant P: the
// queue's items live on Queue-Chunks taken from the pool (queue_chunk.hpp), and the static part
// is a short ring of references, one Queue-Chunk id per 2048 positions. front and back stay
// virtual positions; position v is item v mod 2048 of virtual chunk v / 2048, whose id is in
// reference (v / 2048) mod ref_count.
//
// A lane's read or write of its position (VaRead, VaWrite: the VA policy's drop-ins for the
// standard ring's SlotRead and SlotWrite, page_queue.hpp) is a step machine, one memory operation
// per step:
//   prepare  (a write at item 0 of its chunk, §5.1: "preemptively allocates, initialises and
//            publishes the next Queue-Chunk" before it touches its own item): a chunk from the
//            reuse queue, else a fresh one (whose slots it fills with the deletion marker),
//            count 0, its virtual start, then a CAS of the reference from empty to its id;
//   locate   the reference of the position's chunk, and that chunk's virtual start: a reference
//            that is empty, or still names the chunk a lap earlier, is waited for (the paper's
//            back-off on the pointer);
//   slot     as the standard ring (Alg. 1 l.6 and l.13) on the item;
//   count    countA/countB (one word): the operation whose atomic makes it "every item written
//            and read" empties the reference and gives the chunk back to the reuse queue.
// Decisions:
//  * The write at position 0 also prepares chunk 0 (the public code places one chunk per queue at
//    set-up; here a class that is never used takes no chunk).
//  * A Queue-Chunk is taken from the pool's committed reserve (queue_chunk.hpp), so one exists
//    whenever the queue holds no more than its class's pages; a take that finds none (a lagging
//    lane still holds a used chunk) waits for one to be given back, counted as a spin.
//  * The virtual start of a chunk is checked after its reference is read: the reference of chunk
//    j + ref_count is the same word as chunk j's, and a lane may read it before the old one is
//    used up (the public code traps there).
//  * Warp aggregation (GPU and lockstep), beyond the semaphore and front that S aggregates too:
//    a group whose positions lie on one Queue-Chunk, none of them its first item, has its leader
//    locate the chunk once (va_locate_only), each lane then only moves its item (va_item_only), and
//    the leader counts the group's n items with one atomic (va_count_only). A lane alone, or a
//    group that spans two chunks or must prepare one, takes the whole path per lane.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/op_counts.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"
#include "alloclab/core/ouroboros/queue_chunk_take.hpp"
#include "alloclab/core/ouroboros/virtual_queue_math.hpp"

namespace alloclab::ouro {

enum class VaPhase : std::uint8_t {
  take,     // prepare: a chunk (QueueChunkTake: reused or fresh, reset, its virtual start)
  publish,  // prepare: CAS its reference from empty to its id
  locate,   // load the reference of the position's chunk
  check,    // load that chunk's virtual start
  slot,     // CAS the item from the marker to the index (write) / exchange it with the marker
  count,    // countA / countB
  unref,    // the chunk is used up: its reference back to empty
  release,  // and the chunk to the reuse queue (EnqueueOp steps)
  done,
};

template <class Atomics, bool kWrite>
class VaSlotOp {
 public:
  // Part of a warp group's aggregated path: starting at `start` on a chunk the leader located,
  // counting `n` items (0: none, the leader counts them); or, `locate_only`, the leader's locate.
  ALLOCLAB_HD VaSlotOp(std::uint32_t index, std::uint64_t position, VaPhase start,
                       std::uint32_t chunk, std::uint32_t n, bool locate_only = false)
      : position_(position),
        index_(index),
        chunk_(chunk),
        n_(n),
        phase_(start),
        locate_only_(locate_only) {}
  ALLOCLAB_HD VaSlotOp(std::uint32_t index, std::uint64_t position)
      : position_(position), index_(index) {
    const std::uint64_t j = position / kQueueChunkItems;
    if (kWrite && va_allocates_next_chunk(position, kQueueChunkItems)) {
      // Chunk j + 1 ahead of its first item (and chunk 0 itself at the queue's first item).
      prepare_ = j == 0 ? 0 : j + 1;
      prepare_last_ = j + 1;
      take_ = QueueChunkTake<Atomics>(prepare_ * kQueueChunkItems);
      phase_ = VaPhase::take;
    }
  }
  ALLOCLAB_HD VaPhase phase() const { return phase_; }
  ALLOCLAB_HD bool done() const { return phase_ == VaPhase::done; }
  ALLOCLAB_HD std::uint32_t index() const { return index_; }  // a read's, once done
  ALLOCLAB_HD std::uint32_t chunk() const { return chunk_; }  // once located

  ALLOCLAB_HD OpStatus step(const PageQueueRef& q, OpCounts& c) {
    using M = CountedOps<Atomics>;
    QueueChunkStore& st = *q.store;
    switch (phase_) {
      case VaPhase::take:
        if (take_.step(q, c) == OpStatus::spinning) return OpStatus::spinning;
        if (take_.done()) phase_ = VaPhase::publish;
        return OpStatus::running;
      case VaPhase::publish:
        if (M::cas(q.refs[prepare_ % q.ref_count], kDeletionMarker, take_.chunk(), c) !=
            kDeletionMarker)
          return count_spin(c);  // the reference's chunk of a lap earlier is not used up yet
        if (prepare_ < prepare_last_) {
          ++prepare_;
          take_ = QueueChunkTake<Atomics>(prepare_ * kQueueChunkItems);
          phase_ = VaPhase::take;
        } else {
          phase_ = VaPhase::locate;
        }
        return OpStatus::running;
      case VaPhase::locate:
        chunk_ = M::load(q.refs[slot_of(q).chunk_slot], c);
        if (chunk_ == kDeletionMarker) return count_spin(c);  // not published yet
        phase_ = VaPhase::check;
        return OpStatus::running;
      case VaPhase::check:
        if (M::load(st.meta[chunk_].virtual_start, c) != position_ - slot_of(q).offset) {
          phase_ = VaPhase::locate;  // the chunk of a lap earlier: wait for ours
          return count_spin(c);
        }
        Atomics::fence_acquire();  // the chunk's reset before its start (queue_chunk.hpp)
        phase_ = locate_only_ ? VaPhase::done : VaPhase::slot;
        return locate_only_ ? OpStatus::done : OpStatus::running;
      case VaPhase::slot: {
        std::uint32_t& item =
            st.slots[std::uint64_t{chunk_} * kQueueChunkItems + slot_of(q).offset];
        if (!move_queue_chunk_item<Atomics, kWrite>(item, index_, c)) return OpStatus::spinning;
        if (n_ == 0) {  // the group's leader counts this item
          phase_ = VaPhase::done;
          return OpStatus::done;
        }
        phase_ = VaPhase::count;
        return OpStatus::running;
      }
      case VaPhase::count: {
        const std::uint32_t delta =
            n_ * (kWrite ? queue_chunk_enqueue_delta() : queue_chunk_dequeue_delta());
        const std::uint32_t now = M::add(st.meta[chunk_].count, delta, c) + delta;
        phase_ = queue_chunk_used_up(now, kQueueChunkItems) ? VaPhase::unref : VaPhase::done;
        return phase_ == VaPhase::done ? OpStatus::done : OpStatus::running;
      }
      case VaPhase::unref:
        M::exchange(q.refs[slot_of(q).chunk_slot], kDeletionMarker, c);
        give_ = EnqueueOp<Atomics>(chunk_);
        phase_ = VaPhase::release;
        return OpStatus::running;
      case VaPhase::release: {
        const OpStatus s = step_index_queue(give_, st.reuse, c);
        if (s == OpStatus::spinning) return s;
        if (s == OpStatus::done) {
          phase_ = VaPhase::done;
          return OpStatus::done;
        }
        return OpStatus::running;
      }
      case VaPhase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  // Its position's reference and item (virtual_queue_math.hpp).
  ALLOCLAB_HD VirtualSlot slot_of(const PageQueueRef& q) const {
    return va_locate(position_, kQueueChunkItems, q.ref_count);
  }

  std::uint64_t position_;
  std::uint64_t prepare_ = 0, prepare_last_ = 0;  // virtual chunks a write at item 0 prepares
  std::uint32_t index_;
  std::uint32_t chunk_ = kDeletionMarker;
  std::uint32_t n_ = 1;  // items its count phase counts
  VaPhase phase_ = VaPhase::locate;
  bool locate_only_ = false;
  QueueChunkTake<Atomics> take_;
  EnqueueOp<Atomics> give_{kDeletionMarker};
};

template <class Atomics>
using VaRead = QueueChunkRead<VaSlotOp, Atomics>;
template <class Atomics>
using VaWrite = QueueChunkWrite<VaSlotOp, Atomics>;

// ---- Warp aggregation (see the file comment) ----

// Whether a group's n consecutive positions from `first` take the aggregated path: one chunk,
// and no first item among them (whose write would prepare the next chunk).
ALLOCLAB_HD bool va_group_aggregates(std::uint64_t first, std::uint32_t n) {
  return n > 1 && first % kQueueChunkItems != 0 &&
         first / kQueueChunkItems == (first + n - 1) / kQueueChunkItems;
}

// The leader's locate of the chunk of `position`: its reference, then its virtual start, then
// done (chunk()).
template <class Atomics>
ALLOCLAB_HD VaSlotOp<Atomics, false> va_locate_only(std::uint64_t position) {
  return VaSlotOp<Atomics, false>(kDeletionMarker, position, VaPhase::locate, kDeletionMarker, 0,
                                  true);
}

// A lane's item on the chunk its leader located (no count).
template <class Atomics, bool kWrite>
ALLOCLAB_HD VaSlotOp<Atomics, kWrite> va_item_only(std::uint32_t index, std::uint64_t position,
                                                   std::uint32_t chunk) {
  return VaSlotOp<Atomics, kWrite>(index, position, VaPhase::slot, chunk, 0);
}

// The leader's count of the group's n items (and the chunk's give-back, if that uses it up).
template <class Atomics, bool kWrite>
ALLOCLAB_HD VaSlotOp<Atomics, kWrite> va_count_only(std::uint64_t position, std::uint32_t chunk,
                                                    std::uint32_t n) {
  return VaSlotOp<Atomics, kWrite>(kDeletionMarker, position, VaPhase::count, chunk, n);
}

// The VA policy of PageReserveOp (page_queue.hpp).
template <class Atomics>
struct VirtualArray {
  using Read = VaRead<Atomics>;
  using Write = VaWrite<Atomics>;
  static constexpr bool kVirtual = true;
  static constexpr bool kGroupItems = true;
  static constexpr bool kGroupWalk = false;
  static constexpr std::uint32_t kTrail = 0;
  ALLOCLAB_HD static std::uint32_t static_words(std::uint32_t capacity) {
    return va_reference_count(capacity);
  }
};

}  // namespace alloclab::ouro
