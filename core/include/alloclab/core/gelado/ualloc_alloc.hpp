// UAlloc's allocation (Gelado & Garland, PPoPP'19 §4.2) as a step machine over UAllocView, one
// memory operation per step through `Atomics` (a critical section under a held mutex is one
// step, ualloc_sync.hpp); waits and lost races are steps that report spinning, and the caller
// bounds the steps (give_up).
//
// alloc(class k) in arena a, two-stage (§3.2):
//  1. wait(sem[a][k], 1, B_k), B_k = one bin's slots (512 for 8 B).
//     took (0): a unit is a free slot some bin on the list offers (or will, once a free that
//       signalled it has linked the bin).
//       - enter the SRCU read side: read the epoch e, readers[e & 1] += 1, read the epoch again
//         (moved: undo and retry, so a barrier that flipped has either counted this reader or
//         is not waited for by it);
//       - walk the list: per bin, read its count word and CAS count -> count - 1 while count > 0
//         ("until it manages to decrement a bin free counter without turning it negative"); a
//         walk that reaches the end leaves the read side (so barriers are not held up) and starts
//         again (a sweep);
//       - leave the read side; find a zero bit in the bin's bitmap and set it (fetch_or; a bit
//         another thread set first is a retry). The decrement guarantees one.
//       - the decrement that took the count to 0 exhausted the bin: lock the list, unlink it if
//         its word is still (0, L), unlock. No RCU barrier: an exhausted bin is not reused, only
//         a retired one is (ualloc_free.hpp).
//     grow (-1, §4.2 prints "returns zero": studies/gelado-garland/): lock the arena's chunk list;
//       take a bin from its first chunk, or, with none, a chunk from TBuddy (its alloc machine of
//       order log2(bins per chunk), run here step by step) put on the list; unlock. Initialise
//       the bin (slot 0 is the grower's), lock the class's list, link the bin, unlock, and
//       signal (slots - 1, B - 1): the bin's other slots, paying off the promise. TBuddy out of
//       memory: unlock, signal the failure (0, B - 1), return null.
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/ualloc_sync.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

inline constexpr std::uint64_t kUAllocFailed = ~std::uint64_t{0};

enum class UAllocAllocPhase : std::uint8_t {
  wait,
  rcu_epoch,
  rcu_enter,
  rcu_check,
  rcu_undo,  // the read side's entry
  list_head,
  visit,
  decrement,
  next,
  leave_sweep,
  leave,
  bitmap_read,
  bitmap_set,
  unlink_lock,
  unlink,
  unlink_release,  // an exhausted bin
  chunk_lock,
  chunk_pick,
  buddy,
  chunk_add,
  chunk_release,  // a grower's bin
  granted,        // a grower's bin from its group's collective take (ualloc_chunk_group.hpp)
  link_lock,
  link,
  link_release,
  grow_signal,
  fail_release,
  fail_signal,  // TBuddy had no chunk
  done,
};

template <class Atomics>
class UAllocAlloc {
 public:
  ALLOCLAB_HD UAllocAlloc(const UAllocView& v, std::uint32_t k, std::uint32_t arena,
                          std::uint32_t scatter)
      : UAllocAlloc(v, k, arena, scatter, 1) {}
  // A warp's leader (the GPU's warp-aggregated wait, studies/gelado-garland/speed.md):
  // its wait is for `units` units, 1 <= units <= ualloc_most_shared_units(k), its own and those
  // of lanes it then serves (grant_unit). As a grower it keeps `units` of its batch: its bin's
  // slot 0 and units - 1 slots the bin's count still offers to the lanes, so it signals
  // (slots - units, B - units), paying off the B - units it promised; a failed growth withdraws
  // B - units. With units = 1 this is the paper's per-thread wait, unchanged.
  ALLOCLAB_HD UAllocAlloc(const UAllocView& v, std::uint32_t k, std::uint32_t arena,
                          std::uint32_t scatter, std::uint32_t units)
      : k_(k),
        arena_(arena),
        li_(v.list(arena, k)),
        scatter_(scatter),
        wait_(units, ualloc_batch(k)),
        buddy_(v.chunk_order, scatter) {}

  // A lane whose unit its leader's wait took (or grew and delivered): it skips the wait and goes
  // on as a taker, to the read side and the list walk, which finds its slot (the bin's count
  // counts it). Only before the first step.
  ALLOCLAB_HD void grant_unit() {
    if (phase_ != UAllocAllocPhase::wait) return;
    ++stats_.waits_took;
    phase_ = UAllocAllocPhase::rcu_epoch;
  }

