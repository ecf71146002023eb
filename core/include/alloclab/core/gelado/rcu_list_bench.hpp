// Figure 6's benchmark (Gelado & Garland, PPoPP'19 §5.2): "removes those elements in a double
// linked-list whose tag matches values in an input vector. Each GPU thread traverses the list
// searching for one input tag, and uses RCU to enable concurrent traversals and removals". The
// input vector holds every tag of the list, so the W list elements make W writers and the other
// T - W threads are readers that walk the whole list. One thread of it as a step machine (one
// memory operation per step through the atomics policy; a critical section under the held list
// mutex is one step), which the simulator's lockstep and sequential modes and the GPU kernel run.
// The SRCU is srcu.hpp's, UAlloc's own: the conditional barrier (delegation) or the plain one.
//
// A thread with tag t: enter the read side (SrcuReader); load the head, then visit node after
// node (one 64-bit load: the tag and the next link, so what a reader sees of a node is one
// snapshot); leave the read side at the end of the list (a reader) or at its tag (a writer).
// A writer then takes the list mutex (writers "execute serially through a separate
// synchronization mechanism, e.g., a mutex"), unlinks its node from both directions (the node
// keeps its own next link, so a reader standing on it walks on), releases the mutex, pushes the
// node on the callback stack and runs the barrier: plain, or conditional (it may return at once,
// leaving its callback to the waiting barrier). A callback frees a node: it sets the node's
// freed bit. A reader that loads a node with the freed bit set saw a freed node (counted; RCU
// must make it 0), a callback that finds the bit set freed a node twice (counted).
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/srcu.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

// A node's word: bit 63 freed, bits 32..62 its tag, bits 0..31 its next node (kSrcuNone: last).
inline constexpr std::uint64_t kRcuListFreed = std::uint64_t{1} << 63;
inline constexpr std::uint32_t kRcuListMaxTag = 0x7fffffffu;
ALLOCLAB_HD constexpr std::uint64_t rcu_list_word(std::uint32_t tag, std::uint32_t next) {
  return (std::uint64_t{tag} << 32) | next;
}
ALLOCLAB_HD constexpr std::uint32_t rcu_list_tag(std::uint64_t w) {
  return static_cast<std::uint32_t>(w >> 32) & kRcuListMaxTag;
}
ALLOCLAB_HD constexpr std::uint32_t rcu_list_next(std::uint64_t w) {
  return static_cast<std::uint32_t>(w);
}

struct RcuListView {
  std::uint32_t* head = nullptr;   // the first node (kSrcuNone: empty)
  std::uint32_t* tail = nullptr;   // the last node
  std::uint32_t* mutex = nullptr;  // the writers' mutex: 0 free, 1 held
  std::uint64_t* node = nullptr;   // per node: freed | tag | next
  std::uint32_t* prev = nullptr;   // per node: the previous node (written under the mutex)
  SrcuDomain srcu;                 // its `next`: per node, the callback stack's link
};

// The counts of one thread (field names as srcu.hpp's Stats wants them).
struct RcuListStats {
  std::uint64_t steps = 0;          // steps taken
  std::uint64_t memory_ops = 0;     // loads and atomics
  std::uint64_t nodes_visited = 0;  // node words loaded by the walk
  std::uint64_t rcu_retries = 0;    // read-side entries undone because the epoch moved
  std::uint64_t lock_spins = 0;     // list-mutex attempts that found it held
  std::uint64_t push_retries = 0;   // callback pushes whose CAS lost
  std::uint64_t barriers = 0;       // full barriers run (epoch flipped, readers drained)
  std::uint64_t delegations = 0;    // conditional barriers that returned at once
  std::uint64_t barrier_spins = 0;  // a barrier's waits: the mutex, the holder, the readers
  std::uint64_t barrier_steps = 0;  // steps from the barrier's first to its return (callbacks in)
  std::uint64_t callbacks = 0;      // nodes this thread freed for the barrier it ran
  std::uint64_t saw_freed = 0;      // node words loaded with the freed bit: must stay 0
  std::uint64_t double_frees = 0;   // a callback found its node freed already: must stay 0
};

