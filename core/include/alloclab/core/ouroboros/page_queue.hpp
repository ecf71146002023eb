// Ouroboros variant P (Winter et al., ICS'20, §4.1, Alg. 3): one queue of page indices per size
// class, its fill count replaced by the bulk semaphore (bulk_semaphore.hpp), over a standard
// array ring (S). The operations are step machines, one memory operation per step, through the
// atomics policy `Atomics` (host_atomics.hpp), so that the CPU simulator can interleave them (its
// sequential, lockstep and threads modes) and the GPU can run them in a loop; no step waits.
//
// A request is served in two parts, so that a warp can aggregate it as the public code does
// (a `match_any` leader takes the units of every lane that asks for the same class):
//   PageReserveOp(n)  the leader: wait(n) on the semaphore (growing the queue by a chunk when it is
//                     the grower), then one atomicAdd on front for n positions (Alg. 3 l.11-12);
//   SlotRead(pos)     each lane: exchange its position's slot with the deletion marker until it
//                     holds an index (l.13-14: the grower or a free may not have written it yet).
// A free is the mirror image: PageReleaseOp(n) signals n pages and takes n positions on back
// (l.17 and Alg. 1 l.5), then each lane's SlotWrite(index, pos) puts its index in (Alg. 1 l.6).
//
// Decisions (where the paper is silent or the public code traps):
//  * The grower signals its chunk before it writes the indices (Alg. 3 l.2-9), as printed: threads
//    it admits may reach a slot before its index lands and spin there (counted).
//  * Queue capacity: Alg. 3 l.2 allocates a chunk only while the queue has spots. Here a grower
//    is admitted by a count of the class's pages ever created (`pages`): if one more chunk's
//    pages would exceed the ring's capacity, the grow fails as out of memory for this class
//    (outcome queue_full). Every page of the class then fits the ring at once, so a free can
//    never find it full (the public code traps there; the paper's l.17 drops the page).
//  * Out of memory: a grower whose chunk allocation fails withdraws its promise (E -= #pages), so
//    no reserver waits for pages that will not come (SemaphoreWait, bulk_semaphore.hpp).
//  * The class of a chunk (1 byte per chunk, written by its grower before it signals) is what a
//    free needs to find the page's queue; the paper keeps it in the chunk's metadata.
// The queue's layout is a policy type (Storage): the standard ring (StaticRing, below) or the
// virtualized queues of §5 (virtual_array_queue.hpp, virtual_linked_queue.hpp), whose grower
// also keeps the class's Queue-Chunk reserve committed (queue_chunk.hpp; the reserve phases).
#pragma once

#include <cstddef>
#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/op_counts.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"

