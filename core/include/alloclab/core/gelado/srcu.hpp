// SRCU with the conditional barrier (Gelado & Garland, PPoPP'19 §4.2.1, Fig. 4) as single steps
// over plain words through `Atomics`, shared by UAlloc (ualloc_alloc.hpp, ualloc_free.hpp) and
// Figure 6's list benchmark (rcu_list_bench.hpp), on the simulator and the GPU.
//
// One domain: an epoch counter, a pair of reader counters (readers[e & 1] counts the readers
// that entered in epoch e), a state word (bit 0: the barrier mutex is held; bit 1: a barrier
// waits to take it over) and a callback stack (nodes whose release waits for a barrier; each
// node's link in the caller's `next` array).
//
// Read side (SrcuReader): read the epoch e, readers[e & 1] += 1, read the epoch again (moved:
// undo and retry, so a barrier that flipped has either counted this reader or does not wait for
// it); leave: readers[e & 1] -= 1.
//
// Barrier (SrcuBarrier): take the mutex, take the callback stack, increment the epoch, wait until
// the previous epoch's reader count is 0, hand the callbacks one by one to the caller (it runs
// them in its own steps, then callback_done()), release. The stack is taken before the flip, so
// every node on it was unlinked before any reader the barrier does not wait for entered.
// Conditional (the paper's delegation): "returns immediately when another RCU barrier is waiting
// to increment the epoch counter" (bit 1 set). That waiter takes the stack after this thread
// pushed its node, so it runs this node's callback. Otherwise this thread becomes the waiter
// (the mutex is held: it sets bit 1, spins until bit 0 clears, then takes over) or the holder.
// Plain (classical SRCU, Figure 6's baseline): never returns early; it spins on the mutex until
// it takes it (bit 1 is never set), so every writer runs a full barrier of its own.
//
// `Stats` is the caller's count struct; it needs memory_ops, rcu_retries, barriers, delegations
// and barrier_spins (UAllocStats, RcuListStats).
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

inline constexpr std::uint32_t kRcuHeld = 1u;
inline constexpr std::uint32_t kRcuWaiter = 2u;
inline constexpr std::uint32_t kSrcuNone = 0xffffffffu;  // an empty callback stack, its end

struct SrcuDomain {
  std::uint32_t* epoch = nullptr;
  std::uint32_t* readers = nullptr;    // 2
  std::uint32_t* state = nullptr;      // kRcuHeld | kRcuWaiter
  std::uint32_t* callbacks = nullptr;  // the stack's top node, kSrcuNone: empty
  std::uint32_t* next = nullptr;       // per node: its link in the stack
};

// The one order release/acquire does not give: a store, then a load of another word, seen in that
// order by a thread doing the mirror image (Dekker's pattern). Both sides of SRCU need it: a
// reader's increment before its epoch check, the barrier's flip before its reader count; with it,
// a reader that missed the flip is counted by the barrier, or sees the new epoch and retries.
// Calls Atomics::fence_sc() where the policy has one (the GPU's acquire/release policy,
// gpu/src/gg_atomics.cuh); a no-op for policies whose atomics are sequentially consistent already
// (the host's std::atomic) or that fence around every read-modify-write. Not a memory operation:
// the step machines' counts and steps are unchanged.
template <class Atomics>
ALLOCLAB_HD void srcu_fence_sc() {
  if constexpr (requires { Atomics::fence_sc(); }) Atomics::fence_sc();
}

template <class Atomics>
struct SrcuReader {
  std::uint32_t epoch = 0;

  ALLOCLAB_HD std::uint32_t& counter(const SrcuDomain& d) const { return d.readers[epoch & 1u]; }
  template <class Stats>
  ALLOCLAB_HD void read_epoch(const SrcuDomain& d, Stats& s) {
    ++s.memory_ops;
    epoch = Atomics::load(*d.epoch);
  }
  template <class Stats>
  ALLOCLAB_HD void enter(const SrcuDomain& d, Stats& s) {
    ++s.memory_ops;
    Atomics::fetch_add(counter(d), 1u);
  }
  // True: inside. False: the epoch moved since read_epoch; the caller undoes (leave) and retries.
  template <class Stats>
  ALLOCLAB_HD bool check(const SrcuDomain& d, Stats& s) {
    ++s.memory_ops;
    srcu_fence_sc<Atomics>();  // the increment (enter) before this read
    if (Atomics::load(*d.epoch) == epoch) return true;
    ++s.rcu_retries;
    return false;
  }
  template <class Stats>
  ALLOCLAB_HD void leave(const SrcuDomain& d, Stats& s) {
    ++s.memory_ops;
    Atomics::fetch_add(counter(d), ~0u);
  }
};

// Push node n on the domain's callback stack, one step at a time: read the top, link n to it,
// CAS the top (a lost CAS links again).
template <class Atomics>
struct SrcuPush {
  std::uint32_t top = kSrcuNone;
  bool linked = false, read = false;

  // done: pushed; spinning: the CAS lost; running: more steps.
  template <class Stats>
  ALLOCLAB_HD StepStatus step(const SrcuDomain& d, std::uint32_t n, Stats& s) {
    ++s.memory_ops;
    if (!read) {
      top = Atomics::load(*d.callbacks);
      read = true;
      return StepStatus::running;
    }
    if (!linked) {
      Atomics::exchange(d.next[n], top);
      linked = true;
      return StepStatus::running;
    }
    const std::uint32_t old = Atomics::cas(*d.callbacks, top, n);
    if (old == top) return StepStatus::done;
    top = old;
    linked = false;
    return StepStatus::spinning;
  }
};

