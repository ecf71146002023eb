// DynaSOAr's deallocate (Alg. 2), Block::deallocate (Alg. 7) and invalidate (Alg. 9) as one step
// machine over the heap of heap.hpp, one memory operation per step through `Atomics`.
//
//   and          before <- atomicAnd(&bitmap, ~mask) (Alg. 7 l.2; the bit must have been set: a
//                double free is reported, not served). FIRST: the block was full (before all
//                ones) -> active[T].set(bid). EMPTY: only preset bits remain -> invalidate.
//                alloclab: a block of capacity 1 is both at once (full and then empty); Alg. 7
//                would call it EMPTY only, and the invalidation would then spin in
//                active[t].clear on a bit nobody sets. Here FIRST's set comes first, then the
//                invalidation, so every clear has its set.
//   inv_or       before <- atomicOr(&bitmap, all ones) (Alg. 9 l.2); nothing invalidated: done.
//   inv_type     t <- heap[bid].type; all valid slots were free (before = preset, the paper's
//                "before = 0") -> active[t].clear, allocated[t].clear, free.set (Alg. 2 l.9-11).
//   inv_rollback before_rollback <- atomicAnd(&bitmap, before) (l.8); if another thread freed a
//                slot meanwhile (before_rollback not all ones) -> active[t].clear (the deferred
//                deactivation, l.10); empty again -> inv_or (l.12, iterative as in the source).
#pragma once

#include <cstdint>

#include "alloclab/core/dynasoar/heap.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::dynasoar {

enum class FreePhase : std::uint8_t {
  and_slot,
  activate,  // active[T].set(bid) after FIRST
  inv_or,
  inv_type,
  inv_rollback,
  inv_deactivate,  // active[t].clear(bid), the deferred deactivation of a rollback
  del_active,      // a successful invalidation: active[t].clear(bid),
  del_allocated,   // allocated[t].clear(bid),
  del_free,        // free.set(bid)
  done,
};

template <class Atomics>
class DeallocOp {
 public:
  DeallocOp() = default;
  // Frees slot `slot` of block `bid`, an object of type n (the pointer's type).
  ALLOCLAB_HD DeallocOp(std::uint64_t bid, unsigned slot, unsigned n)
      : bid_(bid), slot_(slot), n_(n) {}
  ALLOCLAB_HD FreePhase phase() const { return phase_; }
  ALLOCLAB_HD bool finished() const { return phase_ == FreePhase::done; }
  ALLOCLAB_HD bool double_free() const { return double_free_; }
  ALLOCLAB_HD bool deleted_block() const { return deleted_; }  // this free deleted the block