namespace alloclab::ouro {

// The shared words of one page queue; the caller places them (host or device memory) and sets
// `semaphore` to sem_pack({}) (zero counters) before use. A request of a warm queue issues one
// atomic on the semaphore and then one on front (a free: the semaphore, then back), each warp
// leader of the whole GPU on the same two words; cold, thousands of leaders loop on the
// semaphore while each grower adds to `pages` and `back`. So where the words lie decides what
// the GPU can do:
//  * each hot word has a 128-byte line of its own (a GPU serialises the atomics on one line:
//    with the words in one line, 2^20 requests of one class took 0.126 ms on an H200);
//  * the semaphore has a 256-byte block to itself, front and back (with the grow's words) lie
//    in the next one: an H200's L2 keeps both 128-byte lines of a 256-byte block in one slice,
//    whose atomic unit serialises every atomic on them. Measured on an H200 (a probe of the
//    three atomics of a warm request alone, 2^20 requests): front 128 bytes after the semaphore
//    0.064-0.068 ms at every placement of the pair, 256 bytes after 0.036-0.042 ms at each of
//    128 placements; with `pages` in the semaphore's block the growers queued behind the
//    leaders' CAS loop (cold ouro-p-s 13% slower at 16 B). studies/ouroboros/, "Issue 12".
// The struct keeps its 512 bytes.
struct alignas(512) PageQueueWords {
  std::uint64_t semaphore = 0;
  alignas(256) std::uint64_t front = 0;  // virtual positions: slot = position mod capacity
  alignas(128) std::uint64_t back = 0;
  std::uint64_t pages = 0;  // pages of this class created so far (grow admission)
  // Virtualized queues: the pool's chunks committed to this class's Queue-Chunks (at least
  // queue_chunks_reserved(pages); only grows, one chunk per CAS, so that grows that fail cannot
  // leave it short).
  std::uint64_t queue_chunks = 0;
};
static_assert(offsetof(PageQueueWords, front) - offsetof(PageQueueWords, semaphore) == 256 &&
                  offsetof(PageQueueWords, back) == 384 && sizeof(PageQueueWords) == 512,
              "the semaphore and front (back) in different 256-byte blocks (see above)");

// The memory manager's chunks: the next of a list of available chunk ids, taken with a counter
// (P never gives a chunk back). The list is every chunk of an empty pool, or those with no unit
// in use when the pool starts partly used.
struct ChunkSourceWords {
  std::uint64_t next_chunk = 0;
  // Virtualized queues (queue_chunk.hpp): the pool's chunks committed, page chunks and the
  // Queue-Chunks every class keeps; a grow that would commit more than the pool has fails.
  std::uint64_t committed = 0;
};

struct PageQueueRef {
  PageQueueWords* words;
  std::uint32_t* slots;  // `capacity` slots, kDeletionMarker when set up
  std::uint32_t capacity;
  unsigned page_class;
  ChunkSourceWords* chunks;
  const std::uint32_t* available;  // chunk ids the memory manager hands out, in order
  std::uint32_t chunk_count;       // entries of `available`
  std::uint8_t* chunk_class;       // per chunk of the pool: its class, written by its grower
  // Virtualized queues only; null for standard rings (S):
  std::uint32_t* refs = nullptr;     // this class's static words: VA's ring of Queue-Chunk ids,
                                     // VL's pointers (virtual_*_queue.hpp)
  std::uint32_t ref_count = 0;       // their number (the layout's static_words(capacity))
  QueueChunkStore* store = nullptr;  // what every class's Queue-Chunks share
};

enum class ReserveOutcome : std::uint8_t {
  pending,
  ok,                // n positions from position() on are this group's
  out_of_memory,     // no chunk left for the grower this group became
  queue_full,        // the class's ring cannot hold another chunk's pages
  gave_up,           // abandoned at the caller's step bound (nothing held)
  counter_overflow,  // the semaphore's E or R would leave 21 bits (the input checks prevent it)
};

// The slot of virtual position `position`: a mask where the ring is a power of two (the
// default), a division otherwise.
ALLOCLAB_HD std::uint64_t ring_slot(std::uint64_t position, std::uint32_t capacity) {
  return (capacity & (capacity - 1)) == 0 ? position & (capacity - 1) : position % capacity;
}

// Each lane reads its slot: Alg. 3 l.13-14.
template <class Atomics>
class SlotRead {
 public:
  ALLOCLAB_HD explicit SlotRead(std::uint64_t position = 0) : position_(position) {}
  ALLOCLAB_HD bool done() const { return index_ != kDeletionMarker; }
  ALLOCLAB_HD std::uint32_t index() const { return index_; }
  ALLOCLAB_HD OpStatus step(const PageQueueRef& q, OpCounts& c) {
    index_ = CountedOps<Atomics>::exchange(q.slots[ring_slot(position_, q.capacity)],
                                           kDeletionMarker, c);
    if (index_ != kDeletionMarker) return OpStatus::done;
    ++c.failed;
    ++c.slot_spins;
    return OpStatus::spinning;
  }

 private:
  std::uint64_t position_;
  std::uint32_t index_ = kDeletionMarker;
};

// Each lane writes its index: Alg. 1 l.6 (and Alg. 3 l.7 for a grower's pages).
template <class Atomics>
class SlotWrite {
 public:
  ALLOCLAB_HD SlotWrite(std::uint32_t index = kDeletionMarker, std::uint64_t position = 0)
      : index_(index), position_(position) {}
  ALLOCLAB_HD bool done() const { return done_; }
  ALLOCLAB_HD OpStatus step(const PageQueueRef& q, OpCounts& c) {
    if (CountedOps<Atomics>::cas(q.slots[ring_slot(position_, q.capacity)], kDeletionMarker, index_,
                                 c) == kDeletionMarker) {
      done_ = true;
      return OpStatus::done;
    }
    ++c.failed;
    ++c.slot_spins;
    return OpStatus::spinning;
  }

