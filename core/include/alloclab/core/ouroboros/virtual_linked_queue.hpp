// Ouroboros' virtualized linked-chunk queue (VL; Winter et al., ICS'20, §5.2) under variant P:
// the queue's items live on Queue-Chunks linked by their next words; its static part is three
// chunk pointers, front, back and old (and the trail count beside them, as in the public code).
// front and back stay virtual positions; a lane finds the chunk of its position by walking the
// links from the back pointer (a write) or the front pointer (a read).
//
// A lane's read or write (VlRead, VlWrite: the VL policy's drop-ins for SlotRead and SlotWrite,
// page_queue.hpp) is a step machine, one memory operation per step:
//   walk     load the pointer, then per chunk its start word (class and first position) and, past
//            it, its next; a next not yet linked is waited for (§5.2's back-off);
//   prepare  a write at item 0 of a chunk links the next one first (QueueChunkTake, then a CAS of
//            this chunk's next from none); the write at position 0 also makes chunk 0 and sets
//            the three pointers to it;
//   slot, count   as VA's (virtual_array_queue.hpp);
//   move     the write that fills a chunk (countA = 2048) moves back past it, the operation that
//            uses it up (every item written and read) moves front past it, each sweeping on past
//            chunks already filled or used up (Alg. 6 setPointer);
//   reclaim  every move of front adds one to the trail count; past t (kVlTrail) the mover takes
//            the chunk at old back to the reuse queue and moves old on (§5.2's deferred
//            reclamation: at least t used-up chunks stay between old and front).
// Decisions:
//  * A walk checks each chunk's start word, which carries the queue's class besides the first
//    position: a lane that holds a chunk that was reclaimed and reused (the paper's risk of a
//    reader more than t chunks behind) sees a class or start that is not its queue's next and
//    walks again from the pointer, instead of reading another queue's items.
//  * A mover of back that finds its chunk reclaimed meanwhile sets back to front (never past an
//    unfinished write: its chunk is not used up).
//  * The pool keeps t more Queue-Chunks per class than VA does (queue_chunks_reserved).
//  * The trail count is stored minus one, so that the all-ones fill of the static words (every
//    pointer none) starts it at 0.
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

// The static words of a class's VL queue (PageQueueRef::refs).
inline constexpr unsigned kVlFront = 0, kVlBack = 1, kVlOld = 2, kVlTrailCount = 3;
inline constexpr std::uint32_t kVlStaticWords = 4;

// A chunk's start word: its queue's class in the top byte, its first position below.
ALLOCLAB_HD std::uint64_t vl_start_word(unsigned page_class, std::uint64_t first) {
  return (std::uint64_t{page_class} << 56) | first;
}
// The trail count from its stored word (count - 1).
ALLOCLAB_HD std::uint32_t vl_trail_count(std::uint32_t word) {
  return word + 1u;
}

enum class VlPhase : std::uint8_t {
  first,       // position 0: chunk 0 (QueueChunkTake)
  pointers,    // position 0: front, back, old from none to chunk 0 (one CAS each)
  load,        // the walk: its pointer
  check,       // the walk: the chunk's start word
  follow,      // the walk: its next
  take,        // item 0: the next chunk (QueueChunkTake)
  link,        // item 0: CAS this chunk's next from none to it
  slot,        // the item
  count,       // countA / countB
  move_next,   // a pointer to move past `from_`: its next
  move_check,  // its start again (reclaimed meanwhile?)
  move,        // CAS the pointer from `from_` to the next
  sweep,       // the next's count: filled / used up too? move on
  trail,       // front moved: trail count += 1
  old_load,    // past t: old
  old_next,    // its next
  old_move,    // CAS old on
  trail_undo,  // trail count -= 1
  release,     // the reclaimed chunk to the reuse queue (EnqueueOp steps)
  reset_back,  // back's chunk was reclaimed: load front
  reset_cas,   // CAS back from it to front
  done,
};

template <class Atomics, bool kWrite>
class VlSlotOp {
 public:
  ALLOCLAB_HD VlSlotOp(std::uint32_t index, std::uint64_t position)
      : position_(position), index_(index) {
    if (kWrite && position == 0) phase_ = VlPhase::first;
  }
  // Warp aggregation (see VirtualLinked below): `locate_only`, the leader's walk, which ends where
  // it finds the chunk of `position` (chunk()); or a lane's whole operation walking from `hint`,
  // the chunk its leader found, instead of from the pointer.
  ALLOCLAB_HD VlSlotOp(std::uint32_t index, std::uint64_t position, std::uint32_t hint,
                       bool locate_only)
      : VlSlotOp(index, position) {
    locate_only_ = locate_only;
    if (phase_ == VlPhase::load && hint != kDeletionMarker) {
      chunk_ = hint;
      phase_ = VlPhase::check;
    }
  }
  ALLOCLAB_HD VlPhase phase() const { return phase_; }
  ALLOCLAB_HD bool done() const { return phase_ == VlPhase::done; }
  ALLOCLAB_HD std::uint32_t index() const { return index_; }
  ALLOCLAB_HD std::uint32_t chunk() const { return chunk_; }

