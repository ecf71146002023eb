// Ouroboros variant C over virtualized queues (Winter et al., ICS'20, §5): the entries of a
// class's chunk queue live on Queue-Chunks of 1024 eight-byte entries (chunk_queue.hpp's
// ChunkQueueChunks), found through a short ring of references (VA, §5.1: ChunkArray) or by
// walking linked Queue-Chunks from a front or back pointer (VL, §5.2: ChunkLinked). These are the
// layout policies of variant C's step machines (chunk_queue.hpp, chunk_page.hpp), as StaticRing,
// VirtualArray and VirtualLinked are variant P's (page_queue.hpp).
//
// How C uses its queue differs from P's, and the layouts follow it: an entry is written once (a
// publish), read any number of times by walking lanes (a load, Alg. 4 l.7), possibly turned into
// a hole by a flasher, and taken out once, by the thread that moves front past it (an exchange).
// Front never passes a position that was not written (a walker passes those, it does not remove
// them). So a Queue-Chunk is used up when all its 1024 entries have been taken out from front:
// only the removals are counted (one atomic on the chunk's count word each).
//
// Decisions (docs/ouroboros.md, "C over VA and VL"; each tested):
//  * A Queue-Chunk is drawn when a queue needs it (the paper's on-demand allocation): from the
//    class's spare stack, else a fresh chunk of the pool, whose entries are set to empty first
//    (1024 stores, counted). So that one is always there, a class's first grow commits in the
//    pool (ChunkSourceWords::committed) the most its queue can hold at once: enough for the
//    ring's capacity (ouro-c-s's, twice the pool's chunks), ceil(capacity / 1024) + 2, and VL's
//    trail t; a grow that would commit more than the pool has fails as out of memory, and so does
//    one whose fresh page chunk would. A queue spans more than its capacity only where ouro-c-s's
//    ring would wait for a slot (a lap onto an entry not taken out); then the draw waits (counted
//    spins) and the caller's bound ends the wait, as for that slot. Without the reserve a publish
//    (a free's, after the pool ran out) could wait for a Queue-Chunk no one will give back.
//  * A used-up Queue-Chunk goes to its class's spare stack (a Treiber stack through the chunks'
//    next words, its head tagged against ABA), never back to pages and never to another class.
//    Then every Queue-Chunk a walker may still hold carries only its own class's entries, and
//    an entry names its own position (chunk_state.hpp), so a walker that reads a reused chunk
//    sees entries of other positions, i.e. none for its own: walks need no check beyond the
//    entry's, and a flasher's CAS of its exact entry cannot hit another.
//  * Publishes and front removers check the chunk's start (its first position) where the
//    position's chunk must be the one they find (a reference or pointer of an earlier lap or a
//    reused chunk is waited for or walked past).
//  * VA: the write at item 0 of a Queue-Chunk prepares the next one (the write at position 0
//    prepares chunks 0 and 1), as §5.1 and P's VA; the remover that uses a chunk up empties its
//    reference and puts the chunk on the spare stack.
//  * VL: static words front, back and old (chunk ids) and the trail count; the write at item 0 of
//    a chunk links the next one and moves back to its own chunk; a walk starts from front (a
//    walker, a remover, a flasher) or back (a publish; from front if back has moved past it); the
//    remover that uses a chunk up moves front on (sweeping past chunks used up meanwhile, whose
//    removers lost that race); every move of front adds one to the trail, and past t (kVlTrail)
//    the mover gives the chunk at old to the spare stack and moves old on (§5.2's deferred
//    reclamation; here not needed for safety, see above, but kept as the paper builds it).
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

// The Queue-Chunks a class's queue can hold at once, which its first grow commits in the pool: a
// window of `capacity` positions touches ceil(capacity / 1024) + 1 chunks, one more is prepared
// ahead, and VL keeps its trail of t used-up ones.
ALLOCLAB_HD std::uint32_t chunk_queue_reserve(std::uint32_t capacity, std::uint32_t trail) {
  return (capacity + kChunkQueueEntries - 1) / kChunkQueueEntries + 2 + trail;
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
    count,       // count = 0 (and 1024 empty entries on a chunk not used as one before)
    unlink,      // VL: next = none
    start,       // its first position
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
        ++c.queue_recycled;
        fill_ = false;
        phase_ = Phase::spared;
        return OpStatus::running;
      }
      case Phase::spared:
        M::add(v.counts->spared, ~std::uint64_t{0}, c.ops);
        phase_ = Phase::count;
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
        ++c.queue_chunks;
        fill_ = true;
        phase_ = Phase::count;
        return OpStatus::running;
      case Phase::count: {
        M::exchange(v.meta[chunk_].count, std::uint32_t{0}, c.ops);
        if (fill_) {  // a spare's entries were all taken out; another chunk's are anything
          std::uint64_t* e = v.entries + std::uint64_t{chunk_} * kChunkQueueEntries;
          for (std::uint32_t i = 0; i < kChunkQueueEntries; ++i) e[i] = kEmptyEntry;
          c.ops.memory_ops += kChunkQueueEntries;
        }
        phase_ = linked_ ? Phase::unlink : Phase::start;
        return OpStatus::running;
      }
      case Phase::unlink:
        M::exchange(v.meta[chunk_].next, kDeletionMarker, c.ops);
        phase_ = Phase::start;
        return OpStatus::running;
      case Phase::start:
        Atomics::fence();  // the reset before the start that publishes it
        M::exchange(v.meta[chunk_].virtual_start, first_, c.ops);
        phase_ = Phase::done;
        return OpStatus::done;
      case Phase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  unsigned k_ = 0;
  std::uint64_t first_ = 0;
  bool linked_ = false, fill_ = false;
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