 private:
  std::uint32_t index_;
  std::uint64_t position_;
  bool done_ = false;
};

// Where a queue keeps its items, as a policy type (mallocMC style): the standard ring (S) here,
// the virtualized array (VA) and linked (VL) queues of Queue-Chunks in virtual_array_queue.hpp
// and virtual_linked_queue.hpp. A policy names the lane's read and write of one position and
// says whether the pool keeps Queue-Chunks for it.
// kVirtual: the pool keeps Queue-Chunks for it (queue_chunk.hpp), kTrail more per class (VL);
// static_words(capacity): the 32-bit words of a class's static part (PageQueueRef::slots for S,
// ::refs for the others), every one set to the deletion marker before use.
template <class Atomics>
struct StaticRing {
  using Read = SlotRead<Atomics>;
  using Write = SlotWrite<Atomics>;
  static constexpr bool kVirtual = false;
  static constexpr bool kGroupItems = false;  // VA's aggregated items (virtual_array_queue.hpp)
  static constexpr bool kGroupWalk = false;   // VL's aggregated walk (virtual_linked_queue.hpp)
  static constexpr std::uint32_t kTrail = 0;
  ALLOCLAB_HD static std::uint32_t static_words(std::uint32_t capacity) { return capacity; }
};

enum class ReservePhase : std::uint8_t {
  wait,         // the semaphore (SemaphoreWait steps)
  admit,        // grower: pages += #pages (the ring must hold them)
  admit_undo,   // the ring is full: pages -= #pages, then the grow fails
  reserve,      // virtualized queues: read the class's Queue-Chunks committed; enough for the
                // class's pages with this grow's? commit, else extend
  extend,       // committed += 1 for one more Queue-Chunk of the class (none left: extend_undo)
  extend_cas,   // the class's queue_chunks from the value read to one more (lost: extend_undo)
  extend_undo,  // committed -= 1; then reserve again, or the grow fails as out of memory
  commit,       // committed += 1 for the page chunk
  commit_undo,  // the pool has none left: committed -= 1, then as chunk_undo
  chunk,        // grower: next_chunk += 1 and read that chunk's id (or none left)
  chunk_undo,   // no chunk: pages -= #pages, then the grow fails
  type,         // store the chunk's class
  signal,       // C += #pages, E -= #pages (Alg. 3 l.2)
  claim_back,   // back += #pages (l.4)
  write,        // the grower's pages into their slots, one CAS each (l.5-9)
  take,         // front += n (l.12)
  done,
};

// wait(n) and n front positions for a group of n lanes of one class.
template <class Atomics, class Storage = StaticRing<Atomics>>
class PageReserveOp {
  using Write = typename Storage::Write;

 public:
  ALLOCLAB_HD PageReserveOp(std::uint32_t n, unsigned page_class, SpinExit rule = SpinExit::covered)
      : n_(n),
        per_chunk_(pages_per_chunk(page_class)),
        wait_(n, per_chunk_, rule, FastPath::printed_then_guarded) {}

  ALLOCLAB_HD ReservePhase phase() const { return phase_; }
  ALLOCLAB_HD ReserveOutcome outcome() const { return outcome_; }
  ALLOCLAB_HD std::uint64_t position() const { return position_; }  // outcome ok: the first
  ALLOCLAB_HD WaitRole role() const { return wait_.result().role; }
  // Only a wait can be abandoned: a grower holds a chunk and a promise it must keep, and a group
  // that has taken front positions owns their slots.
  ALLOCLAB_HD bool can_abandon() const { return phase_ == ReservePhase::wait; }

