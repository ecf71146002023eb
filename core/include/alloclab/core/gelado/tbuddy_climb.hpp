// TBuddy's node locks and its upward propagation with lock coupling (Gelado & Garland, PPoPP'19
// §4.1): "we lock the node and its parent before performing any state transition. Notice that if
// we need to update the grandparent node, we only need to hold the lock for the parent and the
// grandparent node." Step machines, one memory operation per step through `Atomics`, as the
// semaphores (bulk_semaphore.hpp); a lock that is held is a step reporting spinning.
//
// Lock order: a thread takes a node's lock before its parent's and climbs upwards only, so no
// two threads wait on each other's locks in a cycle. The one wait with locks held, a merger that
// waits for a unit of its order while its buddy is Available (tbuddy.hpp), waits only on threads
// that need neither of its two locks (studies/gelado-garland/, "Why the merger's wait ends").
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/tbuddy_tree.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

// Per operation (an alloc or a free), what it did.
struct TBuddyStats {
  std::uint32_t memory_ops = 0;     // loads and atomics on nodes (the semaphores' are their own)
  std::uint32_t nodes_visited = 0;  // node reads of the search for an Available node
  std::uint32_t sweeps = 0;         // searches that went round the tree and found nothing
  std::uint32_t cas_failures = 0;   // claims and merges whose CAS found the node changed
  std::uint32_t lock_spins = 0;     // lock attempts that found the lock held or lost the CAS
  std::uint32_t locks_held = 0;     // node locks held now
  std::uint32_t max_locks_held = 0;
  std::uint32_t propagations = 0;  // ancestors whose state the climb changed
  std::uint32_t splits = 0;        // blocks split by a grower
  std::uint32_t merges = 0;        // buddies taken by a merge
  std::uint32_t merge_waits = 0;   // try-waits repeated because the buddy was Available, unlocked
  std::uint32_t sem_spins = 0;     // semaphore steps that reported spinning
  // The semaphores' outcomes: alloc's waits (one per level it asks at) and free's try-waits.
  std::uint32_t waits_took = 0;        // wait returned 0: a unit of that order taken
  std::uint32_t waits_grew = 0;        // wait returned -1: this thread grows (splits) the order
  std::uint32_t reserves = 0;          // waits that reserved a promised unit (R += 1)
  std::uint32_t sem_cas_failures = 0;  // the waits' CASes that found the word changed
  std::uint32_t try_waits_took = 0;    // a free's try-wait took the buddy's unit
  std::uint32_t try_waits_empty = 0;   // it found none
  std::uint32_t gave_up = 0;           // an alloc stopped at its step bound (give_up)
  // alloclab's rule against the spurious null (tbuddy.hpp): reads and updates of the
  // frees-in-flight word, and allocs that failed at order H while a free was in flight and
  // started again.
  std::uint32_t frees_ops = 0;
  std::uint32_t restarts = 0;
};

// A try-lock on one node: a load, then a CAS of the unlocked word it saw to the same word with
// the lock bit. running: saw it unlocked (the CAS comes next); spinning: held, or the CAS lost;
// done: held by this thread, state() is the node's state at that moment.
template <class Atomics>
class NodeLock {
 public:
  ALLOCLAB_HD void reset(std::uint32_t node) {
    node_ = node;
    have_seen_ = false;
  }
  ALLOCLAB_HD std::uint32_t node() const { return node_; }
  ALLOCLAB_HD NodeState state() const { return node_state(seen_); }

  ALLOCLAB_HD StepStatus step(const TBuddyTree& t, TBuddyStats& s) {
    std::uint32_t& w = t.nodes[node_];
    ++s.memory_ops;
    if (!have_seen_) {
      seen_ = Atomics::load(w);
      if (node_locked(seen_)) {
        ++s.lock_spins;
        return StepStatus::spinning;
      }
      have_seen_ = true;
      return StepStatus::running;
    }
    const std::uint32_t old = Atomics::cas(w, seen_, seen_ | kNodeLock);
    if (old != seen_) {
      ++s.lock_spins;
      seen_ = old;
      have_seen_ = !node_locked(old);  // unlocked but changed: CAS that word next
      return StepStatus::spinning;
    }
    if (++s.locks_held > s.max_locks_held) s.max_locks_held = s.locks_held;
    return StepStatus::done;
  }

