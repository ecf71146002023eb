// TBuddy's alloc and free (Gelado & Garland, PPoPP'19 §4.1) as step machines over the tree of
// tbuddy_tree.hpp, one memory operation per step through `Atomics`; waits, held locks and lost
// races are steps that report spinning, and the caller bounds the steps (tbuddy_run).
//
// alloc(order n): wait(sem[n], 1, 2).
//   took (0): search for an Available node of height n (below), claim it with the CAS
//     (Available, unlocked) -> (Available, locked), lock its parent, write it Busy, propagate
//     upward (Climb). A claim that loses its CAS keeps searching.
//   grow (-1): alloc(n + 1), then split the block y: lock its right child and y, write the right
//     child Available, signal(sem[n], 1, 1) (bulk_grow_delivered), propagate from the right child
//     (y becomes Partial), and keep the left child. At order H there is no n + 1: the grower
//     signals its failure (bulk_grow_failed), and so does every grower below it, so that no
//     waiter hangs on a promise; alloc returns 0 (no block). The recursion is a chain, so the
//     machine keeps only the level it works at: the levels below it are all growers.
// free(block x of order n): lock x and its parent p, then try to merge:
//   try-wait(sem[n]) whatever x's buddy b looks like (§4.1: "must attempt a merge even if the
//   buddy block is busy"); took: CAS b (Available, unlocked) -> (Busy, unlocked); it failed:
//   signal(sem[n], 1, 0) back and fall back; it succeeded: p is the merged block, Busy and this
//   thread's: write p Busy, release x, lock p's parent and free p at order n + 1 the same way
//   (the recursion of the classical buddy free; without it p and its buddy could both end up
//   Available, against I1). At the root there is nothing to merge with.
//   try-wait empty: read b. If b is Available and unlocked, the units of sem[n] are held by
//   threads in flight (takers searching, mergers before their CAS, signals not yet made), not
//   gone: falling back now would leave x and b both Available at rest (I1) once those threads
//   take other nodes. So the merger keeps its two locks and tries again (spinning). Otherwise
//   fall back.
//   fall back: write x Available, signal(sem[n], 1, 0) while x and p are still locked (a merger
//   of the buddy, which needs p, then finds the unit), propagate upward.
//
// A failure at order H is final only when no free was in flight (alloclab's rule; the paper's
// alloc fails whenever the grower at order H finds nothing). A free that merges takes its
// buddy's unit from sem[n] and signals the merged block's unit on sem[n + k] several accesses
// later (k >= 1), after writing it Available: in between, a free page is counted by no
// semaphore, and an alloc that reads the semaphores then grows past the root and fails, although
// the pool could serve it throughout (found by `alloclab check`, docs/checking.md). So every
// free counts itself in the frees-in-flight word (tbuddy_tree.hpp: +1 before its first lock,
// one less in flight and one more finished after its last signal), and an alloc reads that word
// before its first wait and again when its grower at order H found nothing. Unchanged and no
// free in flight: no free page was hidden from it, and the failure is final (null). Otherwise
// it signals the failure down its chain of growers as before (no promise left hanging), waits
// until the word changes if a free is still in flight (a read-only wait: it holds no lock, unit
// or promise then), and starts again from its own order; after kTBuddyMaxRestarts starts the
// failure is final.
// Two more rules keep the units reservers are owed theirs (a null is final only if the units it
// saw owed to reservers stay theirs; the checker found both): a merge's try-wait takes only
// units no reserver counts on (C - R >= 1, TryWaitRule::unreserved), and a reserver whose units
// arrived takes them and drops its reservation in one CAS (BulkWait::take_reserved_in_one_cas)
// instead of Alg. 1's release, then decide again, a window in which a merge took its unit.
// A tree without the word (frees == nullptr) keeps the paper's rules (all three).
//
// Scattered start (alloclab's rule; the paper says only that the thread "traverses the tree"):
// the search is a depth-first walk from the root through Partial nodes, pruning Busy ones and
// Available ones above height n; at depth d it visits first the child chosen by bit d of the
// caller's `scatter` word (say a hash of the thread id), so threads spread over the tree. A walk
// that returns to the root found nothing (the Partial marks lag a propagation in flight, or
// another thread claimed the node first): it reports spinning, changes its scatter word and
// starts again.
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/tbuddy_climb.hpp"
#include "alloclab/core/gelado/tbuddy_tree.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