  ALLOCLAB_HD OpStatus step(const PageQueueRef& q, OpCounts& c) {
    PageQueueWords& w = *q.words;
    switch (phase_) {
      case ReservePhase::wait: {
        const WaitResult before = wait_.result();
        const WaitStatus s = wait_.step(w.semaphore);
        account_wait(before, c);
        return after_wait(s);
      }
      case ReservePhase::admit: {
        const std::uint64_t old = rmw_add(w.pages, std::uint64_t{per_chunk_}, c);
        pages_before_ = old;
        phase_ = old + per_chunk_ > q.capacity ? ReservePhase::admit_undo
                 : Storage::kVirtual           ? ReservePhase::reserve
                                               : ReservePhase::chunk;
        return OpStatus::running;
      }
      case ReservePhase::reserve:
        queue_chunks_ = CountedOps<Atomics>::load(w.queue_chunks, c);
        phase_ = queue_chunks_ >= queue_chunks_reserved(pages_before_ + per_chunk_, Storage::kTrail)
                     ? ReservePhase::commit
                     : ReservePhase::extend;
        return OpStatus::running;
      case ReservePhase::extend: {
        const std::uint64_t old = rmw_add(q.chunks->committed, std::uint64_t{1}, c);
        out_of_chunks_ = old + 1 > q.chunk_count;
        phase_ = out_of_chunks_ ? ReservePhase::extend_undo : ReservePhase::extend_cas;
        return OpStatus::running;
      }
      case ReservePhase::extend_cas:
        if (CountedOps<Atomics>::cas(w.queue_chunks, queue_chunks_, queue_chunks_ + 1, c) ==
            queue_chunks_) {
          phase_ = ReservePhase::reserve;
          return OpStatus::running;
        }
        ++c.failed;  // another grower extended first: give ours back, look again
        phase_ = ReservePhase::extend_undo;
        return OpStatus::running;
      case ReservePhase::extend_undo:
        rmw_add(q.chunks->committed, ~std::uint64_t{0}, c);
        phase_ = out_of_chunks_ ? ReservePhase::chunk_undo : ReservePhase::reserve;
        return OpStatus::running;
      case ReservePhase::commit: {
        const std::uint64_t old = rmw_add(q.chunks->committed, std::uint64_t{1}, c);
        phase_ = old + 1 > q.chunk_count ? ReservePhase::commit_undo : ReservePhase::chunk;
        return OpStatus::running;
      }
      case ReservePhase::commit_undo:
        rmw_add(q.chunks->committed, ~std::uint64_t{0}, c);
        phase_ = ReservePhase::chunk_undo;
        return OpStatus::running;
      case ReservePhase::admit_undo:
        rmw_add(w.pages, std::uint64_t{0} - per_chunk_, c);
        return grow_failed(ReserveOutcome::queue_full);
      case ReservePhase::chunk: {
        const std::uint64_t nth = rmw_add(q.chunks->next_chunk, std::uint64_t{1}, c);
        if (nth >= q.chunk_count) {
          phase_ = Storage::kVirtual ? ReservePhase::commit_undo : ReservePhase::chunk_undo;
          return OpStatus::running;
        }
        ++c.memory_ops;
        chunk_ = q.available[nth];  // read-only after set-up: counted as the claim's read
        phase_ = ReservePhase::type;
        return OpStatus::running;
      }
      case ReservePhase::chunk_undo:
        rmw_add(w.pages, std::uint64_t{0} - per_chunk_, c);
        return grow_failed(ReserveOutcome::out_of_memory);
      case ReservePhase::type:
        ++c.memory_ops;
        q.chunk_class[chunk_] = static_cast<std::uint8_t>(q.page_class);
        phase_ = ReservePhase::signal;
        return OpStatus::running;
      case ReservePhase::signal:
        ++c.chunks;
        ++c.memory_ops;
        ++c.atomics;
        sem_signal<Atomics>(w.semaphore, per_chunk_, per_chunk_);
        phase_ = ReservePhase::claim_back;
        return OpStatus::running;
      case ReservePhase::claim_back:
        back_ = rmw_add(w.back, std::uint64_t{per_chunk_}, c);
        written_ = 0;
        writer_ = Write(page_index(static_cast<std::uint32_t>(chunk_), 0, q.page_class), back_);
        phase_ = ReservePhase::write;
        return OpStatus::running;
      case ReservePhase::write: {
        if (writer_.step(q, c) == OpStatus::spinning) return OpStatus::spinning;
        if (!writer_.done()) return OpStatus::running;  // a write of several steps (VA)
        if (++written_ < per_chunk_) {
          writer_ = Write(page_index(static_cast<std::uint32_t>(chunk_), written_, q.page_class),
                          back_ + written_);
          return OpStatus::running;
        }
        wait_.chunk_allocated();  // the grower competes for a page like everyone else
        phase_ = ReservePhase::wait;
        return OpStatus::running;
      }
      case ReservePhase::take:
        position_ = rmw_add(w.front, std::uint64_t{n_}, c);
        return finish(ReserveOutcome::ok);
      case ReservePhase::done:
        break;
    }
    return OpStatus::done;
  }