  ALLOCLAB_HD UAllocAllocPhase phase() const { return phase_; }
  // The object's byte offset in the pool, or kUAllocFailed (after done).
  ALLOCLAB_HD std::uint64_t result() const { return result_; }
  ALLOCLAB_HD const UAllocStats& stats() const { return stats_; }
  ALLOCLAB_HD const TBuddyStats& buddy_stats() const { return buddy_.stats(); }
  ALLOCLAB_HD bool overflowed() const { return overflow_ || buddy_.overflowed(); }

  ALLOCLAB_HD StepStatus step(const UAllocView& v) {
    UAllocStats& s = stats_;
    switch (phase_) {
      case UAllocAllocPhase::wait: {
        const StepStatus r = wait_.step(v.sems[li_]);
        if (r == StepStatus::spinning) ++s.sem_spins;
        if (r != StepStatus::done) return r;
        count_wait();
        const BulkWaitOutcome o = wait_.result().outcome;
        if (o == BulkWaitOutcome::took) {
          ++s.waits_took;
          phase_ = UAllocAllocPhase::rcu_epoch;
        } else if (o == BulkWaitOutcome::grow) {
          ++s.waits_grew;
          phase_ = UAllocAllocPhase::chunk_lock;
        } else {  // counter_overflow: a configuration the input checks refuse
          overflow_ = true;
          return finish(kUAllocFailed);
        }
        return StepStatus::running;
      }
      case UAllocAllocPhase::rcu_epoch:  // the read side's entry (srcu.hpp)
        reader_.read_epoch(v.srcu(arena_), s);
        phase_ = UAllocAllocPhase::rcu_enter;
        return StepStatus::running;
      case UAllocAllocPhase::rcu_enter:
        reader_.enter(v.srcu(arena_), s);
        phase_ = UAllocAllocPhase::rcu_check;
        return StepStatus::running;
      case UAllocAllocPhase::rcu_check:
        phase_ = reader_.check(v.srcu(arena_), s) ? UAllocAllocPhase::list_head
                                                  : UAllocAllocPhase::rcu_undo;
        return StepStatus::running;
      case UAllocAllocPhase::rcu_undo:
        reader_.leave(v.srcu(arena_), s);
        phase_ = UAllocAllocPhase::rcu_epoch;
        return StepStatus::spinning;
      case UAllocAllocPhase::list_head:
        ++s.memory_ops;
        bin_ = Atomics::load(v.heads[li_]);
        phase_ = bin_ == kNoBin ? UAllocAllocPhase::leave_sweep : UAllocAllocPhase::visit;
        return StepStatus::running;
      case UAllocAllocPhase::visit:
        ++s.memory_ops;
        ++s.list_nodes;
        seen_ = Atomics::load(v.bin_count[bin_]);
        phase_ = bin_count(seen_) > 0 ? UAllocAllocPhase::decrement : UAllocAllocPhase::next;
        return StepStatus::running;
      case UAllocAllocPhase::decrement: {
        ++s.memory_ops;
        const std::uint32_t old = Atomics::cas(v.bin_count[bin_], seen_, seen_ - 1);
        if (old != seen_) {
          ++s.count_cas_failures;
          seen_ = old;
          if (bin_count(old) == 0) phase_ = UAllocAllocPhase::next;
          return StepStatus::spinning;
        }
        exhausted_ = bin_count(seen_) == 1;
        phase_ = UAllocAllocPhase::leave;
        return StepStatus::running;
      }
      case UAllocAllocPhase::next:
        ++s.memory_ops;
        bin_ = Atomics::load(v.bin_next[bin_]);
        phase_ = bin_ == kNoBin ? UAllocAllocPhase::leave_sweep : UAllocAllocPhase::visit;
        return StepStatus::running;
      case UAllocAllocPhase::leave_sweep:
        ++s.sweeps;
        reader_.leave(v.srcu(arena_), s);
        phase_ = UAllocAllocPhase::rcu_epoch;
        return StepStatus::spinning;
      case UAllocAllocPhase::leave:
        reader_.leave(v.srcu(arena_), s);
        // Start at a word of the caller's scatter among those the bin's slots use.
        word_ = scatter_ % ((ualloc_slots(k_, bin_ & (v.bins_per_chunk() - 1)) + 63) / 64);
        phase_ = UAllocAllocPhase::bitmap_read;
        return StepStatus::running;
      case UAllocAllocPhase::bitmap_read: {
        ++s.memory_ops;
        ++s.bitmap_probes;
        const std::uint64_t w = Atomics::load(bitmap(v, word_));
        if (w == ~std::uint64_t{0}) {
          word_ = (word_ + 1) % kUAllocBitmapWords;
          return StepStatus::running;
        }
        bit_ = bits::count_trailing_zeros(~w);
        phase_ = UAllocAllocPhase::bitmap_set;
        return StepStatus::running;
      }
      case UAllocAllocPhase::bitmap_set: {
        ++s.memory_ops;
        const std::uint64_t m = std::uint64_t{1} << bit_;
        if (Atomics::fetch_or(bitmap(v, word_), m) & m) {
          ++s.bit_retries;
          phase_ = UAllocAllocPhase::bitmap_read;
          return StepStatus::spinning;
        }
        const std::uint32_t c = bin_ >> v.chunk_order, b = bin_ & (v.bins_per_chunk() - 1);
        slot_result(v, c, b, word_ * 64 + bit_);
        phase_ = exhausted_ ? UAllocAllocPhase::unlink_lock : UAllocAllocPhase::done;
        return phase_ == UAllocAllocPhase::done ? StepStatus::done : StepStatus::running;
      }
      case UAllocAllocPhase::unlink_lock:
        if (!ualloc_try_lock<Atomics>(v.locks[li_], s)) return StepStatus::spinning;
        phase_ = UAllocAllocPhase::unlink;
        return StepStatus::running;
      case UAllocAllocPhase::unlink:
        ualloc_unlink<Atomics>(v, li_, bin_, kBinListed, 0u, s);  // only if still (0, L)
        phase_ = UAllocAllocPhase::unlink_release;
        return StepStatus::running;
      case UAllocAllocPhase::unlink_release:
        ualloc_unlock<Atomics>(v.locks[li_], s);
        phase_ = UAllocAllocPhase::done;
        return StepStatus::done;
      case UAllocAllocPhase::chunk_lock:
        if (!ualloc_try_lock<Atomics>(v.chunk_locks[arena_], s)) return StepStatus::spinning;
        ++s.chunk_locks;
        phase_ = UAllocAllocPhase::chunk_pick;
        return StepStatus::running;
      case UAllocAllocPhase::chunk_pick:
        bin_ = ualloc_take_bin<Atomics>(v, arena_, s);
        phase_ = bin_ != kNoBin                   ? UAllocAllocPhase::chunk_release
                 : v.chunk_order > v.buddy.height ? UAllocAllocPhase::fail_release  // no chunk fits
                                                  : UAllocAllocPhase::buddy;
        return StepStatus::running;
      case UAllocAllocPhase::buddy: {
        const StepStatus r = buddy_.step(v.buddy);
        if (r != StepStatus::done) return r;
        if (buddy_.node() == 0) {
          phase_ = UAllocAllocPhase::fail_release;
        } else {
          chunk_ = tb_offset(v.buddy.height, buddy_.node()) >> v.chunk_order;
          phase_ = UAllocAllocPhase::chunk_add;
        }
        return StepStatus::running;
      }
      case UAllocAllocPhase::chunk_add:
        ualloc_add_chunk<Atomics>(v, arena_, chunk_, s);
        phase_ = UAllocAllocPhase::chunk_pick;
        return StepStatus::running;
      case UAllocAllocPhase::chunk_release:
        ualloc_unlock<Atomics>(v.chunk_locks[arena_], s);
        init_own_bin(v);
        return StepStatus::running;
      case UAllocAllocPhase::granted:  // the group's leader holds and releases the mutex
        init_own_bin(v);
        return StepStatus::running;
      case UAllocAllocPhase::link_lock:
        if (!ualloc_try_lock<Atomics>(v.locks[li_], s)) return StepStatus::spinning;
        phase_ = UAllocAllocPhase::link;
        return StepStatus::running;
      case UAllocAllocPhase::link:
        ualloc_link<Atomics>(v, li_, bin_, s);
        --s.relinks;  // a new bin, not a relink
        phase_ = UAllocAllocPhase::link_release;
        return StepStatus::running;
      case UAllocAllocPhase::link_release:
        ualloc_unlock<Atomics>(v.locks[li_], s);
        phase_ = UAllocAllocPhase::grow_signal;
        return StepStatus::running;
      case UAllocAllocPhase::grow_signal:
        ++s.memory_ops;
        bulk_signal<Atomics>(v.sems[li_], slots_ - wait_.n(), ualloc_batch(k_) - wait_.n());
        phase_ = UAllocAllocPhase::done;
        return StepStatus::done;
      case UAllocAllocPhase::fail_release:
        ualloc_unlock<Atomics>(v.chunk_locks[arena_], s);
        phase_ = UAllocAllocPhase::fail_signal;
        return StepStatus::running;
      case UAllocAllocPhase::fail_signal:
        ++s.memory_ops;
        ++s.grow_failed;
        bulk_grow_failed<Atomics>(v.sems[li_], wait_.n(), ualloc_batch(k_));
        return finish(kUAllocFailed);
      case UAllocAllocPhase::done:
        break;
    }
    return StepStatus::done;
  }

