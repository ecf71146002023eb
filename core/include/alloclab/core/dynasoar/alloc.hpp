// DynaSOAr's allocate (Alg. 1) with Block::reserve (Alg. 6), initialize_block (Alg. 8) and warp
// coalescing (§4.2) as one step machine over the heap of heap.hpp, one memory operation per step
// through `Atomics`. One machine serves `want` requests of one type: a warp's leader on behalf of
// its lanes of that type (want = 1 without coalescing).
//
//   lookup       try_find_set on active[T] (Alg. 1 l.2), rotated by (seed + warp) mod 64, the seed
//                changed on every retry (§4.2); up to r lookups (r = 5, §4.2 and Fig. 13) before
//                the slow path.
//   slow_claim   free.clear() (l.4; hbitmap.hpp's ClaimOp). It found nothing: the round was empty
//                and the machine starts over at lookup (the paper loops for ever; see give-up).
//                A block too short for T (the heap's last, when T % 64 != 0) goes back: free.set.
//   init_type    heap[bid].type <- T, fence, heap[bid].bitmap <- preset (Alg. 8), then
//   set_allocated, set_active   allocated[T].set(bid), active[T].set(bid) (l.6-7).
//   reserve_load the bitmap; the free slots from the rotation on, as many as still wanted
//                (coalescing: the leader takes several slots in one atomicOr); none: the block is
//                full or invalidated, start over.
//   reserve_or   before <- atomicOr(&bitmap, mask) (Alg. 6 l.5); the bits it got are those clear
//                in `before`. None and the block all ones: start over; none otherwise: reserve
//                again (Alg. 6's loop). The OR that filled the block (FULL) clears active[t]
//                (l.12).
//   load_type    t <- heap[bid].type (l.11). t = T: the slots are delivered (the caller takes
//                them, see pending()); still wanting: start over for the rest (§4.2: "chooses
//                another active block"). t != T: the block was replaced by another type between
//                the lookup and the OR: each slot is deallocated as type t (l.14, free.hpp), then
//                start over.
// Give-up (alloclab; the paper's allocate "loops infinitely if OOM"): at the start of a round, the
// only place where the machine holds nothing, it ends out of memory when `max_empty_rounds`
// consecutive rounds found active[T] and free empty as a whole (their top words empty: a lookup
// that failed below the top met a transient inconsistency, §4.1.4, and is no evidence), or when it
// has made `max_steps` steps. The unserved requests fail (remaining()).
#pragma once

#include <cstdint>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/dynasoar/free.hpp"
#include "alloclab/core/dynasoar/heap.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::dynasoar {

inline constexpr unsigned kActiveLookupRetries = 5;  // r (§4.2, Fig. 13)
inline constexpr unsigned kMaxEmptyRounds = 4;       // alloclab's out-of-memory rule

struct AllocConfig {
  unsigned retries = kActiveLookupRetries;  // r: active lookups before the slow path (>= 1)
  bool rotate = true;                       // §4.2's bitmap rotation (false: plain ffs)
  unsigned max_empty_rounds = kMaxEmptyRounds;
  std::uint64_t max_steps = ~std::uint64_t{0};
};

enum class AllocPhase : std::uint8_t {
  top,
  lookup,
  slow_claim,
  give_back,  // free.set(bid) of a block too short for the type
  init_type,
  init_bitmap,
  set_allocated,
  set_active,
  reserve_load,
  reserve_or,
  load_type,
  deactivate,  // active[t].clear(bid) after FULL
  rollback,
  done,
};

// `k` free slots of `free_bits` taken from bit `rot` on, cyclically (fewer if there are fewer).
ALLOCLAB_HD std::uint64_t rotated_lowest_bits(std::uint64_t free_bits, unsigned k, unsigned rot) {
  const std::uint64_t view = bits::rotate_right<std::uint64_t>(free_bits, rot, 64);
  return bits::rotate_left<std::uint64_t>(bits::lowest_set_bits<std::uint64_t>(view, k), rot, 64);
}

template <class Atomics>
class AllocOp {
 public:
  AllocOp() = default;
  // `want` requests (1..64) of type n (1..64) for warp `warp`; `seed` starts the rotation.
  ALLOCLAB_HD AllocOp(unsigned n, unsigned want, unsigned warp, unsigned seed, AllocConfig cfg)
      : n_(n), want_(want), warp_(warp), seed_(seed), cfg_(cfg) {}

