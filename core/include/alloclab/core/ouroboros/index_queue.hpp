// Ouroboros' base index queue (Winter et al., ICS'20, §3.3, Alg. 1): a ring of `size` 32-bit
// slots, pre-filled with a deletion marker, with a fill count, a front and a back. Enqueue and
// dequeue are step machines (at most one memory operation per step, through the atomics policy
// `Atomics`, see host_atomics.hpp) so the CPU simulator can interleave them and the GPU can bound
// them; the two waits of Alg. 1 (lines 6 and 13) are counted and never loop inside a step.
//
// Why the slot waits exist (§3.3): the fill count admits an operation before its slot is ready.
// An enqueue may be given a slot that a dequeue has already advertised as free but not yet
// emptied (line 6: CAS del -> index until it succeeds); a dequeue may be given a slot whose
// enqueue has been counted but whose write has not landed (line 13: exchange with del until it
// returns something else). Both waits end only when the other thread acts.
//
// front and back are 64-bit counters (the public code uses 32 bits): the position is counter
// mod size, and a 32-bit counter would jump when it wraps at 2^32 unless size divides 2^32.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab::ouro {

// An empty slot. Indices stored in the queue must differ from it.
inline constexpr std::uint32_t kDeletionMarker = 0xFFFF'FFFFu;

// The shared words of one queue; the caller places them (host memory, device memory).
struct IndexQueueWords {
  std::uint32_t fill_count = 0;  // a signed count kept in two's complement (dequeue takes it
                                 // below zero for a moment when the queue is empty)
  std::uint32_t unused = 0;
  std::uint64_t front = 0;  // next position to dequeue (virtual; slot = front mod size)
  std::uint64_t back = 0;   // next position to enqueue
};

struct IndexQueueRef {
  IndexQueueWords* words;
  std::uint32_t* slots;  // `size` slots, each kDeletionMarker when the queue is set up
  std::uint32_t size;
};

// How an enqueue decides that the queue is full (Alg. 1 line 2).
enum class FullCheck : std::uint8_t {
  correct,  // enqueue only if the old fill count < size
  printed,  // as printed: refuse only if the old fill count > size, which admits a
            // (size + 1)-th item into a ring of `size` slots (see the tests)
};

ALLOCLAB_HD bool index_queue_admits(std::int32_t old_fill, std::uint32_t size, FullCheck check) {
  const std::int64_t old = old_fill;
  return check == FullCheck::correct ? old < std::int64_t{size} : !(old > std::int64_t{size});
}

enum class QueueStatus : std::uint8_t {
  running,   // made progress; step again
  spinning,  // waiting for the other side on the slot (Alg. 1 line 6 or 13); may back off
  done,
};

enum class QueueOutcome : std::uint8_t {
  pending,
  ok,
  full,           // enqueue refused, fill count restored (lines 2-4)
  empty,          // dequeue found nothing, fill count restored (lines 9-11)
  invalid_index,  // enqueue of the deletion marker itself: refused before touching the queue
  spin_limit,     // reported by the bounded runners only: the operation holds a slot and is
                  // still pending; it can be resumed, but not withdrawn (see below)
};

enum class EnqueuePhase : std::uint8_t { count, undo, claim, write, done };
enum class DequeuePhase : std::uint8_t { count, undo, claim, read, done };

// enqueue(index), Alg. 1 lines 1-7.
// Once `claim` has advanced back, the slot is this operation's for good: nothing can give a
// position back, and the dequeue that will get this position waits for its write. An enqueue
// stopped in `write` therefore leaves the queue with a hole that blocks that dequeue; the
// bounded runner reports it and the caller must resume, never drop, the operation.
template <class Atomics>
class EnqueueOp {
 public:
  ALLOCLAB_HD explicit EnqueueOp(std::uint32_t index, FullCheck check = FullCheck::correct)
      : index_(index), check_(check) {}

  ALLOCLAB_HD EnqueuePhase phase() const { return phase_; }
  ALLOCLAB_HD QueueOutcome outcome() const { return outcome_; }
  ALLOCLAB_HD std::uint32_t slot_spins() const { return spins_; }
  ALLOCLAB_HD std::uint64_t position() const { return position_; }
  ALLOCLAB_HD std::uint32_t memory_ops() const { return memory_ops_; }

