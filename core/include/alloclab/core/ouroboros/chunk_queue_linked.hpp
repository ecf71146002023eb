// Variant C over a virtualized linked queue (VL, §5.2): the ChunkLinked layout policy (see
// chunk_queue_virtual.hpp for the decisions).
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/chunk_queue_chunks.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"

namespace alloclab::ouro {

// ---- VL: linked Queue-Chunks; static words front, back, old and the trail count ----
inline constexpr unsigned kClFront = 0, kClBack = 1, kClOld = 2, kClTrail = 3;

template <class Atomics>
struct ChunkLinked {
  static constexpr bool kVirtual = true;
  static constexpr std::uint32_t kTrail = kVlTrail;
  ALLOCLAB_HD static std::uint64_t* covered(const ChunkQueues& q, unsigned, std::uint64_t position,
                                            ChunkCursor cursor) {
    return chunk_queue_covered(q, position, cursor);
  }
  ALLOCLAB_HD static std::uint32_t words_per_class(std::uint32_t) { return 4; }

  class Locate : public ChunkLocateResult {
   public:
    enum class Phase : std::uint8_t {
      first,     // position 0: chunk 0 (QueueChunkDraw)
      pointers,  // position 0: front, back and old to it, the trail count to 0 (a store each)
      load,      // the walk: its pointer (back for a write, else front)
      check,     // the walk: the chunk's first position
      follow,    // the walk: its next
      draw,      // item 0: the next chunk (QueueChunkDraw)
      link,      // item 0: this chunk's next to it
      back,      // item 0: back from the chunk the walk started at to this one
      done,
    };
    ALLOCLAB_HD Locate() = default;
    ALLOCLAB_HD Locate(const ChunkQueues& q, unsigned k, std::uint64_t position, EntryUse use,
                       ChunkCursor hint = {})
        : ChunkLocateResult(k, position, use) {
      if (hint.covers(position)) {
        found(q, hint.chunk, hint.first);
        return;
      }
      if (use == EntryUse::write && position == 0) {
        draw_ = QueueChunkDraw<Atomics>(k, 0, true);
        phase_ = Phase::first;
      } else if (hint.chunk != kDeletionMarker && position >= hint.first) {
        chunk_ = hint.chunk;  // a walk goes on from the chunk it was on
        first_ = hint.first;
        phase_ = Phase::follow;
      } else {
        from_ = use == EntryUse::write ? kClBack : kClFront;
      }
    }
    ALLOCLAB_HD bool done() const { return phase_ == Phase::done; }
    // A walk that found the chain end before the position's chunk: nothing past it is written
    // (a chunk is linked before any of its positions is).
    ALLOCLAB_HD std::uint64_t skip_to() const { return word_ ? 0 : ~std::uint64_t{0}; }

    ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
      using M = CountedOps<Atomics>;
      ChunkQueueChunks& v = *q.virt;
      std::uint32_t* words = v.words + std::uint64_t{k_} * v.words_per_class;
      const bool must_find = use_ == EntryUse::write || use_ == EntryUse::pop;
      switch (phase_) {
        case Phase::first: {
          const OpStatus s = draw_.step(q, c);
          if (s == OpStatus::spinning) return s;
          if (draw_.done()) {
            chunk_ = draw_.chunk();
            first_ = 0;
            pointer_ = kClFront;
            phase_ = Phase::pointers;
          }
          return OpStatus::running;
        }
        case Phase::pointers:  // only position 0's write sets them
          M::exchange(words[pointer_], pointer_ == kClTrail ? 0u : chunk_, c.ops);
          if (++pointer_ > kClTrail) begin_draw();
          return OpStatus::running;
        case Phase::load:
          chunk_ = M::load(words[from_], c.ops);
          walked_from_ = chunk_;
          if (chunk_ == kDeletionMarker) {  // chunk 0 not made yet
            if (must_find) return count_spin(c.ops);
            return finish();
          }
          phase_ = Phase::check;
          return OpStatus::running;
        case Phase::check: {
          first_ = M::load(v.meta[chunk_].virtual_start, c.ops);
          Atomics::fence_acquire();  // the chunk's reset before its start (queue_chunk.hpp)
          if (first_ > position_) {
            // Reclaimed and reused since the pointer or link was read, or back has moved past
            // this write's chunk: a write walks from front; others find nothing or start again.
            if (use_ == EntryUse::write && from_ == kClBack) {
              from_ = kClFront;
              phase_ = Phase::load;
              return OpStatus::running;
            }
            if (must_find) {
              phase_ = Phase::load;
              return count_spin(c.ops);
            }
            stale_ = use_ == EntryUse::walk;
            return finish();
          }
          if (position_ - first_ < kChunkQueueEntries) {
            if (use_ == EntryUse::write && position_ == first_) {
              begin_draw();
              return OpStatus::running;
            }
            found(q, chunk_, first_);
            return OpStatus::done;
          }
          phase_ = Phase::follow;
          return OpStatus::running;
        }
        case Phase::follow: {
          const std::uint32_t next = M::load(v.meta[chunk_].next, c.ops);
          if (next == kDeletionMarker) {  // not linked yet: nothing past this chunk is written
            if (must_find) {
              phase_ = Phase::check;
              return count_spin(c.ops);
            }
            return finish();
          }
          chunk_ = next;
          phase_ = Phase::check;
          return OpStatus::running;
        }
        case Phase::draw: {
          const OpStatus s = draw_.step(q, c);
          if (s == OpStatus::spinning) return s;
          if (draw_.done()) phase_ = Phase::link;
          return OpStatus::running;
        }
        case Phase::link:
          // Only this write links its chunk, which is live (its item 0 is not written yet).
          M::exchange(v.meta[chunk_].next, draw_.chunk(), c.ops);
          phase_ = position_ == 0 ? Phase::done : Phase::back;
          if (position_ == 0) found(q, chunk_, first_);
          return phase_ == Phase::done ? OpStatus::done : OpStatus::running;
        case Phase::back:
          // Where later writes start their walk (once; a later item 0 may have moved it on).
          if (walked_from_ != chunk_ && from_ == kClBack)
            M::cas(words[kClBack], walked_from_, chunk_, c.ops);
          found(q, chunk_, first_);
          return OpStatus::done;
        case Phase::done:
          break;
      }
      return OpStatus::done;
    }