  // The collective chunk mutex (ualloc_chunk_group.hpp): a grower waiting at chunk_lock that a
  // group served goes on from `bin` (kNoBin: TBuddy had no chunk for it, so it signals the failure
  // as a single grower would, the mutex being the leader's to release). The group's counts
  // (its lock spins, memory operations, chunk refills) go to its leader's request: `group`.
  ALLOCLAB_HD bool waiting_for_chunk() const { return phase_ == UAllocAllocPhase::chunk_lock; }
  ALLOCLAB_HD std::uint32_t arena() const { return arena_; }
  ALLOCLAB_HD std::uint32_t scatter() const { return scatter_; }
  ALLOCLAB_HD void grant_bin(std::uint32_t bin, const UAllocStats* group) {
    if (group != nullptr) {
      stats_.memory_ops += group->memory_ops;
      stats_.lock_spins += group->lock_spins;
      stats_.chunk_refills += group->chunk_refills;
      stats_.chunk_locks += group->chunk_locks;
    }
    bin_ = bin;
    phase_ = bin == kNoBin ? UAllocAllocPhase::fail_signal : UAllocAllocPhase::granted;
  }

  // Stops the alloc where that leaves nothing half done (the caller's step bound): in its wait
  // (the reservation dropped), or holding a unit before its decrement (it leaves the read side
  // if inside, one atomic, and signals the unit back, one more). The request fails. False
  // otherwise: it holds a slot, a mutex or a growth, and finishes first (ask again later).
  ALLOCLAB_HD bool give_up(const UAllocView& v) {
    switch (phase_) {
      case UAllocAllocPhase::wait:
        wait_.abandon(v.sems[li_]);
        count_wait();
        break;
      case UAllocAllocPhase::rcu_check:
      case UAllocAllocPhase::rcu_undo:
      case UAllocAllocPhase::list_head:
      case UAllocAllocPhase::visit:
      case UAllocAllocPhase::decrement:
      case UAllocAllocPhase::next:
      case UAllocAllocPhase::leave_sweep:
        Atomics::fetch_add(reader_.counter(v.srcu(arena_)), ~0u);
        [[fallthrough]];
      case UAllocAllocPhase::rcu_epoch:
      case UAllocAllocPhase::rcu_enter:
        bulk_signal<Atomics>(v.sems[li_], 1, 0);
        break;
      default:
        return false;
    }
    ++stats_.gave_up;
    finish(kUAllocFailed);
    return true;
  }

