// Ouroboros variant C, the pages: a lane's walk of its class's chunk queue and its take of a page
// (Alg. 4 l.6-15 with Alg. 5), and the free of a page (Alg. 4 l.17-22 and the flash of §4.2).
// The decisions these follow are in chunk_queue.hpp's header comment.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/chunk_queue.hpp"

namespace alloclab::ouro {

enum class TakePhase : std::uint8_t {
  read_front,      // start (or start again) at front
  read_back,       // where the queue ends now
  read_slot,       // the entry at this position (Alg. 4 l.7)
  locate,          // VA, VL: the Queue-Chunk of the position (Layout::Locate steps)
  peek,            // the count read first: an empty or flashed chunk is passed without atomics
  sub,             // count -= 1 (Alg. 5 l.2)
  undo,            // count += 1 after a miss (l.3)
  stale_undo,      // the chunk was flashed since the entry was read: give the page back
  stale_class,     // ... and that give-back made an up-crossing: the chunk's class now
  scan_load,       // a mask word (l.9)
  scan_and,        // clear a set bit of it (l.11)
  publish,         // RE_ENQUEUE, a refilled chunk after a pop, or a stale up-crossing
  pop_front,       // front -> front + 1 (the entry at front is empty or was just emptied)
  pop_slot,        // take the entry out of its slot
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

// One lane's page, once its group holds a unit of the semaphore for it. `rotation` spreads the
// lanes of a warp over the mask (pick_set_bit) and the mask words.
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
           phase_ == TakePhase::read_slot;
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
        // is being put back in the queue. Walk again from front.
        ++c.rescans;
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
        if (!entry_is_for(e, position_)) return next();  // not written yet, or removed
        entry_ = e;
        if (entry_is_hole(e)) return pop_or_walk_on();
        chunk_ = entry_chunk(e);
        re_enqueue_ = false;
        phase_ = TakePhase::peek;
        return OpStatus::running;
      }
      case TakePhase::peek: {
        // Alg. 5 subtracts first; under a GPU's thousands of walking lanes that is two atomics on
        // every empty chunk passed. A read first passes those with none (the subtraction below
        // still decides, and its races are Alg. 5's).
        const std::uint64_t s = M::load(q.meta[chunk_].state, c.ops);
        if (!entry_epoch_is(entry_, state_epoch(s))) {
          ++c.stale;
          return pop_or_walk_on();
        }
        if (state_free(s) <= 0) {
          ++c.continues;
          return pop_or_walk_on();
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
          return pop_or_walk_on();
        }
        if (before == 0) re_enqueue_ = true;  // this undo made the page visible: l.5
        phase_ = TakePhase::sub;              // try again (l.1)
        ++c.ops.failed;
        return OpStatus::running;
      }
      case TakePhase::stale_undo: {
        // A flashed chunk whose entry is still at front is this lane's to remove (the remover
        // hands it to the reuse queue); otherwise its entry is gone and the lane walks on.
        const After then = position_ == front_seen_ ? After::pop_and_walk_on : After::walk_on;
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
        return taken(c);
      }
      case TakePhase::publish: {
        const OpStatus s = publish_.step(q, c);
        if (s != OpStatus::done) return s;
        return after(after_publish_);
      }
      case TakePhase::pop_front: {
        const std::uint64_t now = M::cas(w.front, position_, position_ + 1, c.ops);
        if (now != position_) {
          // Another lane moved front: every position before it has been taken out (a chunk with
          // pages there was put back at the end by its remover), so a walking lane goes on from
          // front rather than pass each of them.
          ++c.ops.failed;
          front_seen_ = now;
          if (after_pop_ != After::finish && now > position_ + 1) position_ = now - 1;
          return after(after_pop_);
        }
        ++c.pops;
        front_seen_ = position_ + 1;
        phase_ = TakePhase::pop_slot;
        return OpStatus::running;
      }
      case TakePhase::pop_slot: {
        std::uint64_t* word = Layout::covered(q, k_, position_, cursor_);
        if (!word) {
          locate_ = Locate(q, k_, position_, EntryUse::pop, cursor_);
          if (!locate_.done()) return begin_locate(q, c, TakePhase::pop_slot);
          word = locate_.word();
          cursor_ = locate_.cursor();
        }
        removed_ = M::exchange(*word, kEmptyEntry, c.ops);
        if (Layout::kVirtual) {
          popped_ = typename Layout::Popped(k_, position_, cursor_);
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
        M::cas(q.meta[chunk_].position, position_ + 1, std::uint64_t{0}, c.ops);
        phase_ = TakePhase::pop_read_flags;
        return OpStatus::running;
      case TakePhase::pop_read_flags:
        flags_ = M::load(q.meta[chunk_].flags, c.ops);
        phase_ = TakePhase::pop_flags;
        return OpStatus::running;
      case TakePhase::pop_flags: {
        if (!entry_epoch_is(entry_, flags_ >> 16)) return after(after_pop_);  // another life
        const std::uint32_t old =
            M::cas(q.meta[chunk_].flags, flags_, flags_ & ~kChunkInQueue, c.ops);
        if (old != flags_) {
          ++c.ops.failed;
          flags_ = old;
          return OpStatus::running;
        }
        if (old & kChunkRetired) {
          retire_ = EnqueueOp<Atomics>(chunk_);
          phase_ = TakePhase::retire;
        } else {
          phase_ = TakePhase::pop_recheck;
        }
        return OpStatus::running;
      }
      case TakePhase::pop_recheck: {
        const std::uint64_t s = M::load(q.meta[chunk_].state, c.ops);
        if (entry_epoch_is(entry_, state_epoch(s)) && state_free(s) > 0) {
          publish_ = PublishOp<Atomics, Layout>(chunk_, state_epoch(s), k_);
          after_publish_ = after_pop_;
          phase_ = TakePhase::publish;
          return OpStatus::running;
        }
        return after(after_pop_);
      }
      case TakePhase::retire: {
        const OpStatus s = step_index_queue(retire_, q.reuse, c);
        if (s != OpStatus::done) return s;
        return after(after_pop_);
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
  enum class After : std::uint8_t { walk_on, pop_and_walk_on, finish };

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
  // A hole, or an entry a flasher turned into one since it was read: nothing more to do.
  ALLOCLAB_HD OpStatus after_removal() {
    if (removed_ != entry_ || entry_is_hole(entry_)) return after(after_pop_);
    phase_ = TakePhase::pop_position;
    return OpStatus::running;
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
  // An empty chunk, a hole or a flashed chunk's entry: a lane at the front it last saw takes it
  // out (and, when another lane moved front first, goes on from there); others walk on.
  ALLOCLAB_HD OpStatus pop_or_walk_on() { return position_ == front_seen_ ? pop(false) : next(); }
  ALLOCLAB_HD OpStatus pop(bool finished) {
    after_pop_ = finished ? After::finish : After::walk_on;
    phase_ = TakePhase::pop_front;
    return OpStatus::running;
  }
  ALLOCLAB_HD OpStatus after(After a) {
    if (a == After::walk_on) return next();
    if (a == After::pop_and_walk_on) return pop(false);
    outcome_ = TakeOutcome::ok;
    phase_ = TakePhase::done;
    return OpStatus::done;
  }
  // Alg. 5 l.6-8: what taking this page means for the chunk's place in the queue.
  ALLOCLAB_HD OpStatus taken(ChunkCounts& c) {
    c.traversal += static_cast<std::uint32_t>(position_ - start_);
    if (took_last_ && !re_enqueue_) {  // DEQUEUE: emptied; removed here if it is at front
      ++c.dequeue;
      if (position_ == front_seen_) return pop(true);
      return after(After::finish);
    }
    if (!took_last_ && re_enqueue_) {  // RE_ENQUEUE: pages left that nobody else will publish
      ++c.re_enqueue;
      publish_ = PublishOp<Atomics, Layout>(chunk_, epoch_, k_);
      after_publish_ = After::finish;
      phase_ = TakePhase::publish;
      return OpStatus::running;
    }
    ++c.success;  // SUCCESS (also: this lane's up-crossing taken back by its own last take)
    return after(After::finish);
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

enum class ChunkFreeOutcome : std::uint8_t { ok, flashed, double_free, stopped };

// Frees page `page` of chunk `chunk` (Alg. 4 l.17-22): set its bit, give the count back, put the
// chunk in the queue if this free made its first page visible (FIRST_FREE), flash it if every
// page is free now (§4.2: reduce the semaphore by a chunk's pages, CAS the count from all to
// none), else signal the page. on_spin as for run_slot.
template <class Atomics, class Layout = ChunkRing<Atomics>, class OnSpin>
ALLOCLAB_HD ChunkFreeOutcome chunk_free_page(const ChunkQueues& q, std::uint32_t chunk,
                                             std::uint32_t page, ChunkCounts& c, OnSpin&& on_spin) {
  using M = CountedOps<Atomics>;
  const unsigned k = M::load(q.chunk_class[chunk], c.ops);
  const std::uint32_t pages = pages_per_chunk(k);
  ChunkMeta& m = q.meta[chunk];
  const std::uint64_t bit = std::uint64_t{1} << (page % 64);
  if (M::fetch_or(m.bits[page / 64], bit, c.ops) & bit) return ChunkFreeOutcome::double_free;
  const std::uint64_t old = M::add(m.state, kStateGiveOne, c.ops);
  const std::uint32_t epoch = state_epoch(old);
  std::uint32_t signal = 1;
  if (state_free(old) + 1 == pages) {
    // Take the chunk's other pages off the semaphore (this one was never signalled); only
    // while nobody counts on them (C >= pages - 1), a few tries.
    bool reduced = pages == 1;
    std::uint64_t seen = M::load(q.words[k].semaphore, c.ops);
    for (unsigned attempt = 0; !reduced && attempt < 4; ++attempt) {
      if (sem_unpack(seen).count < static_cast<std::int64_t>(pages - 1)) break;
      ++c.ops.sem_cas;
      const std::uint64_t want = seen + sem_count_delta(-static_cast<std::int32_t>(pages - 1));
      const std::uint64_t got = M::cas(q.words[k].semaphore, seen, want, c.ops);
      reduced = got == seen;
      if (!reduced) ++c.ops.failed;
      seen = got;
    }
    if (reduced) {
      const std::uint64_t full = chunk_state(epoch, pages);
      if (M::cas(m.state, full, chunk_state(epoch + 1, 0), c.ops) == full) {
        ++c.flashes;
        M::add(q.words[k].pages, std::uint64_t{0} - pages, c.ops);  // gone from the class
        if (M::fetch_or(m.flags, kChunkRetired, c.ops) & kChunkInQueue) {
          // Its entry: take it out where it is, unless a front remover gets it first (that one
          // then sees the retired flag and hands the chunk over). Until the entry's position is
          // recorded, its publisher (or a remover between its two stores) is still running.
          for (std::uint64_t spins = 0;;) {
            const std::uint64_t at = M::load(m.position, c.ops);
            if (at != 0) {
              const std::uint64_t pos = at - 1;
              const std::uint64_t e = make_entry(chunk, epoch, pos);
              typename Layout::Locate where(q, k, pos, EntryUse::hole);
              for (std::uint64_t waits = 0; !where.done();)
                if (where.step(q, c) == OpStatus::spinning && !on_spin(++waits))
                  return ChunkFreeOutcome::stopped;
              if (!where.word() || M::cas(*where.word(), e, make_hole(pos), c.ops) != e)
                return ChunkFreeOutcome::flashed;  // the front remover has it
              M::exchange(m.position, std::uint64_t{0}, c.ops);
              M::fetch_and(m.flags, ~kChunkInQueue, c.ops);
              break;
            }
            if (!(M::load(m.flags, c.ops) & kChunkInQueue)) return ChunkFreeOutcome::flashed;
            if (!on_spin(++spins)) return ChunkFreeOutcome::stopped;
          }
        }
        EnqueueOp<Atomics> retire(chunk);
        for (std::uint64_t spins = 0;;) {
          const OpStatus s = step_index_queue(retire, q.reuse, c);
          if (s == OpStatus::done) break;
          if (s == OpStatus::spinning && !on_spin(++spins)) return ChunkFreeOutcome::stopped;
        }
        return ChunkFreeOutcome::flashed;
      }
      signal = pages;  // a lane took a page meanwhile: give the reduction back with this page
    }
  }
  if (state_free(old) == 0) {  // FIRST_FREE: this free made a page of an empty chunk visible
    PublishOp<Atomics, Layout> publish(chunk, epoch, k);
    for (std::uint64_t spins = 0;;) {
      const OpStatus s = publish.step(q, c);
      if (s == OpStatus::done) break;
      if (s == OpStatus::spinning && !on_spin(++spins)) return ChunkFreeOutcome::stopped;
    }
  }
  ++c.ops.memory_ops;
  ++c.ops.atomics;
  sem_signal<Atomics>(q.words[k].semaphore, signal, 0);
  return ChunkFreeOutcome::ok;
}

}  // namespace alloclab::ouro