enum class RcuListRole : std::uint8_t { pending, reader, writer, gave_up };

enum class RcuListPhase : std::uint8_t {
  rcu_epoch,
  rcu_enter,
  rcu_check,
  rcu_undo,  // the read side's entry
  head,      // load the first node
  visit,     // load a node's word
  leave,     // readers[e] -= 1: the walk is over
  lock,      // a writer: the list mutex
  unlink,    // the critical section: the node out of both directions
  unlock,
  push,      // the node on the callback stack
  barrier,   // a step of the barrier
  callback,  // free the barrier's current callback node
  done,
};

template <class Atomics>
class RcuListThread {
 public:
  ALLOCLAB_HD RcuListThread(std::uint32_t tag, bool conditional)
      : tag_(tag), barrier_(conditional) {}

  ALLOCLAB_HD RcuListPhase phase() const { return phase_; }
  ALLOCLAB_HD RcuListRole role() const { return role_; }
  ALLOCLAB_HD const RcuListStats& stats() const { return s_; }
  ALLOCLAB_HD std::uint32_t tag() const { return tag_; }
  ALLOCLAB_HD SrcuBarrierPhase barrier_phase() const { return barrier_.phase(); }

  ALLOCLAB_HD StepStatus step(const RcuListView& v) {
    if (phase_ == RcuListPhase::done) return StepStatus::done;
    ++s_.steps;
    if (phase_ == RcuListPhase::barrier || phase_ == RcuListPhase::callback) ++s_.barrier_steps;
    switch (phase_) {
      case RcuListPhase::rcu_epoch:
        reader_.read_epoch(v.srcu, s_);
        phase_ = RcuListPhase::rcu_enter;
        return StepStatus::running;
      case RcuListPhase::rcu_enter:
        reader_.enter(v.srcu, s_);
        phase_ = RcuListPhase::rcu_check;
        return StepStatus::running;
      case RcuListPhase::rcu_check:
        phase_ = reader_.check(v.srcu, s_) ? RcuListPhase::head : RcuListPhase::rcu_undo;
        return StepStatus::running;
      case RcuListPhase::rcu_undo:
        reader_.leave(v.srcu, s_);
        phase_ = RcuListPhase::rcu_epoch;
        return StepStatus::spinning;
      case RcuListPhase::head:
        ++s_.memory_ops;
        at_ = Atomics::load(*v.head);
        phase_ = at_ == kSrcuNone ? RcuListPhase::leave : RcuListPhase::visit;
        return StepStatus::running;
      case RcuListPhase::visit: {
        ++s_.memory_ops;
        ++s_.nodes_visited;
        const std::uint64_t w = Atomics::load(v.node[at_]);
        if (w & kRcuListFreed) ++s_.saw_freed;
        if (rcu_list_tag(w) == tag_) {
          found_ = true;
          phase_ = RcuListPhase::leave;
        } else {
          at_ = rcu_list_next(w);
          if (at_ == kSrcuNone) phase_ = RcuListPhase::leave;
        }
        return StepStatus::running;
      }
      case RcuListPhase::leave:
        reader_.leave(v.srcu, s_);
        if (!found_) return finish(RcuListRole::reader);
        phase_ = RcuListPhase::lock;
        return StepStatus::running;
      case RcuListPhase::lock:
        ++s_.memory_ops;
        if (Atomics::cas(*v.mutex, 0u, 1u) != 0u) {
          ++s_.lock_spins;
          return StepStatus::spinning;
        }
        phase_ = RcuListPhase::unlink;
        return StepStatus::running;
      case RcuListPhase::unlink:
        unlink(v);
        phase_ = RcuListPhase::unlock;
        return StepStatus::running;
      case RcuListPhase::unlock:
        ++s_.memory_ops;
        Atomics::exchange(*v.mutex, 0u);
        phase_ = RcuListPhase::push;
        return StepStatus::running;
      case RcuListPhase::push: {
        const StepStatus r = push_.step(v.srcu, at_, s_);
        if (r == StepStatus::spinning) ++s_.push_retries;
        if (r != StepStatus::done) return r;
        phase_ = RcuListPhase::barrier;
        return StepStatus::running;
      }
      case RcuListPhase::barrier: {
        const StepStatus r = barrier_.step(v.srcu, s_);
        if (r == StepStatus::done) return finish(RcuListRole::writer);
        if (barrier_.phase() == SrcuBarrierPhase::callback) phase_ = RcuListPhase::callback;
        return r;
      }
      case RcuListPhase::callback: {  // free the node: no reader can stand on it any more
        ++s_.memory_ops;
        ++s_.callbacks;
        const std::uint64_t old =
            Atomics::fetch_or(v.node[barrier_.callback_node()], kRcuListFreed);
        if (old & kRcuListFreed) ++s_.double_frees;
        barrier_.callback_done();
        phase_ = RcuListPhase::barrier;
        return StepStatus::running;
      }
      case RcuListPhase::done:
        break;
    }
    return StepStatus::done;
  }