  ALLOCLAB_HD QueueStatus step(IndexQueueRef q) {
    switch (phase_) {
      case EnqueuePhase::count: {
        if (index_ == kDeletionMarker) return finish(QueueOutcome::invalid_index);
        ++memory_ops_;
        const auto old = static_cast<std::int32_t>(
            Atomics::fetch_add(q.words->fill_count, std::uint32_t{1}));  // line 2
        phase_ = index_queue_admits(old, q.size, check_) ? EnqueuePhase::claim : EnqueuePhase::undo;
        return QueueStatus::running;
      }
      case EnqueuePhase::undo:
        ++memory_ops_;
        Atomics::fetch_add(q.words->fill_count, ~std::uint32_t{0});  // line 3: -1
        return finish(QueueOutcome::full);
      case EnqueuePhase::claim:
        ++memory_ops_;
        position_ = Atomics::fetch_add(q.words->back, std::uint64_t{1});  // line 5
        phase_ = EnqueuePhase::write;
        return QueueStatus::running;
      case EnqueuePhase::write: {
        ++memory_ops_;
        std::uint32_t& slot = q.slots[position_ % q.size];
        // What the enqueuer wrote for the index (a page's last bytes, a chunk's set-up) before
        // the slot that hands it over; the dequeuer's acquire pairs with it.
        Atomics::fence_release();
        if (Atomics::cas(slot, kDeletionMarker, index_) != kDeletionMarker) {  // line 6
          ++spins_;
          return QueueStatus::spinning;
        }
        return finish(QueueOutcome::ok);
      }
      case EnqueuePhase::done:
        break;
    }
    return QueueStatus::done;
  }

 private:
  ALLOCLAB_HD QueueStatus finish(QueueOutcome o) {
    outcome_ = o;
    phase_ = EnqueuePhase::done;
    return QueueStatus::done;
  }
  std::uint32_t index_;
  FullCheck check_;
  EnqueuePhase phase_ = EnqueuePhase::count;
  QueueOutcome outcome_ = QueueOutcome::pending;
  std::uint64_t position_ = 0;
  std::uint32_t spins_ = 0;
  std::uint32_t memory_ops_ = 0;
};

// dequeue(&index), Alg. 1 lines 8-14. An empty queue ("a common occurrence", §3.3) costs two
// atomics on the fill count and leaves front alone. Like the enqueue, a dequeue past `claim`
// owns its position and must be resumed, not dropped.
template <class Atomics>
class DequeueOp {
 public:
  ALLOCLAB_HD DequeueOp() {}

  ALLOCLAB_HD DequeuePhase phase() const { return phase_; }
  ALLOCLAB_HD QueueOutcome outcome() const { return outcome_; }
  ALLOCLAB_HD std::uint32_t index() const { return index_; }  // valid when outcome() == ok
  ALLOCLAB_HD std::uint32_t slot_spins() const { return spins_; }
  ALLOCLAB_HD std::uint64_t position() const { return position_; }
  ALLOCLAB_HD std::uint32_t memory_ops() const { return memory_ops_; }

  ALLOCLAB_HD QueueStatus step(IndexQueueRef q) {
    switch (phase_) {
      case DequeuePhase::count: {
        ++memory_ops_;
        const auto old = static_cast<std::int32_t>(
            Atomics::fetch_add(q.words->fill_count, ~std::uint32_t{0}));  // line 9: -1
        phase_ = old <= 0 ? DequeuePhase::undo : DequeuePhase::claim;
        return QueueStatus::running;
      }
      case DequeuePhase::undo:
        ++memory_ops_;
        Atomics::fetch_add(q.words->fill_count, std::uint32_t{1});  // line 10
        return finish(QueueOutcome::empty);
      case DequeuePhase::claim:
        ++memory_ops_;
        position_ = Atomics::fetch_add(q.words->front, std::uint64_t{1});  // line 12
        phase_ = DequeuePhase::read;
        return QueueStatus::running;
      case DequeuePhase::read: {
        ++memory_ops_;
        index_ = Atomics::exchange(q.slots[position_ % q.size], kDeletionMarker);  // line 13
        if (index_ == kDeletionMarker) {
          ++spins_;
          return QueueStatus::spinning;
        }
        Atomics::fence_acquire();  // the enqueuer's writes for this index (its release above)
        return finish(QueueOutcome::ok);
      }
      case DequeuePhase::done:
        break;
    }
    return QueueStatus::done;
  }

 private:
  ALLOCLAB_HD QueueStatus finish(QueueOutcome o) {
    outcome_ = o;
    phase_ = DequeuePhase::done;
    return QueueStatus::done;
  }
  DequeuePhase phase_ = DequeuePhase::count;
  QueueOutcome outcome_ = QueueOutcome::pending;
  std::uint32_t index_ = kDeletionMarker;
  std::uint64_t position_ = 0;
  std::uint32_t spins_ = 0;
  std::uint32_t memory_ops_ = 0;
};

struct NoQueueBackoff {
  ALLOCLAB_HD void operator()(std::uint32_t /*spins*/) const {}
};

// Steps `op` until it is done or has spun `max_spins` more times on its slot; returns its
// outcome, or spin_limit (the op is then still pending and can be run again). on_spin(spins)
// runs after each spin (a GPU caller sleeps there).
template <class Op, class OnSpin = NoQueueBackoff>
ALLOCLAB_HD QueueOutcome queue_run_bounded(Op& op, IndexQueueRef q, std::uint32_t max_spins,
                                           OnSpin on_spin = OnSpin{}) {
  std::uint32_t spins = 0;
  for (;;) {
    const QueueStatus s = op.step(q);
    if (s == QueueStatus::done) return op.outcome();
    if (s == QueueStatus::spinning) {
      if (++spins >= max_spins) return QueueOutcome::spin_limit;
      on_spin(op.slot_spins());
    }
  }
}

}  // namespace alloclab::ouro