// ---- VA: a ring of Queue-Chunk references per class (chunk j's in reference j mod R) ----
template <class Atomics>
struct ChunkArray {
  static constexpr bool kVirtual = true;
  static constexpr std::uint32_t kTrail = 0;
  ALLOCLAB_HD static std::uint64_t* covered(const ChunkQueues& q, unsigned, std::uint64_t position,
                                            ChunkCursor cursor) {
    return chunk_queue_covered(q, position, cursor);
  }
  // References of a class whose queue spans at most `capacity` positions (va_reference_count's
  // rule at 1024 entries a chunk).
  ALLOCLAB_HD static std::uint32_t words_per_class(std::uint32_t capacity) {
    return chunk_queue_reserve(capacity, 0);
  }

  class Locate {
   public:
    enum class Phase : std::uint8_t { draw, publish, ref, check, done };
    ALLOCLAB_HD Locate() = default;
    ALLOCLAB_HD Locate(const ChunkQueues& q, unsigned k, std::uint64_t position, EntryUse use,
                       ChunkCursor hint = {})
        : k_(k), position_(position), use_(use) {
      if (hint.covers(position)) {
        found(q, hint.chunk);
        return;
      }
      const std::uint64_t j = position / kChunkQueueEntries;
      if (use == EntryUse::write && position % kChunkQueueEntries == 0) {
        prepare_ = j == 0 ? 0 : j + 1;  // chunk 0 too at the queue's first position
        prepare_last_ = j + 1;
        draw_ = QueueChunkDraw<Atomics>(k, prepare_ * kChunkQueueEntries, false);
        phase_ = Phase::draw;
      }
    }
    ALLOCLAB_HD bool done() const { return phase_ == Phase::done; }
    ALLOCLAB_HD bool stale() const { return stale_; }
    // A walk that found no chunk of this lap there: none of the chunk's positions has an entry
    // (not prepared yet, or used up).
    ALLOCLAB_HD std::uint64_t skip_to() const {
      return word_ ? 0 : entry_chunk_first(position_) + kChunkQueueEntries;
    }
    ALLOCLAB_HD std::uint64_t* word() const { return word_; }
    ALLOCLAB_HD ChunkCursor cursor() const { return cursor_; }

    ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
      using M = CountedOps<Atomics>;
      ChunkQueueChunks& v = *q.virt;
      std::uint32_t* refs = v.words + std::uint64_t{k_} * v.words_per_class;
      switch (phase_) {
        case Phase::draw: {
          const OpStatus s = draw_.step(q, c);
          if (s == OpStatus::spinning) return s;
          if (draw_.done()) phase_ = Phase::publish;
          return OpStatus::running;
        }
        case Phase::publish:
          if (M::cas(refs[prepare_ % v.words_per_class], kDeletionMarker, draw_.chunk(), c.ops) !=
              kDeletionMarker)
            return count_spin(c.ops);  // the reference's chunk of a lap earlier is in use
          if (prepare_ < prepare_last_) {
            ++prepare_;
            draw_ = QueueChunkDraw<Atomics>(k_, prepare_ * kChunkQueueEntries, false);
            phase_ = Phase::draw;
          } else {
            phase_ = Phase::ref;
          }
          return OpStatus::running;
        case Phase::ref: {
          chunk_ = M::load(refs[position_ / kChunkQueueEntries % v.words_per_class], c.ops);
          if (chunk_ != kDeletionMarker) {
            phase_ = Phase::check;
            return OpStatus::running;
          }
          // Not prepared yet (a publish or a removal waits for it), or used up (a walk or a
          // flasher: nothing there for it).
          if (use_ == EntryUse::write || use_ == EntryUse::pop) return count_spin(c.ops);
          return finish();
        }
        case Phase::check: {
          const std::uint64_t first = M::load(v.meta[chunk_].virtual_start, c.ops);
          if (first != entry_chunk_first(position_)) {
            if (use_ == EntryUse::write || use_ == EntryUse::pop) {
              phase_ = Phase::ref;  // a lap earlier's, still in use: wait for ours
              return count_spin(c.ops);
            }
            // A lap earlier's or later's: none of this position's entries (a later lap's: the
            // position's chunk is used up, and a walk starts again from front).
            stale_ = use_ == EntryUse::walk && first > position_;
            return finish();
          }
          found(q, chunk_);
          return OpStatus::done;
        }
        case Phase::done:
          break;
      }
      return OpStatus::done;
    }