enum class TBuddyAllocPhase : std::uint8_t {
  wait,               // wait(sem[level], 1, 2)
  search,             // read one node of the depth-first walk
  claim,              // CAS (Available, unlocked) -> (Available, locked)
  claim_root,         // the claimed node is the root: write it Busy, unlocked
  lock_parent,        // lock the claimed node's parent
  write_claimed,      // write the claimed node Busy (locked); propagate
  split_lock_child,   // the grower at `level` splits y: lock y's right child,
  split_lock_parent,  // then y,
  split_write,        // write the right child Available (locked),
  split_signal,       // signal(sem[level], 1, 1); propagate; keep the left child
  climb,              // the propagation (Climb)
  fail_signal,        // a grower whose growth failed signals (0, 1) on sem[level]
  frees_start,        // read the frees-in-flight word before the first wait
  frees_final,        // the grower at order H found nothing: read the word again (final?)
  frees_await,        // a free is in flight: wait for the word to change, then start again
  done,
};

// How many times an alloc starts again after a failure at order H that a free in flight may
// have caused (TBuddyAlloc, alloclab's rule); past it the failure is final.
inline constexpr std::uint32_t kTBuddyMaxRestarts = 64;

template <class Atomics>
class TBuddyAlloc {
 public:
  ALLOCLAB_HD TBuddyAlloc(std::uint32_t order, std::uint32_t scatter)
      : base_(order), level_(order), scatter_(scatter), wait_(1, kTBuddyBatch) {}

  ALLOCLAB_HD TBuddyAllocPhase phase() const { return phase_; }
  ALLOCLAB_HD std::uint32_t level() const { return level_; }
  // The block (a node of height `order`), or 0 when the pool had none (after done).
  ALLOCLAB_HD std::uint32_t node() const { return result_; }
  ALLOCLAB_HD const TBuddyStats& stats() const { return stats_; }
  // E or R of a semaphore would have left its bits (a configuration the range checks refuse).
  ALLOCLAB_HD bool overflowed() const { return overflow_; }