  ALLOCLAB_HD AllocPhase phase() const { return phase_; }
  ALLOCLAB_HD bool finished() const { return phase_ == AllocPhase::done; }
  ALLOCLAB_HD unsigned remaining() const { return want_; }  // unserved (failed once done)
  ALLOCLAB_HD std::uint64_t steps() const { return steps_; }
  // Slots delivered by the last step: block pending_block(), bits pending_mask(). The caller
  // takes them (take()) before the next step.
  ALLOCLAB_HD bool pending() const { return pending_ != 0; }
  ALLOCLAB_HD std::uint64_t pending_block() const { return bid_; }
  ALLOCLAB_HD std::uint64_t pending_mask() const { return pending_; }
  ALLOCLAB_HD void take() { pending_ = 0; }
  // Whether a rollback found a double free (a defect: rollbacks free only what they reserved).
  ALLOCLAB_HD bool broken() const { return broken_; }

  ALLOCLAB_HD BitStatus step(const Heap& h, DsCounts& c) {
    if (phase_ == AllocPhase::top) start_round(h, c);
    if (phase_ == AllocPhase::done) return BitStatus::done;
    ++steps_;
    switch (phase_) {
      case AllocPhase::lookup: {
        if (find_.step(h.active(n_), c.bitmap) != BitStatus::done) return BitStatus::running;
        ++c.lookups;
        looked_empty_ = find_.failed_at_top(h.active(n_));
        if (find_.result() != kNoBit) {
          bid_ = static_cast<std::uint64_t>(find_.result());
          phase_ = AllocPhase::reserve_load;
        } else if (++lookups_ < cfg_.retries) {
          ++c.lookup_fails;
          find_ = FindOp<Atomics>(h.active(n_), next_rotation());
        } else {
          ++c.lookup_fails;
          claim_ = ClaimOp<Atomics>(h.free(), next_seed(), warp_, cfg_.rotate);
          phase_ = AllocPhase::slow_claim;
        }
        return BitStatus::running;
      }
      case AllocPhase::slow_claim: {
        const BitStatus s = claim_.step(h.free(), c.bitmap);
        if (s != BitStatus::done) return s;
        if (claim_.result() == kNoBit) {
          ++c.free_lookup_fails;
          // Empty only if active[T] looked empty as a whole too (its last lookup failed on the
          // top word), not merely inconsistent for a moment.
          if (looked_empty_) ++empty_rounds_;
          phase_ = AllocPhase::top;
          return BitStatus::spinning;
        }
        bid_ = static_cast<std::uint64_t>(claim_.result());
        if (h.valid(n_, bid_) == 0) {
          ++c.tail_skips;
          bit_ = BitOp<Atomics>(BitOpKind::set, bid_);
          phase_ = AllocPhase::give_back;
        } else {
          phase_ = AllocPhase::init_type;
        }
        return BitStatus::running;
      }
      case AllocPhase::give_back: {
        const BitStatus s = bit_.step(h.free(), c.bitmap);
        if (s != BitStatus::done) return s;
        ++empty_rounds_;  // the only free block may be the short one: this round found nothing
        phase_ = AllocPhase::top;
        return BitStatus::spinning;
      }
      case AllocPhase::init_type:
        // The block's previous life (a deleter's release before its free bit) before its set-up.
        Atomics::fence_acquire();
        ++c.block_stores;
        Atomics::exchange(h.types[bid_], static_cast<std::uint32_t>(n_));
        Atomics::fence();  // the type is seen before the free slots (Alg. 8 l.2)
        phase_ = AllocPhase::init_bitmap;
        return BitStatus::running;
      case AllocPhase::init_bitmap:
        ++c.block_stores;
        ++c.blocks_initialised;
        Atomics::exchange(h.slots[bid_], h.preset(n_, bid_));
        bit_ = BitOp<Atomics>(BitOpKind::set, bid_);
        phase_ = AllocPhase::set_allocated;
        return BitStatus::running;
      case AllocPhase::set_allocated: {
        const BitStatus s = bit_.step(h.allocated(n_), c.bitmap);
        if (s != BitStatus::done) return s;
        bit_ = BitOp<Atomics>(BitOpKind::set, bid_);
        phase_ = AllocPhase::set_active;
        return BitStatus::running;
      }
      case AllocPhase::set_active: {
        const BitStatus s = bit_.step(h.active(n_), c.bitmap);
        if (s != BitStatus::done) return s;
        phase_ = AllocPhase::reserve_load;
        return BitStatus::running;
      }
      case AllocPhase::reserve_load: {
        ++c.block_loads;
        const std::uint64_t w = Atomics::load(h.slots[bid_]);
        if (w == kAllOnes) {  // full or invalidated (Alg. 6 l.3)
          ++c.reserve_fails;
          phase_ = AllocPhase::top;
          return BitStatus::spinning;
        }
        mask_ = rotated_lowest_bits(~w, want_, cfg_.rotate ? rotation() : 0);
        phase_ = AllocPhase::reserve_or;
        return BitStatus::running;
      }
      case AllocPhase::reserve_or: {
        ++c.reserves;
        ++c.block_atomics;
        const std::uint64_t before = Atomics::fetch_or(h.slots[bid_], mask_);
        got_ = mask_ & ~before;
        if (got_ == 0) {
          ++c.reserve_lost;
          if (before == kAllOnes) {  // Alg. 6 l.7: the block is full (or invalidated)
            ++c.reserve_fails;
            phase_ = AllocPhase::top;
          } else {
            phase_ = AllocPhase::reserve_load;  // lost these slots: look at the bitmap again
          }
          return BitStatus::spinning;
        }
        full_ = (before | got_) == kAllOnes;
        // The block's set-up (init_type's fence before its slots) and the slots' previous
        // objects (their frees' releases) before the type read and the caller's use.
        Atomics::fence_acquire();
        phase_ = AllocPhase::load_type;
        return BitStatus::running;
      }
      case AllocPhase::load_type:
        ++c.block_loads;
        t_ = Atomics::load(h.types[bid_]);
        if (full_) {
          bit_ = BitOp<Atomics>(BitOpKind::clear, bid_);
          phase_ = AllocPhase::deactivate;
          return BitStatus::running;
        }
        return after_type(c);
      case AllocPhase::deactivate: {
        const BitStatus s = bit_.step(h.active(t_), c.bitmap);
        if (s != BitStatus::done) return s;
        return after_type(c);
      }
      case AllocPhase::rollback: {
        const BitStatus s = free_.step(h, c);
        if (s != BitStatus::done) return s;
        broken_ = broken_ || free_.double_free();
        got_ &= got_ - 1;  // that slot is back
        if (got_ != 0) {
          free_ = DeallocOp<Atomics>(bid_, bits::count_trailing_zeros(got_), t_);
          return BitStatus::running;
        }
        phase_ = AllocPhase::top;
        return BitStatus::running;
      }
      case AllocPhase::top:
      case AllocPhase::done:
        break;
    }
    return BitStatus::done;
  }

