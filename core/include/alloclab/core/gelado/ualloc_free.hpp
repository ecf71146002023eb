// UAlloc's free (Gelado & Garland, PPoPP'19 §4.2, §4.2.1) as a step machine over UAllocView,
// with the SRCU barrier and its conditional form (delegation).
//
// free(p): the bin from p's address (ualloc_place), its class and arena from its header; clear
// p's bit (a bit already clear is a double free); add one to the bin's count word by CAS, and
//   - the count was 0 and the bin off its list: that CAS also sets P, and this free links the bin
//     ("inserts a bin back into the free-list if the bin was exhausted") under the list's mutex;
//   - then signal(1, 0) on the class's semaphore: the slot is findable before it is counted;
//   - the count reached the bin's slots (every slot free) with the bin listed and nothing
//     pending: retire the bin ("removes it from the free-list when freeing the last memory
//     block"): try-wait(slots) takes its units back from the semaphore (empty: the bin stays);
//     under the list's mutex CAS its word (slots, L) -> 0 and unlink it (a taker got there first:
//     the units go back, the bin stays); push the bin on the arena's callback stack, then run a
//     conditional RCU barrier. The callback gives the bin back to its chunk, once no reader can
//     still stand on it, so that another class can take it.
//
// The barrier is arena a's SRCU barrier in its conditional form (srcu.hpp, §4.2.1: a barrier
// already waiting to flip runs this bin's callback: delegation); the callbacks it hands over
// give bins back to their chunk under the arena's chunk mutex.
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/srcu.hpp"
#include "alloclab/core/gelado/ualloc_sync.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

enum class UAllocFreeOutcome : std::uint8_t { pending, freed, double_free, bad_pointer };

enum class UAllocFreePhase : std::uint8_t {
  read_class,
  read_arena,
  clear_bit,
  count_read,
  count_add,
  link_lock,
  link,
  link_release,
  signal,
  retire_wait,
  retire_lock,
  retire_unlink,
  retire_release,
  retire_giveback,
  cb_push,  // push the bin on the callback stack (SrcuPush)
  barrier,  // a step of the conditional barrier (SrcuBarrier)
  cb_lock,  // the barrier's callbacks: each bin back to its chunk
  cb_reclaim,
  cb_unlock,
  done,
};

template <class Atomics>
class UAllocFree {
 public:
  // `offset`: the object's byte offset in the pool, as UAllocAlloc returned it.
  ALLOCLAB_HD UAllocFree(const UAllocView& v, std::uint64_t offset) {
    const std::uint64_t in_chunk = offset % v.chunk_bytes();
    chunk_ = static_cast<std::uint32_t>(offset / v.chunk_bytes());
    if (in_chunk % kUAllocBinBytes < kUAllocHeaderBytes) {  // a header, or TBuddy's memory
      outcome_ = UAllocFreeOutcome::bad_pointer;
      phase_ = UAllocFreePhase::done;
      return;
    }
    place_ = ualloc_place(static_cast<std::uint32_t>(in_chunk));
    bin_ = (chunk_ << v.chunk_order) + place_.bin;
  }

  ALLOCLAB_HD UAllocFreePhase phase() const { return phase_; }
  ALLOCLAB_HD UAllocFreeOutcome outcome() const { return outcome_; }
  ALLOCLAB_HD const UAllocStats& stats() const { return stats_; }
  ALLOCLAB_HD std::uint32_t bin() const { return bin_; }
  ALLOCLAB_HD SrcuBarrierPhase barrier_phase() const { return barrier_.phase(); }