   private:
    ALLOCLAB_HD void begin_draw() {
      draw_ = QueueChunkDraw<Atomics>(k_, first_ + kChunkQueueEntries, true);
      phase_ = Phase::draw;
    }
    ALLOCLAB_HD void found(const ChunkQueues& q, std::uint32_t chunk, std::uint64_t first) {
      ChunkLocateResult::found(q, chunk, first);
      phase_ = Phase::done;
    }
    ALLOCLAB_HD OpStatus finish() {
      phase_ = Phase::done;
      return OpStatus::done;
    }

    Phase phase_ = Phase::load;
    unsigned from_ = kClFront, pointer_ = 0;
    std::uint32_t chunk_ = kDeletionMarker, walked_from_ = kDeletionMarker;
    std::uint64_t first_ = 0;
    QueueChunkDraw<Atomics> draw_;
  };

  // The removal at `position` counted on its chunk; the one that uses the chunk up moves front
  // on (and past chunks used up meanwhile), and every move past t gives old's chunk back.
  class Popped {
   public:
    enum class Phase : std::uint8_t {
      count,       // the chunk's count += 1: used up?
      next,        // front's chunk's next
      move,        // CAS front from it to its next (lost: the chunk before is still moving)
      trail,       // the trail count += 1: past t?
      old_load,    // old
      old_next,    // its next
      old_move,    // CAS old on (lost: again)
      trail_undo,  // the trail count -= 1
      spare,       // old's chunk to the spare stack
      sweep,       // the new front chunk's count: used up too? move on
      done,
    };
    ALLOCLAB_HD Popped() = default;
    ALLOCLAB_HD Popped(unsigned k, std::uint64_t, ChunkCursor at) : k_(k), chunk_(at.chunk) {}
    ALLOCLAB_HD bool done() const { return phase_ == Phase::done; }
    ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
      using M = CountedOps<Atomics>;
      ChunkQueueChunks& v = *q.virt;
      std::uint32_t* words = v.words + std::uint64_t{k_} * v.words_per_class;
      switch (phase_) {
        case Phase::count: {
          const std::uint32_t now = M::add(v.meta[chunk_].count, 1u, c.ops) + 1;
          return now == kChunkQueueEntries ? go(Phase::next) : finish();
        }
        case Phase::next:
          next_ = M::load(v.meta[chunk_].next, c.ops);  // linked: its item 0 was written
          return go(Phase::move);
        case Phase::move:
          // Lost: front is still on the chunk before, whose mover will sweep past this one.
          if (M::cas(words[kClFront], chunk_, next_, c.ops) != chunk_) return finish();
          chunk_ = next_;
          return go(Phase::trail);
        case Phase::trail:
          return go(M::add(words[kClTrail], 1u, c.ops) + 1 > kVlTrail ? Phase::old_load
                                                                      : Phase::sweep);
        case Phase::old_load:
          old_ = M::load(words[kClOld], c.ops);
          return go(Phase::old_next);
        case Phase::old_next:
          old_next_ = M::load(v.meta[old_].next, c.ops);
          return go(Phase::old_move);
        case Phase::old_move:
          if (M::cas(words[kClOld], old_, old_next_, c.ops) != old_) {
            phase_ = Phase::old_load;  // another mover gave that one back: the next
            return count_spin(c.ops);
          }
          return go(Phase::trail_undo);
        case Phase::trail_undo:
          M::add(words[kClTrail], ~std::uint32_t{0}, c.ops);
          spare_ = QueueChunkSpare<Atomics>(k_, old_);
          return go(Phase::spare);
        case Phase::spare:
          spare_.step(q, c);
          if (spare_.done()) phase_ = Phase::sweep;
          return OpStatus::running;
        case Phase::sweep:
          if (M::load(v.meta[chunk_].count, c.ops) == kChunkQueueEntries) return go(Phase::next);
          return finish();
        case Phase::done:
          break;
      }
      return OpStatus::done;
    }

   private:
    ALLOCLAB_HD OpStatus go(Phase p) {
      phase_ = p;
      return OpStatus::running;
    }
    ALLOCLAB_HD OpStatus finish() {
      phase_ = Phase::done;
      return OpStatus::done;
    }
    unsigned k_ = 0;
    std::uint32_t chunk_ = kDeletionMarker, next_ = kDeletionMarker;
    std::uint32_t old_ = kDeletionMarker, old_next_ = kDeletionMarker;
    Phase phase_ = Phase::count;
    QueueChunkSpare<Atomics> spare_;
  };
};

}  // namespace alloclab::ouro