  // The first step issued by the caller instead of step(): the wait's fast-path subtraction on
  // the semaphore (sem_count_delta(-n) added to q.words->semaphore), which returned `old`; counted
  // as step() counts it. Only before the first step (the GPU inlines a request's first steps,
  // gpu/src/ouro_page.cu; on a hit the next step is `take`).
  ALLOCLAB_HD OpStatus fast_sub_issued(std::uint64_t old, OpCounts& c) {
    const WaitResult before = wait_.result();
    const WaitStatus s = wait_.fast_sub_issued(old);
    account_wait(before, c);
    return after_wait(s);
  }

  // At the caller's step bound, while can_abandon(): undo what the wait holds (at most one atomic).
  ALLOCLAB_HD void abandon(const PageQueueRef& q, OpCounts& c) {
    if (!can_abandon()) return;
    const WaitResult before = wait_.result();
    wait_.abandon(q.words->semaphore);
    account_wait(before, c);
    finish(ReserveOutcome::gave_up);
  }

 private:
  // Where a step of the semaphore wait that returned `s` leads.
  ALLOCLAB_HD OpStatus after_wait(WaitStatus s) {
    if (s == WaitStatus::need_chunk) {
      phase_ = ReservePhase::admit;
      return OpStatus::running;
    }
    if (s == WaitStatus::spinning) return OpStatus::spinning;
    if (s == WaitStatus::done) {
      switch (wait_.result().outcome) {
        case WaitOutcome::ok:
          phase_ = ReservePhase::take;
          return OpStatus::running;
        case WaitOutcome::counter_overflow:
          return finish(ReserveOutcome::counter_overflow);
        case WaitOutcome::gave_up:
          return finish(ReserveOutcome::gave_up);
        default:  // out_of_memory: the grow failed; grow_failure_ says why
          return finish(grow_failure_);
      }
    }
    return OpStatus::running;
  }
  ALLOCLAB_HD OpStatus grow_failed(ReserveOutcome why) {
    grow_failure_ = why;
    wait_.chunk_failed();  // the wait's next step withdraws the promise and ends
    phase_ = ReservePhase::wait;
    return OpStatus::running;
  }
  ALLOCLAB_HD void account_wait(const WaitResult& before, OpCounts& c) {
    ouro::account_wait(before, wait_.result(), c);
  }
  ALLOCLAB_HD std::uint64_t rmw_add(std::uint64_t& word, std::uint64_t delta, OpCounts& c) {
    return CountedOps<Atomics>::add(word, delta, c);
  }
  ALLOCLAB_HD OpStatus finish(ReserveOutcome o) {
    outcome_ = o;
    phase_ = ReservePhase::done;
    return OpStatus::done;
  }