  ALLOCLAB_HD BitStatus step(const Heap& h, DsCounts& c) {
    std::uint64_t& word = h.slots[bid_];
    switch (phase_) {
      case FreePhase::and_slot: {
        const std::uint64_t mask = std::uint64_t{1} << slot_;
        ++c.block_atomics;
        // The object's last bytes before its slot is free (a reserve's acquire pairs with it).
        Atomics::fence_release();
        const std::uint64_t before = Atomics::fetch_and(word, ~mask);
        if ((before & mask) == 0) {
          double_free_ = true;  // Alg. 7 l.4's precondition broken
          phase_ = FreePhase::done;
          return BitStatus::done;
        }
        empty_ = (before & ~mask) == h.preset(n_, bid_);
        if (before == kAllOnes) {  // FIRST
          bit_ = BitOp<Atomics>(BitOpKind::set, bid_);
          phase_ = FreePhase::activate;
          return BitStatus::running;
        }
        return after_first();
      }
      case FreePhase::activate:
        return bitmap_step(h.active(n_), c, FreePhase::activate);
      case FreePhase::inv_or: {
        ++c.invalidations;
        ++c.block_atomics;
        inv_before_ = Atomics::fetch_or(word, kAllOnes);
        if (inv_before_ == kAllOnes) return finish();  // nothing invalidated: not ours to delete
        phase_ = FreePhase::inv_type;
        return BitStatus::running;
      }
      case FreePhase::inv_type:
        ++c.block_loads;
        t_ = Atomics::load(h.types[bid_]);
        preset_ = h.preset(t_, bid_);
        if (inv_before_ == preset_) {  // every valid slot was ours
          ++c.invalidated;
          deleted_ = true;
          // Every freer's release (in the slot word's chain this OR read) before the block goes
          // back to the free bitmap for any type: acquire theirs, release to the next owner.
          Atomics::fence_acquire();
          Atomics::fence_release();
          bit_ = BitOp<Atomics>(BitOpKind::clear, bid_);
          phase_ = FreePhase::del_active;
        } else {
          phase_ = FreePhase::inv_rollback;
        }
        return BitStatus::running;
      case FreePhase::inv_rollback:
        ++c.inval_rollbacks;
        ++c.block_atomics;
        rollback_before_ = Atomics::fetch_and(word, inv_before_);
        if (rollback_before_ != kAllOnes) {  // someone freed a slot: it set active[t] (FIRST)
          bit_ = BitOp<Atomics>(BitOpKind::clear, bid_);
          phase_ = FreePhase::inv_deactivate;
          return BitStatus::running;
        }
        return after_rollback(c);
      case FreePhase::inv_deactivate:
        return bitmap_step(h.active(t_), c, FreePhase::inv_deactivate);
      case FreePhase::del_active:
        return bitmap_step(h.active(t_), c, FreePhase::del_active);
      case FreePhase::del_allocated:
        return bitmap_step(h.allocated(t_), c, FreePhase::del_allocated);
      case FreePhase::del_free:
        return bitmap_step(h.free(), c, FreePhase::del_free);
      case FreePhase::done:
        return BitStatus::done;
    }
    return BitStatus::done;
  }

 private:
  ALLOCLAB_HD BitStatus finish() {
    phase_ = FreePhase::done;
    return BitStatus::done;
  }
  ALLOCLAB_HD BitStatus after_first() {
    if (!empty_) return finish();
    phase_ = FreePhase::inv_or;
    return BitStatus::running;
  }
  // Alg. 9 l.11: the slots live before the invalidation were all freed meanwhile (only the
  // preset bits of t are left of them): the block is empty again, invalidate again.
  ALLOCLAB_HD BitStatus after_rollback(DsCounts& c) {
    if ((rollback_before_ & inv_before_) == preset_) {
      ++c.inval_retries;
      phase_ = FreePhase::inv_or;
      return BitStatus::running;
    }
    return finish();
  }
  // One step of the bitmap operation of phase `p`, then what follows it.
  ALLOCLAB_HD BitStatus bitmap_step(const HBitmap& b, DsCounts& c, FreePhase p) {
    const BitStatus s = bit_.step(b, c.bitmap);
    if (s != BitStatus::done) return s;
    switch (p) {
      case FreePhase::activate:
        return after_first();
      case FreePhase::inv_deactivate:
        return after_rollback(c);
      case FreePhase::del_active:
        bit_ = BitOp<Atomics>(BitOpKind::clear, bid_);
        phase_ = FreePhase::del_allocated;
        return BitStatus::running;
      case FreePhase::del_allocated:
        bit_ = BitOp<Atomics>(BitOpKind::set, bid_);
        phase_ = FreePhase::del_free;
        return BitStatus::running;
      default:
        return finish();
    }
  }

  std::uint64_t bid_ = 0;
  unsigned slot_ = 0;
  unsigned n_ = 1;
  std::uint32_t t_ = 0;
  FreePhase phase_ = FreePhase::and_slot;
  bool empty_ = false;
  bool double_free_ = false;
  bool deleted_ = false;
  std::uint64_t inv_before_ = 0, rollback_before_ = 0;
  std::uint64_t preset_ = 0;  // t's preset bits in this block (read with t)
  BitOp<Atomics> bit_;
};

}  // namespace alloclab::dynasoar
