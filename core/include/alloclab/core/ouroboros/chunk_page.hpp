// Ouroboros variant C, the pages: a lane's walk of its class's chunk queue and its take of a page
// (Alg. 4 l.6-15 with Alg. 5); the free of a page is in chunk_free.hpp. The decisions these follow
// are in chunk_queue.hpp's header comment.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/chunk_queue.hpp"

namespace alloclab::ouro {

enum class TakePhase : std::uint8_t {
  read_front,      // start (or start again) at front
  read_back,       // where the queue ends now
  read_slot,       // the entry at this position (Alg. 4 l.7)
  recheck_front,   // an entry not (or no longer) there: front moved past it, or not written?
  locate,          // VA, VL: the Queue-Chunk of the position (Layout::Locate steps)
  peek,            // the count read first: an empty or flashed chunk is passed without atomics
  sub,             // count -= 1 (Alg. 5 l.2)
  undo,            // count += 1 after a miss (l.3)
  stale_undo,      // the chunk was flashed since the entry was read: give the page back
  stale_class,     // ... and that give-back made an up-crossing: the chunk's class now
  scan_load,       // a mask word (l.9)
  scan_and,        // clear a set bit of it (l.11)
  publish,         // RE_ENQUEUE, a refilled chunk after a pop, or a stale up-crossing
  advance_front,   // front -> past the run of dead entries this lane read from front (a max)
  pop_slot,        // take an entry of the run this lane moved front past out of its slot
  popped,          // VA, VL: count the removal on its Queue-Chunk (Layout::Popped steps)
  pop_position,    // the chunk has no entry now
  pop_read_flags,  // the flags (of this entry's epoch?)
  pop_flags,       // clear the in-queue flag
  pop_recheck,     // refilled meanwhile? then publish again
  retire,          // flashed meanwhile: this thread hands the chunk to the reuse queue
  give_back,       // stopped at the step bound: the page held on the semaphore goes back
  done,
};

enum class TakeOutcome : std::uint8_t { pending, ok, gave_up };

// The most dead entries one lane reads from front before it moves front past them (and then takes
// them out of their slots): front keeps up with the walking lanes, and no lane owes more than
// this many removals at once.
inline constexpr std::uint32_t kFrontRun = 32;

// One lane's page, once its group holds a unit of the semaphore for it. `rotation` spreads the
// lanes of a warp over the mask (pick_set_bit) and the mask words.
//
// Front. A lane walks from the front it read; while every entry it has passed since was dead (an
// emptied chunk, a hole, a flashed chunk's entry) it keeps that run. It moves front past the run
// (front = max(front, end), one atomic) when the run reaches kFrontRun, when its walk ends (its
// page found: the run up to that entry, and the entry too if the lane took its last page), at an
// entry not written yet, and at back; then it takes out of their slots the entries between the
// front it replaced and the run's end, which no other lane owns (front only grows). A lane whose
// max finds front already past the run owns nothing and walks on from front. The entries behind
// front wait for their owner's removal, as behind a single pop (Alg. 4 l.10 moves front with an
// atomicMax too, but past entries it has not read).
template <class Atomics, class Layout = ChunkRing<Atomics>>
class ChunkTakeOp {
  using Locate = typename Layout::Locate;

 public:
  ALLOCLAB_HD ChunkTakeOp(unsigned page_class = 0, unsigned rotation = 0)
      : k_(page_class), rotation_(rotation) {}