  ALLOCLAB_HD OpStatus step(const PageQueueRef& q, OpCounts& c) {
    using M = CountedOps<Atomics>;
    QueueChunkStore& st = *q.store;
    const unsigned k = q.page_class;
    std::uint32_t* words = q.refs;
    switch (phase_) {
      case VlPhase::first:
        if (!started_) {  // the start word needs the queue's class, which step() is given
          prep_ = QueueChunkTake<Atomics>(vl_start_word(k, 0), true);
          started_ = true;
        }
        if (prep_.step(q, c) == OpStatus::spinning) return OpStatus::spinning;
        if (prep_.done()) {
          chunk_ = prep_.chunk();
          pointer_ = 0;
          phase_ = VlPhase::pointers;
        }
        return OpStatus::running;
      case VlPhase::pointers:
        M::cas(words[pointer_], kDeletionMarker, chunk_, c);  // only position 0's write sets them
        if (++pointer_ == kVlTrailCount) begin_prepare(k);
        return OpStatus::running;
      case VlPhase::load:
        chunk_ = M::load(words[kWrite ? kVlBack : kVlFront], c);
        if (chunk_ == kDeletionMarker) return count_spin(c);  // chunk 0 not made yet
        phase_ = VlPhase::check;
        return OpStatus::running;
      case VlPhase::check: {
        const std::uint64_t s = M::load(st.meta[chunk_].virtual_start, c);
        Atomics::fence_acquire();  // the chunk's reset before its start (queue_chunk.hpp)
        const std::uint64_t first = s & ((std::uint64_t{1} << 56) - 1);
        if ((s >> 56) != k || first > position_) {
          phase_ = VlPhase::load;  // reclaimed and reused since the pointer was read
          return count_spin(c);
        }
        if (position_ < first + kQueueChunkItems) {
          start_ = first;
          if (locate_only_) return finish();
          if (kWrite && position_ % kQueueChunkItems == 0)
            begin_prepare(k);
          else
            phase_ = VlPhase::slot;
          return OpStatus::running;
        }
        phase_ = VlPhase::follow;
        return OpStatus::running;
      }
      case VlPhase::follow: {
        const std::uint32_t next = M::load(st.meta[chunk_].next, c);
        if (next == kDeletionMarker) {
          phase_ = VlPhase::check;  // not linked yet: look again (and at the chunk's start)
          return count_spin(c);
        }
        chunk_ = next;
        phase_ = VlPhase::check;
        return OpStatus::running;
      }
      case VlPhase::take:
        if (prep_.step(q, c) == OpStatus::spinning) return OpStatus::spinning;
        if (prep_.done()) phase_ = VlPhase::link;
        return OpStatus::running;
      case VlPhase::link:
        // Only this write links its chunk's next, and its chunk is live (its item is not written).
        M::cas(st.meta[chunk_].next, kDeletionMarker, prep_.chunk(), c);
        phase_ = VlPhase::slot;
        return OpStatus::running;
      case VlPhase::slot: {
        std::uint32_t& item =
            st.slots[std::uint64_t{chunk_} * kQueueChunkItems + position_ % kQueueChunkItems];
        if (!move_queue_chunk_item<Atomics, kWrite>(item, index_, c)) return OpStatus::spinning;
        phase_ = VlPhase::count;
        return OpStatus::running;
      }
      case VlPhase::count: {
        const std::uint32_t delta =
            kWrite ? queue_chunk_enqueue_delta() : queue_chunk_dequeue_delta();
        const std::uint32_t now = M::add(st.meta[chunk_].count, delta, c) + delta;
        move_front_ = queue_chunk_used_up(now, kQueueChunkItems);
        if (kWrite && queue_chunk_count_a(now) == kQueueChunkItems) return begin_move(kVlBack);
        if (move_front_) return begin_move(kVlFront);
        return finish();
      }
      case VlPhase::move_next:
        next_ = M::load(st.meta[from_].next, c);
        phase_ = VlPhase::move_check;
        return OpStatus::running;
      case VlPhase::move_check:
        // Still the chunk it was (a lagging mover's chunk may have been reclaimed since)?
        if (M::load(st.meta[from_].virtual_start, c) != vl_start_word(k, from_start_) ||
            next_ == kDeletionMarker) {
          if (moving_ == kVlBack) {
            phase_ = VlPhase::reset_back;
            return OpStatus::running;
          }
          return after_move();
        }
        phase_ = VlPhase::move;
        return OpStatus::running;
      case VlPhase::move:
        if (M::cas(words[moving_], from_, next_, c) != from_)
          return after_move();  // moved by another
        from_ = next_;
        from_start_ += kQueueChunkItems;
        phase_ = moving_ == kVlFront ? VlPhase::trail : VlPhase::sweep;
        return OpStatus::running;
      case VlPhase::sweep: {
        const std::uint32_t w = M::load(st.meta[from_].count, c);
        const bool again = moving_ == kVlBack ? queue_chunk_count_a(w) == kQueueChunkItems
                                              : queue_chunk_used_up(w, kQueueChunkItems);
        if (again) {
          phase_ = VlPhase::move_next;
          return OpStatus::running;
        }
        return after_move();
      }
      case VlPhase::trail: {
        const std::uint32_t count = vl_trail_count(M::add(words[kVlTrailCount], 1u, c)) + 1;
        phase_ = count > kVlTrail ? VlPhase::old_load : VlPhase::sweep;
        return OpStatus::running;
      }
      case VlPhase::old_load:
        old_ = M::load(words[kVlOld], c);
        phase_ = VlPhase::old_next;
        return OpStatus::running;
      case VlPhase::old_next:
        old_next_ = M::load(st.meta[old_].next, c);
        phase_ = VlPhase::old_move;
        return OpStatus::running;
      case VlPhase::old_move:
        if (M::cas(words[kVlOld], old_, old_next_, c) != old_) {
          phase_ = VlPhase::old_load;  // another mover took this one: the next
          return count_spin(c);
        }
        phase_ = VlPhase::trail_undo;
        return OpStatus::running;
      case VlPhase::trail_undo:
        M::add(words[kVlTrailCount], ~std::uint32_t{0}, c);
        give_ = EnqueueOp<Atomics>(old_);
        phase_ = VlPhase::release;
        return OpStatus::running;
      case VlPhase::release: {
        const OpStatus s = step_index_queue(give_, st.reuse, c);
        if (s == OpStatus::spinning) return s;
        if (s == OpStatus::done) phase_ = VlPhase::sweep;
        return OpStatus::running;
      }
      case VlPhase::reset_back:
        next_ = M::load(words[kVlFront], c);
        phase_ = VlPhase::reset_cas;
        return OpStatus::running;
      case VlPhase::reset_cas:
        M::cas(words[kVlBack], from_, next_, c);
        return after_move();
      case VlPhase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  // A write at item 0 of chunk_ (first position start_): the next chunk, linked, before its item.
  ALLOCLAB_HD void begin_prepare(unsigned k) {
    if (phase_ == VlPhase::pointers) start_ = 0;
    prep_ = QueueChunkTake<Atomics>(vl_start_word(k, start_ + kQueueChunkItems), true);
    phase_ = VlPhase::take;
  }
  ALLOCLAB_HD OpStatus begin_move(unsigned pointer) {
    moving_ = pointer;
    from_ = chunk_;
    from_start_ = start_;
    phase_ = VlPhase::move_next;
    return OpStatus::running;
  }
  // One pointer done: the other (front after back, when this operation also used the chunk up).
  ALLOCLAB_HD OpStatus after_move() {
    if (moving_ == kVlBack && move_front_) return begin_move(kVlFront);
    return finish();
  }
  ALLOCLAB_HD OpStatus finish() {
    phase_ = VlPhase::done;
    return OpStatus::done;
  }

  std::uint64_t position_;
  std::uint64_t start_ = 0;       // first position of chunk_, once the walk found it
  std::uint64_t from_start_ = 0;  // first position of from_
  std::uint32_t index_;
  std::uint32_t chunk_ = kDeletionMarker;
  std::uint32_t from_ = kDeletionMarker, next_ = kDeletionMarker;
  std::uint32_t old_ = kDeletionMarker, old_next_ = kDeletionMarker;
  unsigned pointer_ = 0, moving_ = kVlBack;
  bool move_front_ = false, started_ = false, locate_only_ = false;
  VlPhase phase_ = VlPhase::load;
  QueueChunkTake<Atomics> prep_;
  EnqueueOp<Atomics> give_{kDeletionMarker};
};

template <class Atomics>
using VlRead = QueueChunkRead<VlSlotOp, Atomics>;
template <class Atomics>
using VlWrite = QueueChunkWrite<VlSlotOp, Atomics>;

// The VL policy of PageReserveOp (page_queue.hpp). Warp aggregation of the walk (GPU and
// lockstep; kGroupWalk): a warp group's leader walks once, to the chunk of the group's first
// position (locate), and each lane walks on from there (from_hint), checking every chunk as a
// walk from the pointer does (the leader's chunk may be reclaimed meanwhile: the lane then walks
// again from the pointer).
template <class Atomics>
struct VirtualLinked {
  using Read = VlRead<Atomics>;
  using Write = VlWrite<Atomics>;
  static constexpr bool kVirtual = true;
  static constexpr bool kGroupItems = false;
  static constexpr bool kGroupWalk = true;
  template <bool kWrite>
  ALLOCLAB_HD static VlSlotOp<Atomics, kWrite> locate(std::uint64_t position) {
    return VlSlotOp<Atomics, kWrite>(kDeletionMarker, position, kDeletionMarker, true);
  }
  template <bool kWrite>
  ALLOCLAB_HD static VlSlotOp<Atomics, kWrite> from_hint(std::uint32_t index,
                                                         std::uint64_t position,
                                                         std::uint32_t hint) {
    return VlSlotOp<Atomics, kWrite>(index, position, hint, false);
  }
  static constexpr std::uint32_t kTrail = kVlTrail;
  ALLOCLAB_HD static std::uint32_t static_words(std::uint32_t /*capacity*/) {
    return kVlStaticWords;
  }
};

}  // namespace alloclab::ouro