  ALLOCLAB_HD StepStatus step(const UAllocView& v) {
    UAllocStats& s = stats_;
    switch (phase_) {
      case UAllocFreePhase::read_class:
        ++s.memory_ops;
        k_ = Atomics::load(v.bin_class[bin_]);
        slot_ = k_ < kUAllocClasses ? ualloc_slot_of(place_, k_) : kUAllocMaxSlots;
        if (slot_ >= ualloc_slots(k_ < kUAllocClasses ? k_ : 0, place_.bin))
          return finish(UAllocFreeOutcome::bad_pointer);
        phase_ = UAllocFreePhase::read_arena;
        return StepStatus::running;
      case UAllocFreePhase::read_arena:
        ++s.memory_ops;
        arena_ = Atomics::load(v.bin_arena[bin_]);
        li_ = v.list(arena_, k_);
        phase_ = UAllocFreePhase::clear_bit;
        return StepStatus::running;
      case UAllocFreePhase::clear_bit: {
        ++s.memory_ops;
        const std::uint64_t m = std::uint64_t{1} << (slot_ % 64);
        const std::uint64_t old = Atomics::fetch_and(
            v.bin_bitmap[std::uint64_t{bin_} * kUAllocBitmapWords + slot_ / 64], ~m);
        if (!(old & m)) return finish(UAllocFreeOutcome::double_free);
        phase_ = UAllocFreePhase::count_read;
        return StepStatus::running;
      }
      case UAllocFreePhase::count_read:
        ++s.memory_ops;
        seen_ = Atomics::load(v.bin_count[bin_]);
        phase_ = UAllocFreePhase::count_add;
        return StepStatus::running;
      case UAllocFreePhase::count_add: {
        ++s.memory_ops;
        const bool link = bin_count(seen_) == 0 && !(seen_ & (kBinListed | kBinPending));
        const std::uint32_t next = (seen_ + 1) | (link ? kBinPending : 0u);
        const std::uint32_t old = Atomics::cas(v.bin_count[bin_], seen_, next);
        if (old != seen_) {
          ++s.count_cas_failures;
          seen_ = old;
          return StepStatus::spinning;
        }
        slots_ = ualloc_slots(k_, place_.bin);
        retire_ =
            !link && bin_count(next) == slots_ && (next & (kBinListed | kBinPending)) == kBinListed;
        phase_ = link ? UAllocFreePhase::link_lock : UAllocFreePhase::signal;
        return StepStatus::running;
      }
      case UAllocFreePhase::link_lock:
        if (!ualloc_try_lock<Atomics>(v.locks[li_], s)) return StepStatus::spinning;
        phase_ = UAllocFreePhase::link;
        return StepStatus::running;
      case UAllocFreePhase::link:
        ualloc_link<Atomics>(v, li_, bin_, s);
        phase_ = UAllocFreePhase::link_release;
        return StepStatus::running;
      case UAllocFreePhase::link_release:
        ualloc_unlock<Atomics>(v.locks[li_], s);
        phase_ = UAllocFreePhase::signal;
        return StepStatus::running;
      case UAllocFreePhase::signal:
        ++s.memory_ops;
        bulk_signal<Atomics>(v.sems[li_], 1, 0);
        if (!retire_) return finish(UAllocFreeOutcome::freed);
        try_wait_ = BulkTryWait<Atomics>(slots_);
        phase_ = UAllocFreePhase::retire_wait;
        return StepStatus::running;
      case UAllocFreePhase::retire_wait: {
        const StepStatus r = try_wait_.step(v.sems[li_]);
        ++s.memory_ops;
        if (r != StepStatus::done) return r;
        if (try_wait_.outcome() != TryWaitOutcome::took) {
          ++s.retire_failures;  // the units are spoken for: the bin stays on its list
          return finish(UAllocFreeOutcome::freed);
        }
        phase_ = UAllocFreePhase::retire_lock;
        return StepStatus::running;
      }
      case UAllocFreePhase::retire_lock:
        if (!ualloc_try_lock<Atomics>(v.locks[li_], s)) return StepStatus::spinning;
        phase_ = UAllocFreePhase::retire_unlink;
        return StepStatus::running;
      case UAllocFreePhase::retire_unlink:
        retired_ = ualloc_unlink<Atomics>(v, li_, bin_, slots_ | kBinListed, 0u, s);
        phase_ = UAllocFreePhase::retire_release;
        return StepStatus::running;
      case UAllocFreePhase::retire_release:
        ualloc_unlock<Atomics>(v.locks[li_], s);
        if (retired_) ++s.retires;
        phase_ = retired_ ? UAllocFreePhase::cb_push : UAllocFreePhase::retire_giveback;
        return StepStatus::running;
      case UAllocFreePhase::retire_giveback:  // a taker decremented first: the units go back
        ++s.memory_ops;
        ++s.retire_failures;
        bulk_signal<Atomics>(v.sems[li_], slots_, 0);
        return finish(UAllocFreeOutcome::freed);
      case UAllocFreePhase::cb_push: {
        const StepStatus r = push_.step(v.srcu(arena_), bin_, s);
        if (r == StepStatus::done) phase_ = UAllocFreePhase::barrier;
        return r == StepStatus::done ? StepStatus::running : r;
      }
      case UAllocFreePhase::barrier: {
        const StepStatus r = barrier_.step(v.srcu(arena_), s);
        if (r == StepStatus::done) return finish(UAllocFreeOutcome::freed);
        if (barrier_.phase() == SrcuBarrierPhase::callback) phase_ = UAllocFreePhase::cb_lock;
        return r;
      }
      case UAllocFreePhase::cb_lock:
        if (!ualloc_try_lock<Atomics>(v.chunk_locks[arena_], s)) return StepStatus::spinning;
        phase_ = UAllocFreePhase::cb_reclaim;
        return StepStatus::running;
      case UAllocFreePhase::cb_reclaim:
        ualloc_reclaim<Atomics>(v, arena_, barrier_.callback_node(), s);
        phase_ = UAllocFreePhase::cb_unlock;
        return StepStatus::running;
      case UAllocFreePhase::cb_unlock:
        ualloc_unlock<Atomics>(v.chunk_locks[arena_], s);
        barrier_.callback_done();
        phase_ = UAllocFreePhase::barrier;
        return StepStatus::running;
      case UAllocFreePhase::done:
        break;
    }
    return StepStatus::done;
  }

 private:
  ALLOCLAB_HD StepStatus finish(UAllocFreeOutcome o) {
    outcome_ = o;
    phase_ = UAllocFreePhase::done;
    return StepStatus::done;
  }

  std::uint32_t chunk_ = 0, bin_ = 0, k_ = 0, slot_ = 0, arena_ = 0, li_ = 0, seen_ = 0, slots_ = 0;
  UAllocPlace place_;
  bool retire_ = false, retired_ = false;
  BulkTryWait<Atomics> try_wait_;
  SrcuPush<Atomics> push_;
  SrcuBarrier<Atomics> barrier_{true};
  UAllocFreeOutcome outcome_ = UAllocFreeOutcome::pending;
  UAllocFreePhase phase_ = UAllocFreePhase::read_class;
  UAllocStats stats_;
};

}  // namespace alloclab::gelado