  ALLOCLAB_HD StepStatus step(const TBuddyTree& t) {
    TBuddyStats& s = stats_;
    if (phase_ == TBuddyAllocPhase::wait && !started_) {
      started_ = true;
      if (t.frees != nullptr) {
        phase_ = TBuddyAllocPhase::frees_start;
        ours_ = true;
        wait_.take_reserved_in_one_cas();
      }
    }
    switch (phase_) {
      case TBuddyAllocPhase::frees_start:
        ++s.frees_ops;
        frees_seen_ = Atomics::load(*t.frees);
        phase_ = TBuddyAllocPhase::wait;
        return StepStatus::running;
      case TBuddyAllocPhase::frees_final: {
        ++s.frees_ops;
        const std::uint32_t w = Atomics::load(*t.frees);
        const bool hidden = w != frees_seen_ || tb_frees_in_flight(frees_seen_) != 0;
        restart_ = hidden && s.restarts < kTBuddyMaxRestarts;
        frees_seen_ = w;
        phase_ = TBuddyAllocPhase::fail_signal;
        return StepStatus::running;
      }
      case TBuddyAllocPhase::frees_await: {
        ++s.frees_ops;
        const std::uint32_t w = Atomics::load(*t.frees);
        if (w == frees_seen_) return StepStatus::spinning;  // the free has not finished
        frees_seen_ = w;
        return start_again();
      }
      case TBuddyAllocPhase::wait: {
        const StepStatus r = wait_.step(t.sems[level_]);
        if (r == StepStatus::spinning) ++s.sem_spins;
        if (r != StepStatus::done) return r;
        count_wait();
        const BulkWaitOutcome o = wait_.result().outcome;
        if (o == BulkWaitOutcome::took) {
          ++s.waits_took;
          node_ = 1;
          phase_ = TBuddyAllocPhase::search;
        } else if (o == BulkWaitOutcome::grow && level_ < t.height) {
          ++s.waits_grew;
          ++level_;  // allocate a block of order level + 1 to split
          wait_ = new_wait();
        } else if (o == BulkWaitOutcome::grow) {
          ++s.waits_grew;
          // No order above H: out of memory, unless a free in flight hid a page (alloclab's rule)
          phase_ =
              t.frees != nullptr ? TBuddyAllocPhase::frees_final : TBuddyAllocPhase::fail_signal;
        } else {  // counter_overflow: this level holds nothing; the growers below it fail
          overflow_ = true;
          return fail_below();
        }
        return StepStatus::running;
      }
      case TBuddyAllocPhase::search:
        return search_step(t);
      case TBuddyAllocPhase::claim: {
        ++s.memory_ops;
        const std::uint32_t old = Atomics::cas(t.nodes[node_], seen_, seen_ | kNodeLock);
        if (old != seen_) {  // another taker or a merger got there first: keep searching
          ++s.cas_failures;
          advance();
          phase_ = TBuddyAllocPhase::search;
          return StepStatus::spinning;
        }
        if (++s.locks_held > s.max_locks_held) s.max_locks_held = s.locks_held;
        if (node_ == 1) {
          phase_ = TBuddyAllocPhase::claim_root;
        } else {
          lock_.reset(tb_parent(node_));
          phase_ = TBuddyAllocPhase::lock_parent;
        }
        return StepStatus::running;
      }
      case TBuddyAllocPhase::claim_root:
        tb_write<Atomics>(t, s, 1, NodeState::busy, false);
        return deliver(1);
      case TBuddyAllocPhase::lock_parent: {
        const StepStatus r = lock_.step(t, s);
        if (r != StepStatus::done) return r;
        phase_ = TBuddyAllocPhase::write_claimed;
        return StepStatus::running;
      }
      case TBuddyAllocPhase::write_claimed:
        tb_write<Atomics>(t, s, node_, NodeState::busy, true);
        climb_.start(node_, NodeState::busy, tb_parent(node_), lock_.state());
        kept_ = node_;
        phase_ = TBuddyAllocPhase::climb;
        return StepStatus::running;
      case TBuddyAllocPhase::split_lock_child: {
        const StepStatus r = lock_.step(t, s);
        if (r != StepStatus::done) return r;
        lock_.reset(split_);
        phase_ = TBuddyAllocPhase::split_lock_parent;
        return StepStatus::running;
      }
      case TBuddyAllocPhase::split_lock_parent: {
        const StepStatus r = lock_.step(t, s);
        if (r != StepStatus::done) return r;
        phase_ = TBuddyAllocPhase::split_write;
        return StepStatus::running;
      }
      case TBuddyAllocPhase::split_write:
        tb_write<Atomics>(t, s, tb_right(split_), NodeState::available, true);
        ++s.splits;
        phase_ = TBuddyAllocPhase::split_signal;
        return StepStatus::running;
      case TBuddyAllocPhase::split_signal:
        bulk_grow_delivered<Atomics>(t.sems[level_], 1, kTBuddyBatch);
        climb_.start(tb_right(split_), NodeState::available, split_, lock_.state());
        kept_ = tb_left(split_);  // the splitter keeps the lower half
        phase_ = TBuddyAllocPhase::climb;
        return StepStatus::running;
      case TBuddyAllocPhase::climb: {
        const StepStatus r = climb_.step(t, s);
        if (r != StepStatus::done) return r;
        return deliver(kept_);
      }
      case TBuddyAllocPhase::fail_signal:
        bulk_grow_failed<Atomics>(t.sems[level_], 1, kTBuddyBatch);
        return fail_below();
      case TBuddyAllocPhase::done:
        break;
    }
    return StepStatus::done;
  }

  // Stops the alloc where that leaves nothing half done (the caller's step bound was reached),
  // and says whether it could: in a wait (its reservation dropped, BulkWait::abandon), or with
  // a unit of sem[level] in hand before its claim's CAS (the unit signalled back: its node is
  // still Available). Then every grower below signals its failure, as when the pool has no
  // block: the caller keeps stepping to done, and node() is 0. False while it holds a node lock
  // or splits or climbs: a block is changing hands, and it must finish (ask again later).
  // Before its first wait, or waiting for a free to finish (alloclab's rule), it holds nothing.
  ALLOCLAB_HD bool give_up(const TBuddyTree& t) {
    restart_ = false;
    if (phase_ == TBuddyAllocPhase::frees_start || phase_ == TBuddyAllocPhase::frees_await ||
        (phase_ == TBuddyAllocPhase::wait && !started_)) {
      started_ = true;
      level_ = base_;
      ++stats_.gave_up;
      result_ = 0;
      phase_ = TBuddyAllocPhase::done;
      return true;
    }
    if (phase_ == TBuddyAllocPhase::wait) {
      wait_.abandon(t.sems[level_]);
      count_wait();
    } else if (phase_ == TBuddyAllocPhase::search || phase_ == TBuddyAllocPhase::claim) {
      bulk_signal<Atomics>(t.sems[level_], 1, 0);
    } else {
      return false;
    }
    ++stats_.gave_up;
    fail_below();
    return true;
  }