enum class SrcuBarrierPhase : std::uint8_t {
  read,      // load the state word
  cas,       // take the mutex, or (conditional) become the waiter
  waiting,   // the waiter: until the holder releases
  takeover,  // the waiter becomes the holder
  grab,      // take the callback stack
  flip,      // increment the epoch
  drain,     // until the previous epoch's readers are 0
  cb_next,   // read the current callback's successor
  callback,  // the caller runs callback_node()'s release, then callback_done()
  release,
  done,
};

template <class Atomics>
class SrcuBarrier {
 public:
  ALLOCLAB_HD explicit SrcuBarrier(bool conditional = true) : conditional_(conditional) {}

  ALLOCLAB_HD SrcuBarrierPhase phase() const { return phase_; }
  ALLOCLAB_HD bool delegated() const { return delegated_; }
  ALLOCLAB_HD std::uint32_t callback_node() const { return cb_; }
  // The caller ran callback_node()'s release (its own steps): on to the next one, or release.
  ALLOCLAB_HD void callback_done() {
    cb_ = cb_after_;
    phase_ = cb_ == kSrcuNone ? SrcuBarrierPhase::release : SrcuBarrierPhase::cb_next;
  }

  // One step; not to be called in phase callback (the caller's turn).
  template <class Stats>
  ALLOCLAB_HD StepStatus step(const SrcuDomain& d, Stats& s) {
    switch (phase_) {
      case SrcuBarrierPhase::read:
        ++s.memory_ops;
        state_ = Atomics::load(*d.state);
        return decide(s);
      case SrcuBarrierPhase::cas: {
        ++s.memory_ops;
        const std::uint32_t want = state_ | (state_ & kRcuHeld ? kRcuWaiter : kRcuHeld);
        const std::uint32_t old = Atomics::cas(*d.state, state_, want);
        if (old != state_) {
          state_ = old;
          const StepStatus r = decide(s);
          return r == StepStatus::done ? r : StepStatus::spinning;
        }
        phase_ = (state_ & kRcuHeld) ? SrcuBarrierPhase::waiting : SrcuBarrierPhase::grab;
        return StepStatus::running;
      }
      case SrcuBarrierPhase::waiting:
        ++s.memory_ops;
        if (Atomics::load(*d.state) & kRcuHeld) {
          ++s.barrier_spins;
          return StepStatus::spinning;
        }
        phase_ = SrcuBarrierPhase::takeover;
        return StepStatus::running;
      case SrcuBarrierPhase::takeover:  // nobody else changes the word while bit 1 is ours
        ++s.memory_ops;
        Atomics::cas(*d.state, kRcuWaiter, kRcuHeld);
        phase_ = SrcuBarrierPhase::grab;
        return StepStatus::running;
      case SrcuBarrierPhase::grab:
        ++s.memory_ops;
        cb_ = Atomics::exchange(*d.callbacks, kSrcuNone);
        phase_ = SrcuBarrierPhase::flip;
        return StepStatus::running;
      case SrcuBarrierPhase::flip:
        ++s.memory_ops;
        drain_ = Atomics::fetch_add(*d.epoch, 1u) & 1u;
        phase_ = SrcuBarrierPhase::drain;
        return StepStatus::running;
      case SrcuBarrierPhase::drain:
        ++s.memory_ops;
        srcu_fence_sc<Atomics>();  // the flip before this read
        if (Atomics::load(d.readers[drain_]) != 0) {
          ++s.barrier_spins;
          return StepStatus::spinning;
        }
        ++s.barriers;
        phase_ = cb_ == kSrcuNone ? SrcuBarrierPhase::release : SrcuBarrierPhase::cb_next;
        return StepStatus::running;
      case SrcuBarrierPhase::cb_next:
        ++s.memory_ops;
        cb_after_ = Atomics::load(d.next[cb_]);
        phase_ = SrcuBarrierPhase::callback;
        return StepStatus::running;
      case SrcuBarrierPhase::release:
        ++s.memory_ops;
        Atomics::fetch_and(*d.state, ~kRcuHeld);
        phase_ = SrcuBarrierPhase::done;
        return StepStatus::done;
      case SrcuBarrierPhase::callback:
        return StepStatus::running;  // the caller's turn (callback_done)
      case SrcuBarrierPhase::done:
        break;
    }
    return StepStatus::done;
  }

 private:
  // The barrier's decision on the state word last seen.
  template <class Stats>
  ALLOCLAB_HD StepStatus decide(Stats& s) {
    if (conditional_ && (state_ & kRcuWaiter)) {  // a barrier waits to flip: it runs our callback
      ++s.delegations;
      delegated_ = true;
      phase_ = SrcuBarrierPhase::done;
      return StepStatus::done;
    }
    if (!conditional_ && (state_ & kRcuHeld)) {  // plain: wait for the mutex itself
      ++s.barrier_spins;
      phase_ = SrcuBarrierPhase::read;
      return StepStatus::spinning;
    }
    phase_ = SrcuBarrierPhase::cas;  // take the mutex, or become the waiter
    return StepStatus::running;
  }

  bool conditional_ = true, delegated_ = false;
  SrcuBarrierPhase phase_ = SrcuBarrierPhase::read;
  std::uint32_t state_ = 0, cb_ = kSrcuNone, cb_after_ = kSrcuNone, drain_ = 0;
};

}  // namespace alloclab::gelado
