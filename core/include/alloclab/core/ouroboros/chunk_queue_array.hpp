// Variant C over a virtualized array queue (VA, §5.1): the ChunkArray layout policy (see
// chunk_queue_virtual.hpp for the decisions).
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/chunk_queue_chunks.hpp"

namespace alloclab::ouro {

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

  class Locate : public ChunkLocateResult {
   public:
    enum class Phase : std::uint8_t { draw, publish, ref, check, done };
    ALLOCLAB_HD Locate() = default;
    ALLOCLAB_HD Locate(const ChunkQueues& q, unsigned k, std::uint64_t position, EntryUse use,
                       ChunkCursor hint = {})
        : ChunkLocateResult(k, position, use) {
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
    // A walk that found no chunk of this lap there: none of the chunk's positions has an entry
    // (not prepared yet, or used up).
    ALLOCLAB_HD std::uint64_t skip_to() const {
      return word_ ? 0 : entry_chunk_first(position_) + kChunkQueueEntries;
    }

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
          Atomics::fence_acquire();  // the chunk's reset before its start (queue_chunk.hpp)
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
      ChunkLocateResult::found(q, chunk, entry_chunk_first(position_));
      phase_ = Phase::done;
    }
    ALLOCLAB_HD OpStatus finish() {
      phase_ = Phase::done;
      return OpStatus::done;
    }

    Phase phase_ = Phase::ref;
    std::uint64_t prepare_ = 0, prepare_last_ = 0;
    std::uint32_t chunk_ = kDeletionMarker;
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

}  // namespace alloclab::ouro