  ALLOCLAB_HD TakePhase phase() const { return phase_; }
  ALLOCLAB_HD TakeOutcome outcome() const { return outcome_; }
  ALLOCLAB_HD bool done() const { return phase_ == TakePhase::done; }
  ALLOCLAB_HD std::uint32_t chunk() const { return chunk_; }
  ALLOCLAB_HD std::uint32_t page() const { return page_; }  // within the chunk
  // Between chunks the lane holds only its unit, which give_back returns.
  ALLOCLAB_HD bool can_abandon() const {
    return phase_ == TakePhase::read_front || phase_ == TakePhase::read_back ||
           phase_ == TakePhase::read_slot || phase_ == TakePhase::recheck_front;
  }
  ALLOCLAB_HD void abandon() {
    if (can_abandon()) phase_ = TakePhase::give_back;
  }

  ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
    using M = CountedOps<Atomics>;
    ChunkQueueWords& w = q.words[k_];
    switch (phase_) {
      case TakePhase::read_front:
        front_seen_ = M::load(w.front, c.ops);
        position_ = front_seen_;
        run_from_ = front_seen_;
        if (start_ > position_) start_ = position_;
        phase_ = TakePhase::read_back;
        return OpStatus::running;
      case TakePhase::read_back:
        back_seen_ = M::load(w.back, c.ops);
        if (position_ < back_seen_) {
          phase_ = TakePhase::read_slot;
          return OpStatus::running;
        }
        // Nothing with a page between front and back: the chunk that holds this lane's page
        // is being put back in the queue. Walk again from front (past the dead run first).
        ++c.rescans;
        if (in_run() && position_ > run_from_) return advance(position_, After::rescan);
        phase_ = TakePhase::read_front;
        return OpStatus::spinning;
      case TakePhase::read_slot: {
        std::uint64_t* word = Layout::covered(q, k_, position_, cursor_);
        if (!word) {  // VA, VL: another Queue-Chunk
          locate_ = Locate(q, k_, position_, EntryUse::walk, cursor_);
          if (!locate_.done()) return begin_locate(q, c, TakePhase::read_slot);
          word = locate_.word();
          if (!word) return next();  // no Queue-Chunk for it: not written yet
        }
        const std::uint64_t e = M::load(*word, c.ops);
        if (!entry_is_for(e, position_)) {  // not written yet, or removed
          if (!in_run()) return next();
          phase_ = TakePhase::recheck_front;
          return OpStatus::running;
        }
        entry_ = e;
        if (entry_is_hole(e)) return dead();
        chunk_ = entry_chunk(e);
        re_enqueue_ = false;
        phase_ = TakePhase::peek;
        return OpStatus::running;
      }
      case TakePhase::recheck_front: {
        const std::uint64_t front = M::load(w.front, c.ops);
        if (front > position_) {  // removed: others moved front past it; go on from there
          front_seen_ = run_from_ = position_ = front;
          phase_ = position_ < back_seen_ ? TakePhase::read_slot : TakePhase::read_back;
          return OpStatus::running;
        }
        // Not written yet: front must not pass it. The run so far goes; the walk goes on.
        if (position_ > run_from_) return advance(position_, After::walk_on_unrun);
        run_from_ = kNoRun;
        return next();
      }
      case TakePhase::peek: {
        // Alg. 5 subtracts first; under a GPU's thousands of walking lanes that is two atomics on
        // every empty chunk passed. A read first passes those with none (the subtraction below
        // still decides, and its races are Alg. 5's).
        const std::uint64_t s = M::load(q.meta[chunk_].state, c.ops);
        if (!entry_epoch_is(entry_, state_epoch(s))) {
          ++c.stale;
          return dead();
        }
        if (state_free(s) <= 0) {
          ++c.continues;
          return dead();
        }
        phase_ = TakePhase::sub;
        return OpStatus::running;
      }
      case TakePhase::sub: {
        const std::uint64_t old = M::add(q.meta[chunk_].state, kStateTakeOne, c.ops);
        if (!entry_epoch_is(entry_, state_epoch(old))) {
          ++c.stale;
          phase_ = TakePhase::stale_undo;
        } else if (state_free(old) > 0) {
          took_last_ = state_free(old) == 1;
          epoch_ = state_epoch(old);
          word_ = rotation_ % mask_words(k_);
          words_seen_ = 0;
          phase_ = TakePhase::scan_load;
        } else {
          phase_ = TakePhase::undo;
        }
        return OpStatus::running;
      }
      case TakePhase::undo: {
        const std::int64_t before = state_free(M::add(q.meta[chunk_].state, kStateGiveOne, c.ops));
        if (before < 0) {  // empty (others' misses are still being undone): CONTINUE_TRAVERSAL
          ++c.continues;
          return dead();
        }
        if (before == 0) re_enqueue_ = true;  // this undo made the page visible: l.5
        phase_ = TakePhase::sub;              // try again (l.1)
        ++c.ops.failed;
        return OpStatus::running;
      }
      case TakePhase::stale_undo: {
        // A flashed chunk's entry is dead: part of the lane's run (whose remover hands the chunk
        // to the reuse queue), once the page this lane took is given back.
        const After then = After::dead;
        const std::uint64_t cur = M::add(q.meta[chunk_].state, kStateGiveOne, c.ops);
        if (state_free(cur) != 0) return after(then);
        epoch_ = state_epoch(cur);  // an up-crossing on the chunk's new life: publish it there
        after_publish_ = then;
        phase_ = TakePhase::stale_class;
        return OpStatus::running;
      }
      case TakePhase::stale_class: {
        const unsigned j = M::load(q.chunk_class[chunk_], c.ops);
        if (j >= kPageClasses) return after(after_publish_);  // untyped since (a Queue-Chunk)
        publish_ = PublishOp<Atomics, Layout>(chunk_, epoch_, j);
        phase_ = TakePhase::publish;
        return OpStatus::running;
      }
      case TakePhase::scan_load:
        mask_ = M::load(q.meta[chunk_].bits[word_], c.ops);
        if (mask_ == 0) return next_word(c);
        phase_ = TakePhase::scan_and;
        return OpStatus::running;
      case TakePhase::scan_and: {
        const unsigned bit = pick_set_bit(mask_, rotation_ / mask_words(k_));
        const std::uint64_t b = std::uint64_t{1} << bit;
        const std::uint64_t old = M::fetch_and(q.meta[chunk_].bits[word_], ~b, c.ops);
        if (!(old & b)) {  // another lane took that page first: choose from what it left
          ++c.ops.failed;
          mask_ = old;
          if (mask_ == 0) return next_word(c);
          return OpStatus::running;
        }
        page_ = word_ * 64 + bit;
        // The page's bit was set by its free (after that free's release fence) or by the chunk's
        // reserve (after its fence): what they wrote before is visible from here on.
        Atomics::fence_acquire();
        return taken(c);
      }
      case TakePhase::publish: {
        const OpStatus s = publish_.step(q, c);
        if (s != OpStatus::done) return s;
        if (after_publish_ == After::next_removal) return next_removal();
        return after(after_publish_);
      }
      case TakePhase::advance_front: {
        const std::uint64_t old = M::fetch_max(w.front, rm_to_, c.ops);
        if (old >= rm_to_) {  // others moved front past the run first: nothing of it is ours
          ++c.ops.failed;
          front_seen_ = old;
          if (after_pop_ == After::walk_on || after_pop_ == After::walk_on_unrun) {
            run_from_ = old;
            if (old > position_ + 1) position_ = old - 1;
          }
          return after(after_pop_);
        }
        rm_position_ = old > run_from_ ? old : run_from_;
        front_seen_ = rm_to_;
        phase_ = TakePhase::pop_slot;
        return OpStatus::running;
      }
      case TakePhase::pop_slot: {
        std::uint64_t* word = Layout::covered(q, k_, rm_position_, cursor_);
        if (!word) {
          locate_ = Locate(q, k_, rm_position_, EntryUse::pop, cursor_);
          if (!locate_.done()) return begin_locate(q, c, TakePhase::pop_slot);
          word = locate_.word();
          cursor_ = locate_.cursor();
        }
        removed_ = M::exchange(*word, kEmptyEntry, c.ops);
        ++c.pops;
        if (Layout::kVirtual) {
          popped_ = typename Layout::Popped(k_, rm_position_, cursor_);
          phase_ = TakePhase::popped;
          return OpStatus::running;
        }
        return after_removal();
      }
      case TakePhase::popped: {
        const OpStatus s = popped_.step(q, c);
        if (s != OpStatus::done) return s;
        return after_removal();
      }
      case TakePhase::locate:
        return locate_step(q, c);
      case TakePhase::pop_position:  // only if it is this entry's (a later publish's stays)
        M::cas(q.meta[rm_chunk_].position, rm_position_ + 1, std::uint64_t{0}, c.ops);
        phase_ = TakePhase::pop_read_flags;
        return OpStatus::running;
      case TakePhase::pop_read_flags:
        flags_ = M::load(q.meta[rm_chunk_].flags, c.ops);
        phase_ = TakePhase::pop_flags;
        return OpStatus::running;
      case TakePhase::pop_flags: {
        if (!entry_epoch_is(removed_, flags_ >> 16)) return next_removal();  // another life
        const std::uint32_t old =
            M::cas(q.meta[rm_chunk_].flags, flags_, flags_ & ~kChunkInQueue, c.ops);
        if (old != flags_) {
          ++c.ops.failed;
          flags_ = old;
          return OpStatus::running;
        }
        if (old & kChunkRetired) {
          retire_ = EnqueueOp<Atomics>(rm_chunk_);
          phase_ = TakePhase::retire;
        } else {
          phase_ = TakePhase::pop_recheck;
        }
        return OpStatus::running;
      }
      case TakePhase::pop_recheck: {
        const std::uint64_t s = M::load(q.meta[rm_chunk_].state, c.ops);
        if (entry_epoch_is(removed_, state_epoch(s)) && state_free(s) > 0) {
          publish_ = PublishOp<Atomics, Layout>(rm_chunk_, state_epoch(s), k_);
          after_publish_ = After::next_removal;
          phase_ = TakePhase::publish;
          return OpStatus::running;
        }
        return next_removal();
      }
      case TakePhase::retire: {
        const OpStatus s = step_index_queue(retire_, q.reuse, c);
        if (s != OpStatus::done) return s;
        return next_removal();
      }
      case TakePhase::give_back:
        ++c.ops.memory_ops;
        ++c.ops.atomics;
        sem_signal<Atomics>(w.semaphore, 1, 0);
        outcome_ = TakeOutcome::gave_up;
        phase_ = TakePhase::done;
        return OpStatus::done;
      case TakePhase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  // What follows: walk on (in the run, or with no run after an entry not written yet), a dead
  // entry (the run's rule), walk again from front, front past the run of a lane whose page is
  // taken, the lane's page taken, or the next removal.
  enum class After : std::uint8_t {
    walk_on,
    walk_on_unrun,
    dead,
    rescan,
    end_run,
    finish,
    next_removal
  };
  static constexpr std::uint64_t kNoRun = ~std::uint64_t{0};

  ALLOCLAB_HD bool in_run() const { return run_from_ != kNoRun; }
  // VA, VL: the Queue-Chunk of position_ is not the cursor's; its locate's first step now, and
  // the rest in the locate phase, then `then` again. (Not through step(): a recursive step would
  // be a real call with its frame on a GPU.)
  ALLOCLAB_HD OpStatus begin_locate(const ChunkQueues& q, ChunkCounts& c, TakePhase then) {
    locate_for_ = then;
    phase_ = TakePhase::locate;
    return locate_step(q, c);
  }
  ALLOCLAB_HD OpStatus locate_step(const ChunkQueues& q, ChunkCounts& c) {
    const OpStatus s = locate_.step(q, c);
    if (s != OpStatus::done) return s;
    if (locate_.stale()) {  // the walk's front has been used up since: from front again
      phase_ = TakePhase::read_front;
      return OpStatus::running;
    }
    phase_ = locate_for_;  // its word again, from the cursor (no memory operation)
    if (locate_.word()) {
      cursor_ = locate_.cursor();
      return OpStatus::running;
    }
    // No Queue-Chunk of its lap there: pass the positions it would hold.
    if (locate_.skip_to() > position_ + 1)
      position_ = (locate_.skip_to() < back_seen_ ? locate_.skip_to() : back_seen_) - 1;
    return next();
  }
  // A hole (written as one, or an entry a flasher turned into one since it was read): nothing
  // more to do. Otherwise the chunk's entry is out: its position, its flag, its count again.
  ALLOCLAB_HD OpStatus after_removal() {
    if (!entry_is_for(removed_, rm_position_) || entry_is_hole(removed_)) return next_removal();
    rm_chunk_ = entry_chunk(removed_);
    phase_ = TakePhase::pop_position;
    return OpStatus::running;
  }
  ALLOCLAB_HD OpStatus next_removal() {
    if (++rm_position_ < rm_to_) {
      phase_ = TakePhase::pop_slot;
      return OpStatus::running;
    }
    return after(after_pop_);
  }

  ALLOCLAB_HD OpStatus next() {
    ++position_;
    phase_ = position_ < back_seen_ ? TakePhase::read_slot : TakePhase::read_back;
    return OpStatus::running;
  }
  // The word was empty: the next one; a whole round of empty words means a free's bit is not
  // visible yet (its count was): a spin.
  ALLOCLAB_HD OpStatus next_word(ChunkCounts& c) {
    word_ = (word_ + 1) % mask_words(k_);
    phase_ = TakePhase::scan_load;
    if (++words_seen_ < mask_words(k_)) return OpStatus::running;
    words_seen_ = 0;
    ++c.ops.slot_spins;
    return OpStatus::spinning;
  }
  // An empty chunk, a hole or a flashed chunk's entry: one more of the lane's run (moved past
  // once it is kFrontRun long), or passed by a lane with no run.
  ALLOCLAB_HD OpStatus dead() {
    if (in_run() && position_ + 1 - run_from_ >= kFrontRun)
      return advance(position_ + 1, After::walk_on);
    return next();
  }
  // Front to `to` (past [run_from_, to), which this lane read dead), then the removals it owns,
  // then `then`.
  ALLOCLAB_HD OpStatus advance(std::uint64_t to, After then) {
    rm_to_ = to;
    after_pop_ = then;
    phase_ = TakePhase::advance_front;
    return OpStatus::running;
  }
  ALLOCLAB_HD OpStatus after(After a) {
    switch (a) {
      case After::walk_on:
        run_from_ = in_run() ? front_seen_ : kNoRun;
        return next();
      case After::walk_on_unrun:
        run_from_ = kNoRun;
        return next();
      case After::dead:
        return dead();
      case After::rescan:
        phase_ = TakePhase::read_front;
        return OpStatus::spinning;
      case After::next_removal:
        return next_removal();
      case After::end_run:  // this lane's page is taken (and published): front past its run
        return advance(position_, After::finish);
      case After::finish:
        break;
    }
    outcome_ = TakeOutcome::ok;
    phase_ = TakePhase::done;
    return OpStatus::done;
  }
  // Alg. 5 l.6-8: what taking this page means for the chunk's place in the queue.
  // The lane's run moves front on as the walk ends: up to this entry, or past it when the lane
  // emptied it (DEQUEUE).
  ALLOCLAB_HD OpStatus taken(ChunkCounts& c) {
    c.traversal += static_cast<std::uint32_t>(position_ - start_);
    const bool run_before = in_run() && position_ > run_from_;
    if (took_last_ && !re_enqueue_) {  // DEQUEUE: emptied
      ++c.dequeue;
      return in_run() ? advance(position_ + 1, After::finish) : after(After::finish);
    }
    if (!took_last_ && re_enqueue_) {  // RE_ENQUEUE: pages left that nobody else will publish
      ++c.re_enqueue;
      publish_ = PublishOp<Atomics, Layout>(chunk_, epoch_, k_);
      after_publish_ = run_before ? After::end_run : After::finish;
      phase_ = TakePhase::publish;
      return OpStatus::running;
    }
    ++c.success;  // SUCCESS (also: this lane's up-crossing taken back by its own last take)
    return run_before ? advance(position_, After::finish) : after(After::finish);
  }

  unsigned k_;
  unsigned rotation_;
  TakePhase phase_ = TakePhase::read_front;
  TakeOutcome outcome_ = TakeOutcome::pending;
  std::uint64_t start_ = ~std::uint64_t{0};
  std::uint64_t front_seen_ = 0, back_seen_ = 0, position_ = 0;
  std::uint64_t entry_ = kEmptyEntry;
  std::uint32_t chunk_ = 0, epoch_ = 0, page_ = 0, flags_ = 0;
  std::uint64_t mask_ = 0;
  unsigned word_ = 0, words_seen_ = 0;
  bool took_last_ = false, re_enqueue_ = false;
  After after_publish_ = After::finish, after_pop_ = After::finish;
  PublishOp<Atomics, Layout> publish_;
  ChunkCursor cursor_;  // VA, VL: the Queue-Chunk the walk is on
  Locate locate_;
  TakePhase locate_for_ = TakePhase::read_slot;
  std::uint64_t removed_ = kEmptyEntry;  // what the front remover's exchange took out
  // The run of dead entries read from front ([run_from_, position_); kNoRun: none), and the
  // removals this lane owns after moving front: [rm_position_, rm_to_), the chunk of the one
  // being removed.
  std::uint64_t run_from_ = kNoRun;
  std::uint64_t rm_position_ = 0, rm_to_ = 0;
  std::uint32_t rm_chunk_ = 0;
  typename Layout::Popped popped_;
  EnqueueOp<Atomics> retire_{0};
};

// ---- Running them to their end (sequential and threads modes, GPU) ----

// Runs a reservation; as run_reserve (page_queue.hpp): the wait is abandoned past max_steps.
template <class Atomics, class Layout, class OnSpin>
ALLOCLAB_HD bool run_chunk_reserve(ChunkReserveOp<Atomics, Layout>& op, const ChunkQueues& q,
                                   ChunkCounts& c, std::uint64_t max_steps, OnSpin&& on_spin) {
  std::uint64_t spins = 0;
  while (op.phase() != ChunkReservePhase::done) {
    if (c.ops.memory_ops >= max_steps && op.can_abandon()) {
      op.abandon(q, c);
      break;
    }
    if (op.step(q, c) == OpStatus::spinning && !on_spin(++spins)) return false;
  }
  return true;
}

// Runs a take; past max_steps memory operations the lane gives its unit back (between chunks).
// Returns false when on_spin stopped it (a wait nobody ends: the caller's defect to report).
template <class Atomics, class Layout, class OnSpin>
ALLOCLAB_HD bool run_chunk_take(ChunkTakeOp<Atomics, Layout>& op, const ChunkQueues& q,
                                ChunkCounts& c, std::uint64_t max_steps, OnSpin&& on_spin) {
  std::uint64_t spins = 0;
  while (!op.done()) {
    if (c.ops.memory_ops >= max_steps) op.abandon();
    if (op.step(q, c) == OpStatus::spinning && !on_spin(++spins)) return false;
  }
  return true;
}

}  // namespace alloclab::ouro