  // Stops the thread at the caller's step bound where that leaves nothing half done: before or
  // inside the read side (it leaves: one atomic), spinning on the list mutex (its node stays
  // linked), or before its barrier took or queued for the barrier mutex (its node stays on the
  // stack unless a later barrier takes it); the verification reports each. False elsewhere: a
  // waiter's and a holder's waits end when the holder and the readers they wait for end, and
  // those are bounded.
  ALLOCLAB_HD bool give_up(const RcuListView& v) {
    if (phase_ == RcuListPhase::barrier &&
        (barrier_.phase() == SrcuBarrierPhase::read || barrier_.phase() == SrcuBarrierPhase::cas)) {
      finish(RcuListRole::gave_up);
      return true;
    }
    switch (phase_) {
      case RcuListPhase::rcu_check:
      case RcuListPhase::rcu_undo:
      case RcuListPhase::head:
      case RcuListPhase::visit:
      case RcuListPhase::leave:
        Atomics::fetch_add(reader_.counter(v.srcu), ~0u);
        [[fallthrough]];
      case RcuListPhase::rcu_epoch:
      case RcuListPhase::rcu_enter:
      case RcuListPhase::lock:
        finish(RcuListRole::gave_up);
        return true;
      default:
        return false;
    }
  }

 private:
  // Under the mutex, one step: prev and next as the serialised writers left them.
  ALLOCLAB_HD void unlink(const RcuListView& v) {
    const std::uint32_t p = Atomics::load(v.prev[at_]);
    const std::uint32_t q = rcu_list_next(Atomics::load(v.node[at_]));
    s_.memory_ops += 4;
    if (p == kSrcuNone) {
      Atomics::exchange(*v.head, q);
    } else {  // p is linked, so nobody frees it meanwhile; its tag stays
      const std::uint64_t pw = Atomics::load(v.node[p]);
      Atomics::exchange(v.node[p], (pw & ~std::uint64_t{0xffffffffu}) | q);
      ++s_.memory_ops;
    }
    if (q == kSrcuNone)
      Atomics::exchange(*v.tail, p);
    else
      Atomics::exchange(v.prev[q], p);
  }
  ALLOCLAB_HD StepStatus finish(RcuListRole r) {
    role_ = r;
    phase_ = RcuListPhase::done;
    return StepStatus::done;
  }

  std::uint32_t tag_, at_ = kSrcuNone;
  bool found_ = false;
  RcuListPhase phase_ = RcuListPhase::rcu_epoch;
  RcuListRole role_ = RcuListRole::pending;
  SrcuReader<Atomics> reader_;
  SrcuPush<Atomics> push_;
  SrcuBarrier<Atomics> barrier_;
  RcuListStats s_;
};

}  // namespace alloclab::gelado