  std::uint32_t n_;
  std::uint32_t per_chunk_;
  SemaphoreWait<Atomics> wait_;
  ReservePhase phase_ = ReservePhase::wait;
  ReserveOutcome outcome_ = ReserveOutcome::pending;
  ReserveOutcome grow_failure_ = ReserveOutcome::out_of_memory;
  std::uint64_t position_ = 0;
  std::uint64_t chunk_ = 0;
  std::uint64_t back_ = 0;
  std::uint64_t pages_before_ = 0;  // the class's pages before this grow (virtualized queues)
  std::uint64_t queue_chunks_ = 0;  // the class's Queue-Chunks committed, as read (virtualized)
  bool out_of_chunks_ = false;      // an extension found the pool committed
  std::uint32_t written_ = 0;
  Write writer_;
};

enum class ReleasePhase : std::uint8_t { signal, claim, done };

// A free of n pages of one class by a group (Alg. 3 l.16-18): signal(n, 0), then n positions on
// back; each lane then writes its index with SlotWrite. Never full (see the admission above).
template <class Atomics>
class PageReleaseOp {
 public:
  ALLOCLAB_HD explicit PageReleaseOp(std::uint32_t n) : n_(n) {}
  ALLOCLAB_HD ReleasePhase phase() const { return phase_; }
  ALLOCLAB_HD std::uint64_t position() const { return position_; }
  ALLOCLAB_HD OpStatus step(const PageQueueRef& q, OpCounts& c) {
    switch (phase_) {
      case ReleasePhase::signal:
        ++c.memory_ops;
        ++c.atomics;
        sem_signal<Atomics>(q.words->semaphore, n_, 0);
        phase_ = ReleasePhase::claim;
        return OpStatus::running;
      case ReleasePhase::claim:
        ++c.memory_ops;
        ++c.atomics;
        position_ = Atomics::fetch_add(q.words->back, std::uint64_t{n_});
        phase_ = ReleasePhase::done;
        return OpStatus::done;
      case ReleasePhase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  std::uint32_t n_;
  ReleasePhase phase_ = ReleasePhase::signal;
  std::uint64_t position_ = 0;
};

// ---- Running the operations to their end (the simulator's sequential and threads modes and the
// GPU kernels; lockstep steps them itself) ----

// Runs a reservation to its end. Its semaphore wait is abandoned (its reservation undone) once the
// operation has issued `max_steps` memory operations, counted in `c`; past the wait the group
// holds a chunk or front positions and must finish. on_spin(spins) runs after each step that
// waited for another thread (a reserver's read, a grower's slot CAS) and returns false to stop:
// a wait nobody will end is the caller's defect to report. Returns false when stopped so.
template <class Atomics, class Storage, class OnSpin>
ALLOCLAB_HD bool run_reserve(PageReserveOp<Atomics, Storage>& op, const PageQueueRef& q,
                             OpCounts& c, std::uint64_t max_steps, OnSpin&& on_spin) {
  std::uint64_t spins = 0;
  while (op.phase() != ReservePhase::done) {
    if (c.memory_ops >= max_steps && op.can_abandon()) {
      op.abandon(q, c);
      break;
    }
    if (op.step(q, c) == OpStatus::spinning && !on_spin(++spins)) return false;
  }
  return true;
}

// Runs a lane's operation on its position (SlotRead, SlotWrite, or the VA ops of several steps)
// to its end; on_spin as above, after the steps that waited for another thread only. `spins`:
// those the operation has waited already (a caller that issued its first step itself).
template <class SlotOp, class OnSpin>
ALLOCLAB_HD bool run_slot(SlotOp& op, const PageQueueRef& q, OpCounts& c, OnSpin&& on_spin,
                          std::uint64_t spins = 0) {
  for (;;) {
    const OpStatus s = op.step(q, c);
    if (s == OpStatus::done) return true;
    if (s == OpStatus::spinning && !on_spin(++spins)) return false;
  }
}

// The release of n pages of one class (signal, then back: Alg. 3 l.17 with Alg. 1 l.5), to its end;
// returns the first of the n back positions, whose slots the lanes then write (run_slot).
template <class Atomics>
ALLOCLAB_HD std::uint64_t run_release(const PageQueueRef& q, std::uint32_t n, OpCounts& c) {
  PageReleaseOp<Atomics> rel(n);
  while (rel.step(q, c) != OpStatus::done) {
  }
  return rel.position();
}

}  // namespace alloclab::ouro