 private:
  ALLOCLAB_HD void count_wait() {
    stats_.reserves += wait_.result().reserves;
    stats_.sem_cas_failures += wait_.result().cas_failures;
  }
  // The level's block y arrived: alloc returns it, or the grower below splits it.
  ALLOCLAB_HD StepStatus deliver(std::uint32_t y) {
    if (level_ == base_) {
      result_ = y;
      phase_ = TBuddyAllocPhase::done;
      return StepStatus::done;
    }
    --level_;
    split_ = y;
    lock_.reset(tb_right(y));
    phase_ = TBuddyAllocPhase::split_lock_child;
    return StepStatus::running;
  }
  // The level got no block: the grower below it (if any) signals its failure next. At the base,
  // alloc returns 0, or (a free was in flight, alloclab's rule) starts again.
  ALLOCLAB_HD StepStatus fail_below() {
    if (level_ == base_) {
      if (restart_) {
        restart_ = false;
        if (tb_frees_in_flight(frees_seen_) != 0) {  // wait for it to finish first
          phase_ = TBuddyAllocPhase::frees_await;
          return StepStatus::running;
        }
        return start_again();
      }
      result_ = 0;
      phase_ = TBuddyAllocPhase::done;
      return StepStatus::done;
    }
    --level_;
    phase_ = TBuddyAllocPhase::fail_signal;
    return StepStatus::running;
  }
  ALLOCLAB_HD BulkWait<Atomics> new_wait() const {
    BulkWait<Atomics> w(1, kTBuddyBatch);
    if (ours_) w.take_reserved_in_one_cas();
    return w;
  }
  // The alloc starts again from its own order; frees_seen_ is the word as read last, before the
  // new first wait.
  ALLOCLAB_HD StepStatus start_again() {
    ++stats_.restarts;
    level_ = base_;
    wait_ = new_wait();
    phase_ = TBuddyAllocPhase::wait;
    return StepStatus::spinning;
  }
  ALLOCLAB_HD std::uint32_t first_bit(std::uint32_t depth) const {
    return (scatter_ >> (depth & 31u)) & 1u;
  }
  // The next node of the walk after node_'s subtree; spinning when the walk is over.
  ALLOCLAB_HD StepStatus advance() {
    while (node_ != 1 && (node_ & 1u) != first_bit(tb_depth(node_) - 1)) node_ = tb_parent(node_);
    if (node_ == 1) {
      ++stats_.sweeps;
      scatter_ = scatter_ * 2654435761u + 0x9E3779B9u;  // another order for the next walk
      return StepStatus::spinning;
    }
    node_ = tb_sibling(node_);
    return StepStatus::running;
  }
  ALLOCLAB_HD StepStatus search_step(const TBuddyTree& t) {
    ++stats_.memory_ops;
    ++stats_.nodes_visited;
    const std::uint32_t w = Atomics::load(t.nodes[node_]);
    const std::uint32_t h = tb_height(t.height, node_);
    if (h == level_) {
      if (node_state(w) == NodeState::available && !node_locked(w)) {
        seen_ = w;
        phase_ = TBuddyAllocPhase::claim;
        return StepStatus::running;
      }
      return advance();
    }
    if (node_state(w) == NodeState::partial) {  // its subtree holds an Available node
      node_ = tb_left(node_) | first_bit(tb_depth(node_));
      return StepStatus::running;
    }
    return advance();  // Busy, or Available above the height sought (its subtree is all Busy)
  }

  std::uint32_t base_, level_, scatter_;
  TBuddyAllocPhase phase_ = TBuddyAllocPhase::wait;
  BulkWait<Atomics> wait_;
  std::uint32_t node_ = 1;   // the walk's node, then the claimed node
  std::uint32_t seen_ = 0;   // its word when read Available
  std::uint32_t split_ = 0;  // the block being split
  std::uint32_t kept_ = 0;   // the block this level delivers after the climb
  std::uint32_t result_ = 0;
  std::uint32_t frees_seen_ = 0;  // the frees-in-flight word as read last (alloclab's rule)
  bool started_ = false;          // the first step has chosen between the two rules
  bool ours_ = false;             // alloclab's rule (the tree has the frees-in-flight word)
  bool restart_ = false;          // the failure signalled now is not final: start again
  bool overflow_ = false;
  NodeLock<Atomics> lock_;
  Climb<Atomics> climb_;
  TBuddyStats stats_;
};