 private:
  ALLOCLAB_HD std::uint64_t& bitmap(const UAllocView& v, std::uint32_t w) const {
    return v.bin_bitmap[std::uint64_t{bin_} * kUAllocBitmapWords + w];
  }
  // A grower's bin, private until linked: its header and slot 0 (the grower's).
  ALLOCLAB_HD void init_own_bin(const UAllocView& v) {
    slots_ = ualloc_init_bin<Atomics>(v, arena_, bin_, k_, stats_);
    const std::uint32_t c = bin_ >> v.chunk_order, b = bin_ & (v.bins_per_chunk() - 1);
    slot_result(v, c, b, 0);
    phase_ = UAllocAllocPhase::link_lock;
  }
  ALLOCLAB_HD void slot_result(const UAllocView& v, std::uint32_t c, std::uint32_t b,
                               std::uint32_t j) {
    result_ = c * v.chunk_bytes() + ualloc_slot_offset(k_, b, j);
  }
  ALLOCLAB_HD void count_wait() {
    stats_.reserves += wait_.result().reserves;
    stats_.sem_cas_failures += wait_.result().cas_failures;
  }
  ALLOCLAB_HD StepStatus finish(std::uint64_t r) {
    result_ = r;
    phase_ = UAllocAllocPhase::done;
    return StepStatus::done;
  }

  std::uint32_t k_, arena_, li_, scatter_;
  UAllocAllocPhase phase_ = UAllocAllocPhase::wait;
  BulkWait<Atomics> wait_;
  TBuddyAlloc<Atomics> buddy_;
  SrcuReader<Atomics> reader_;
  std::uint32_t bin_ = kNoBin, seen_ = 0, word_ = 0, bit_ = 0, slots_ = 0;
  std::uint32_t chunk_ = 0;
  bool exhausted_ = false, overflow_ = false;
  std::uint64_t result_ = kUAllocFailed;
  UAllocStats stats_;
};

}  // namespace alloclab::gelado