 private:
  ALLOCLAB_HD unsigned next_seed() { return ++seed_; }
  ALLOCLAB_HD unsigned rotation() const { return (seed_ + warp_) % 64; }
  ALLOCLAB_HD unsigned next_rotation() {
    next_seed();
    return cfg_.rotate ? rotation() : 0;
  }
  // The start of a round of Alg. 1's loop: give up, or look up an active block.
  ALLOCLAB_HD void start_round(const Heap& h, DsCounts& c) {
    if (want_ == 0) {
      phase_ = AllocPhase::done;
      return;
    }
    if (empty_rounds_ >= cfg_.max_empty_rounds || steps_ >= cfg_.max_steps) {
      ++c.gave_up;
      phase_ = AllocPhase::done;
      return;
    }
    lookups_ = 0;
    find_ = FindOp<Atomics>(h.active(n_), next_rotation());
    phase_ = AllocPhase::lookup;
  }
  ALLOCLAB_HD BitStatus after_type(DsCounts& c) {
    if (t_ == n_) {
      pending_ = got_;
      want_ -= bits::popcount(got_);
      empty_rounds_ = 0;
      phase_ = want_ == 0 ? AllocPhase::done : AllocPhase::top;
      return want_ == 0 ? BitStatus::done : BitStatus::running;
    }
    ++c.rollbacks;  // the block became one of type t: give the slots back as type t
    free_ = DeallocOp<Atomics>(bid_, bits::count_trailing_zeros(got_), t_);
    phase_ = AllocPhase::rollback;
    return BitStatus::running;
  }

  unsigned n_ = 1, want_ = 1, warp_ = 0, seed_ = 0;
  AllocConfig cfg_{};
  AllocPhase phase_ = AllocPhase::top;
  unsigned lookups_ = 0, empty_rounds_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t bid_ = 0, mask_ = 0, got_ = 0, pending_ = 0;
  std::uint32_t t_ = 0;
  bool full_ = false, broken_ = false, looked_empty_ = false;
  FindOp<Atomics> find_;
  ClaimOp<Atomics> claim_;
  BitOp<Atomics> bit_;
  DeallocOp<Atomics> free_;
};

}  // namespace alloclab::dynasoar