enum class TBuddyFreePhase : std::uint8_t {
  lock_block,       // lock x
  lock_parent,      // lock x's parent
  try_wait,         // try-wait(sem[order])
  cas_buddy,        // CAS the buddy (Available, unlocked) -> (Busy, unlocked)
  resignal,         // the CAS failed: signal the unit back
  look_buddy,       // try-wait found none: read the buddy
  merged_parent,    // the merge succeeded: write the parent Busy (locked)
  release_block,    // release x; the parent is the block of the next order
  write_available,  // fall back: write x Available
  signal,           // signal(sem[order], 1, 0); then propagate
  climb,
  frees_enter,  // alloclab's rule: count this free in flight (before its first lock)
  frees_leave,  // and out of flight, after its last signal
  done,
};

template <class Atomics>
class TBuddyFree {
 public:
  // `node`: the block as alloc returned it; its order is its height. wait_for_buddy = false is
  // the printed rule (an empty try-wait always falls back), kept to show what it breaks (I1).
  ALLOCLAB_HD TBuddyFree(const TBuddyTree& t, std::uint32_t node, bool wait_for_buddy = true)
      : node_(node), order_(tb_height(t.height, node)), wait_for_buddy_(wait_for_buddy) {
    lock_.reset(node);
    if (t.frees != nullptr) phase_ = TBuddyFreePhase::frees_enter;
  }

  ALLOCLAB_HD TBuddyFreePhase phase() const { return phase_; }
  ALLOCLAB_HD const TBuddyStats& stats() const { return stats_; }
  // The block that became Available (x merged up to it), after done.
  ALLOCLAB_HD std::uint32_t freed_node() const { return node_; }

  ALLOCLAB_HD StepStatus step(const TBuddyTree& t) {
    TBuddyStats& s = stats_;
    const std::uint32_t buddy = tb_sibling(node_);
    switch (phase_) {
      case TBuddyFreePhase::frees_enter:
        ++s.frees_ops;
        Atomics::fetch_add(*t.frees, 1u);
        phase_ = TBuddyFreePhase::lock_block;
        return StepStatus::running;
      case TBuddyFreePhase::frees_leave:
        ++s.frees_ops;
        Atomics::fetch_add(*t.frees, kTBuddyFreeLeave);
        return after_leave();
      case TBuddyFreePhase::lock_block: {
        const StepStatus r = lock_.step(t, s);
        if (r != StepStatus::done) return r;
        return after_block_locked();
      }
      case TBuddyFreePhase::lock_parent: {
        const StepStatus r = lock_.step(t, s);
        if (r != StepStatus::done) return r;
        parent_state_ = lock_.state();
        try_wait_ = try_wait_of(t);
        phase_ = TBuddyFreePhase::try_wait;
        return StepStatus::running;
      }
      case TBuddyFreePhase::try_wait: {
        const StepStatus r = try_wait_.step(t.sems[order_]);
        if (r == StepStatus::spinning) ++s.sem_spins;
        if (r != StepStatus::done) return r;
        const bool took = try_wait_.outcome() == TryWaitOutcome::took;
        ++(took ? s.try_waits_took : s.try_waits_empty);
        phase_ = took ? TBuddyFreePhase::cas_buddy : TBuddyFreePhase::look_buddy;
        return StepStatus::running;
      }
      case TBuddyFreePhase::cas_buddy: {
        ++s.memory_ops;
        const std::uint32_t avail = node_word(NodeState::available, false);
        if (Atomics::cas(t.nodes[buddy], avail, node_word(NodeState::busy, false)) == avail) {
          ++s.merges;
          phase_ = TBuddyFreePhase::merged_parent;
        } else {
          ++s.cas_failures;
          phase_ = TBuddyFreePhase::resignal;
        }
        return StepStatus::running;
      }
      case TBuddyFreePhase::resignal:
        bulk_signal<Atomics>(t.sems[order_], 1, 0);
        phase_ = TBuddyFreePhase::write_available;
        return StepStatus::running;
      case TBuddyFreePhase::look_buddy: {
        ++s.memory_ops;
        const std::uint32_t w = Atomics::load(t.nodes[buddy]);
        if (wait_for_buddy_ && node_state(w) == NodeState::available && !node_locked(w)) {
          ++s.merge_waits;  // its unit is in flight: wait for it, holding x and the parent
          try_wait_ = try_wait_of(t);
          phase_ = TBuddyFreePhase::try_wait;
          return StepStatus::spinning;
        }
        phase_ = TBuddyFreePhase::write_available;
        return StepStatus::running;
      }
      case TBuddyFreePhase::merged_parent:
        tb_write<Atomics>(t, s, tb_parent(node_), NodeState::busy, true);
        phase_ = TBuddyFreePhase::release_block;
        return StepStatus::running;
      case TBuddyFreePhase::release_block:
        tb_write<Atomics>(t, s, node_, NodeState::busy, false);
        node_ = tb_parent(node_);
        ++order_;
        return after_block_locked();
      case TBuddyFreePhase::write_available:
        tb_write<Atomics>(t, s, node_, NodeState::available, node_ != 1);
        phase_ = TBuddyFreePhase::signal;
        return StepStatus::running;
      case TBuddyFreePhase::signal:
        bulk_signal<Atomics>(t.sems[order_], 1, 0);
        if (t.frees != nullptr) {  // the free page is counted again: out of flight
          phase_ = TBuddyFreePhase::frees_leave;
          return StepStatus::running;
        }
        return after_leave();
      case TBuddyFreePhase::climb: {
        const StepStatus r = climb_.step(t, s);
        if (r == StepStatus::done) phase_ = TBuddyFreePhase::done;
        return r;
      }
      case TBuddyFreePhase::done:
        break;
    }
    return StepStatus::done;
  }