 private:
  std::uint32_t node_ = 1;
  bool have_seen_ = false;
  std::uint32_t seen_ = 0;
};

// Writes a word this thread holds the lock of (the new state, locked or released): an exchange,
// since nobody else writes a locked word (their CASes expect it unlocked).
template <class Atomics>
ALLOCLAB_HD void tb_write(const TBuddyTree& t, TBuddyStats& s, std::uint32_t node, NodeState st,
                          bool keep_lock) {
  ++s.memory_ops;
  Atomics::exchange(t.nodes[node], node_word(st, keep_lock));
  if (!keep_lock) --s.locks_held;
}

// The propagation of §4.1 with lock coupling. It starts holding two locks: `child`, whose new
// state the caller has written (still locked), and its parent, whose state when locked is given.
// Each round reads the child's sibling and recomputes the parent (tb_summary). Unchanged: it
// releases the child, then the parent, and stops. Changed: it writes the parent, releases the
// child, and below the root locks the grandparent; the parent becomes the child of the next
// round. So at most two locks are held, and a parent is recomputed from its children's states
// as they are while it is locked: a change a concurrent thread made to the sibling is seen (the
// sibling cannot change while the parent is locked), and a stale propagation like the paper's
// example (free, then the same block re-allocated before the free's propagation) cannot happen.
template <class Atomics>
class Climb {
 public:
  enum class Phase : std::uint8_t {
    sibling,             // read the child's sibling; recompute the parent
    write_parent,        // the parent changed: write it (locked)
    release_child,       // release the child; then lock the grandparent, or stop at the root
    lock_parent,         // lock coupling: take the next parent's lock
    release_last_child,  // the parent did not change: release the child,
    release_parent,      // then the parent
    done,
  };

  ALLOCLAB_HD void start(std::uint32_t child, NodeState child_state, std::uint32_t parent,
                         NodeState parent_state) {
    child_ = child;
    child_state_ = child_state;
    parent_ = parent;
    parent_state_ = parent_state;
    phase_ = Phase::sibling;
  }
  ALLOCLAB_HD Phase phase() const { return phase_; }

  ALLOCLAB_HD StepStatus step(const TBuddyTree& t, TBuddyStats& s) {
    switch (phase_) {
      case Phase::sibling: {
        ++s.memory_ops;
        const NodeState sib = node_state(Atomics::load(t.nodes[tb_sibling(child_)]));
        next_state_ = tb_summary(child_state_, sib);
        phase_ = next_state_ == parent_state_ ? Phase::release_last_child : Phase::write_parent;
        return StepStatus::running;
      }
      case Phase::write_parent:
        tb_write<Atomics>(t, s, parent_, next_state_, true);
        ++s.propagations;
        parent_state_ = next_state_;
        phase_ = Phase::release_child;
        return StepStatus::running;
      case Phase::release_child:
        tb_write<Atomics>(t, s, child_, child_state_, false);
        if (parent_ == 1) {
          phase_ = Phase::release_parent;
        } else {
          child_ = parent_;
          child_state_ = parent_state_;
          parent_ = tb_parent(child_);
          lock_.reset(parent_);
          phase_ = Phase::lock_parent;
        }
        return StepStatus::running;
      case Phase::lock_parent: {
        const StepStatus r = lock_.step(t, s);
        if (r != StepStatus::done) return r;
        parent_state_ = lock_.state();
        phase_ = Phase::sibling;
        return StepStatus::running;
      }
      case Phase::release_last_child:
        tb_write<Atomics>(t, s, child_, child_state_, false);
        phase_ = Phase::release_parent;
        return StepStatus::running;
      case Phase::release_parent:
        tb_write<Atomics>(t, s, parent_, parent_state_, false);
        phase_ = Phase::done;
        return StepStatus::done;
      case Phase::done:
        break;
    }
    return StepStatus::done;
  }

 private:
  std::uint32_t child_ = 1, parent_ = 1;
  NodeState child_state_ = NodeState::busy, parent_state_ = NodeState::busy;
  NodeState next_state_ = NodeState::busy;
  Phase phase_ = Phase::done;
  NodeLock<Atomics> lock_;
};

}  // namespace alloclab::gelado