   private:
    ALLOCLAB_HD void found(const ChunkQueues& q, std::uint32_t chunk) {
      cursor_ = ChunkCursor{entry_chunk_first(position_), chunk};
      word_ = chunk_queue_entry(*q.virt, chunk, position_);
      phase_ = Phase::done;
    }
    ALLOCLAB_HD OpStatus finish() {
      phase_ = Phase::done;
      return OpStatus::done;
    }

    unsigned k_ = 0;
    std::uint64_t position_ = 0;
    EntryUse use_ = EntryUse::walk;
    Phase phase_ = Phase::ref;
    std::uint64_t prepare_ = 0, prepare_last_ = 0;
    std::uint32_t chunk_ = kDeletionMarker;
    bool stale_ = false;
    std::uint64_t* word_ = nullptr;
    ChunkCursor cursor_;
    QueueChunkDraw<Atomics> draw_;
  };

  // The removal at `position` counted on its chunk; the one that uses the chunk up empties its
  // reference and puts it on the spare stack.
  class Popped {
   public:
    ALLOCLAB_HD Popped() = default;
    ALLOCLAB_HD Popped(unsigned k, std::uint64_t position, ChunkCursor at)
        : k_(k), position_(position), chunk_(at.chunk) {}
    ALLOCLAB_HD bool done() const { return phase_ == 3; }
    ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
      using M = CountedOps<Atomics>;
      ChunkQueueChunks& v = *q.virt;
      switch (phase_) {
        case 0: {
          const std::uint32_t now = M::add(v.meta[chunk_].count, 1u, c.ops) + 1;
          phase_ = now == kChunkQueueEntries ? 1 : 3;
          return phase_ == 3 ? OpStatus::done : OpStatus::running;
        }
        case 1:
          M::exchange(v.words[std::uint64_t{k_} * v.words_per_class +
                              position_ / kChunkQueueEntries % v.words_per_class],
                      kDeletionMarker, c.ops);
          spare_ = QueueChunkSpare<Atomics>(k_, chunk_);
          phase_ = 2;
          return OpStatus::running;
        case 2:
          spare_.step(q, c);
          if (spare_.done()) phase_ = 3;
          return spare_.done() ? OpStatus::done : OpStatus::running;
        default:
          return OpStatus::done;
      }
    }

   private:
    unsigned k_ = 0;
    std::uint64_t position_ = 0;
    std::uint32_t chunk_ = kDeletionMarker;
    unsigned phase_ = 0;
    QueueChunkSpare<Atomics> spare_;
  };
};

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

  class Locate {
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
        : k_(k), position_(position), use_(use) {
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
    ALLOCLAB_HD bool stale() const { return stale_; }
    // A walk that found the chain end before the position's chunk: nothing past it is written
    // (a chunk is linked before any of its positions is).
    ALLOCLAB_HD std::uint64_t skip_to() const { return word_ ? 0 : ~std::uint64_t{0}; }
    ALLOCLAB_HD std::uint64_t* word() const { return word_; }
    ALLOCLAB_HD ChunkCursor cursor() const { return cursor_; }

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
      cursor_ = ChunkCursor{first, chunk};
      word_ = chunk_queue_entry(*q.virt, chunk, position_);
      phase_ = Phase::done;
    }
    ALLOCLAB_HD OpStatus finish() {
      phase_ = Phase::done;
      return OpStatus::done;
    }

    unsigned k_ = 0;
    std::uint64_t position_ = 0;
    EntryUse use_ = EntryUse::walk;
    Phase phase_ = Phase::load;
    unsigned from_ = kClFront, pointer_ = 0;
    std::uint32_t chunk_ = kDeletionMarker, walked_from_ = kDeletionMarker;
    std::uint64_t first_ = 0;
    bool stale_ = false;
    std::uint64_t* word_ = nullptr;
    ChunkCursor cursor_;
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