 private:
  // alloclab's rule (a tree with the frees-in-flight word): the try-wait leaves units reservers
  // count on; the paper's (none): it looks at C alone.
  ALLOCLAB_HD static BulkTryWait<Atomics> try_wait_of(const TBuddyTree& t) {
    return BulkTryWait<Atomics>(
        1, t.frees != nullptr ? TryWaitRule::unreserved : TryWaitRule::count_only);
  }
  // After the last signal: done at the root, else propagate.
  ALLOCLAB_HD StepStatus after_leave() {
    if (node_ == 1) {
      phase_ = TBuddyFreePhase::done;
      return StepStatus::done;
    }
    climb_.start(node_, NodeState::available, tb_parent(node_), parent_state_);
    phase_ = TBuddyFreePhase::climb;
    return StepStatus::running;
  }
  // x is locked: at the root there is no buddy (fall back); else lock the parent.
  ALLOCLAB_HD StepStatus after_block_locked() {
    if (node_ == 1) {
      phase_ = TBuddyFreePhase::write_available;
    } else {
      lock_.reset(tb_parent(node_));
      phase_ = TBuddyFreePhase::lock_parent;
    }
    return StepStatus::running;
  }

  std::uint32_t node_, order_;
  bool wait_for_buddy_;
  TBuddyFreePhase phase_ = TBuddyFreePhase::lock_block;
  NodeState parent_state_ = NodeState::busy;
  NodeLock<Atomics> lock_;
  BulkTryWait<Atomics> try_wait_;
  Climb<Atomics> climb_;
  TBuddyStats stats_;
};

// Runs an alloc or a free to the end or for at most max_steps steps; on_spin(spins) after each
// step that reports spinning (a host thread yields there, a GPU thread sleeps). A machine that
// reached the bound is left where it is (it may hold locks): its caller reports the bound, or
// (an alloc) calls give_up and steps it to done (the simulator's gg-tbuddy).
template <class Machine, class OnSpin = NoBackoff>
ALLOCLAB_HD bool tbuddy_run(Machine& m, const TBuddyTree& t, std::uint64_t max_steps,
                            OnSpin on_spin = OnSpin{}) {
  std::uint32_t spins = 0;
  for (std::uint64_t i = 0; i < max_steps; ++i) {
    const StepStatus r = m.step(t);
    if (r == StepStatus::done) return true;
    if (r == StepStatus::spinning) on_spin(++spins);
  }
  return false;
}

}  // namespace alloclab::gelado
