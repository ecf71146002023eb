// Ouroboros variant C (Winter et al., ICS'20, §4.2, Alg. 4-5): one queue of *chunk* indices per
// size class, holding the chunks of that class with free pages; a bulk semaphore per class counts
// the free pages on them. A chunk tracks its pages with a bit mask and a free count
// (chunk_state.hpp); a chunk whose pages are all free again is flashed back to the chunk-reuse
// queue and may be retyped to any class. The operations are step machines, one memory operation
// per step, through the atomics policy `Atomics` (host_atomics.hpp), like variant P's
// (page_queue.hpp), so the simulator can interleave them and the GPU can run them in a loop.
//
// A request is served in two parts, so that a warp can aggregate the semaphore as for variant P:
//   ChunkReserveOp(n)  the leader waits for the group's n pages (growing the queue by a chunk
//                      when it is the grower: a chunk from the reuse queue, else a fresh one);
//   ChunkTakeOp        each lane then walks the queue from its front (Alg. 4 l.6-15) and takes
//                      a page on the first chunk that has one (Alg. 5).
// (ChunkTakeOp is in chunk_page.hpp, the free in chunk_free.hpp.) A free (chunk_free_page) sets the
// page's bit, gives the count back, puts the chunk in the queue if it was empty (the first free)
// and flashes it when it is wholly free.
//
// What alloclab decides where the printed algorithm leaves a race open (each is tested; the
// reasons are in studies/ouroboros/variant-c.md, "Variant C: decisions"):
//  * Who puts a chunk in its queue. The count moves by one per atomic, so its walk crosses from
//    0 to 1 (a free that found 0, Alg. 4 FIRST_FREE; or a thread whose undo found 0, Alg. 5's
//    RE_ENQUEUE) and from 1 to 0 (the taker of the last page, DEQUEUE) one thread at a time.
//    Every thread that makes an up-crossing publishes the chunk unless it takes that page back
//    itself (Alg. 5 l.7: RE_ENQUEUE then last page = SUCCESS). A flag keeps the chunk in the
//    queue at most once, so the ring never holds more entries than there are chunks.
//  * Where a chunk leaves the queue. The paper removes the entry at any position and moves front
//    with atomicMax past it, which can step over live entries between the old front and it.
//    Here front moves (a max) only past entries the moving lane read dead from the front it read
//    (a run: chunk_page.hpp, kFrontRun), and that lane takes them out of their slots; emptied
//    chunks a lane passes without a run wait. The remover clears the flag, then reads the count
//    again and republishes a chunk that was refilled meanwhile.
//  * A flashed chunk (all pages free: the semaphore reduced by the chunk's pages, then the state
//    CAS from "all free" to "none, next epoch") goes to the reuse queue once it is out of its
//    class's queue. If it is in the queue, the flasher takes its entry out where it is (a CAS of
//    the entry, whose position the chunk records, to a hole, which the thread that finds it at
//    front removes), so that a chunk freed in a class nobody allocates from any more is reused
//    (the paper's "removed from the queue"); the one of flasher and front remover that takes
//    the entry out hands the chunk over.
//  * A chunk's epoch (chunk_state.hpp) is in its count's word, its entries and its flags, so a
//    thread acting on a chunk's earlier life cannot take, publish or remove its next one.
//  * A class holds at most class_pages pages (2^20 unless --queue-capacity says otherwise; its
//  semaphore's 21-bit range): a
//    grow past it fails as queue_full, as variant P's ring admission.
//  * A walking lane reads a chunk's count before it subtracts (empty chunks cost no atomics).
//  * Nothing waits without a bound: a walk that finds no page (the chunk that has it is being
//    republished) starts again from front and counts as a spin; the caller's step bound then
//    gives the page back to the semaphore and the request fails (counted).
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/chunk_state.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/op_counts.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"

namespace alloclab::ouro {

// The shared words of one chunk queue, laid out as a page queue's (PageQueueWords,
// page_queue.hpp says why): the semaphore alone in a 256-byte block (one L2 slice), front, back
// and the grow's words in the next one, the hot words each in a 128-byte line of its own.
struct alignas(512) ChunkQueueWords {
  std::uint64_t semaphore = 0;
  alignas(256) std::uint64_t front = 0;  // virtual positions: slot = position mod capacity
  alignas(128) std::uint64_t back = 0;
  std::uint64_t pages = 0;  // pages on the class's chunks (grow admission)
  // VA, VL: the Queue-Chunks the pool keeps for this class's queue (0 before its first grow).
  std::uint64_t queue_chunks = 0;
};

// C's virtualized queues (ouro-c-va, ouro-c-vl; chunk_queue_virtual.hpp): their entries live on
// Queue-Chunks of 1024 eight-byte entries, drawn from the memory manager as page chunks are.
inline constexpr std::uint32_t kChunkQueueEntries = kChunkBytes / 8;  // 1024

// What the classes' virtualized queues share. A Queue-Chunk, once drawn, belongs to the class
// that drew it for good: used up, it goes to that class's spare stack, never back to pages or to
// another class (chunk_queue_virtual.hpp says why).
struct ChunkQueueChunkWords {
  alignas(128) std::uint64_t drawn = 0;  // Queue-Chunks drawn from the memory manager
  std::uint64_t spared = 0;              // of them, on a class's spare stack now
};
struct ChunkQueueChunks {
  QueueChunkMeta* meta = nullptr;     // one per pool chunk: count (pops), next (VL), start
  std::uint64_t* entries = nullptr;   // kChunkQueueEntries per pool chunk: chunk c's at c * 1024
  std::uint64_t* spare = nullptr;     // per class: its spare stack's head, id | tag << 32
  std::uint32_t* words = nullptr;     // per class `words_per_class` static words (VA: references;
  std::uint32_t words_per_class = 0;  // VL: front, back, old and the trail count)
  ChunkQueueChunkWords* counts = nullptr;
  // The Queue-Chunks a class's first grow commits in the pool (chunk_queue_virtual.hpp).
  std::uint32_t reserve_per_class = 0;
};

// Everything the ten classes share: their queues, the chunks' words, and the memory manager
// (fresh chunks from a list, flashed chunks through the reuse queue, Alg. 1).
struct ChunkQueues {
  ChunkQueueWords* words = nullptr;  // one per class
  std::uint64_t* slots[kPageClasses] = {};
  std::uint32_t capacity[kPageClasses] = {};  // at least the pool's chunks (never full)
  ChunkMeta* meta = nullptr;                  // one per chunk of the pool
  std::uint8_t* chunk_class = nullptr;        // one per chunk: its class while typed
  ChunkSourceWords* fresh = nullptr;
  const std::uint32_t* available = nullptr;  // fresh chunk ids, in order
  std::uint32_t available_count = 0;
  IndexQueueRef reuse{};  // flashed chunk ids (32-bit slots)
  // The most pages one class may hold on its chunks: its semaphore counts them, so a grow past
  // this fails as queue_full, as variant P's ring admission (bulk_semaphore.hpp).
  std::uint64_t class_pages = kDefaultQueueCapacity;
  ChunkQueueChunks* virt = nullptr;  // VA and VL only (chunk_queue_virtual.hpp)
};

// What variant C's operations did, beyond the counts every Ouroboros operation has.
struct ChunkCounts {
  OpCounts ops;
  std::uint32_t traversal = 0;   // queue positions passed before the one that served
  std::uint32_t rescans = 0;     // walks that reached back and started again from front
  std::uint32_t success = 0;     // Alg. 5 modes of the pages taken
  std::uint32_t re_enqueue = 0;  //
  std::uint32_t dequeue = 0;     //
  std::uint32_t continues = 0;   // chunks found empty (CONTINUE_TRAVERSAL)
  std::uint32_t stale = 0;       // entries whose chunk had been flashed since they were read
  std::uint32_t pops = 0;        // entries removed from a front
  std::uint32_t published = 0;   // entries written
  std::uint32_t flashes = 0;     // chunks flashed back to the reuse queue
  std::uint32_t reused = 0;      // chunks a grower took from the reuse queue
  // (the Queue-Chunks drawn and recycled, VA and VL, are in ops: OpCounts)
  ALLOCLAB_HD void add(const ChunkCounts& o) {
    ops.add(o.ops);
    traversal += o.traversal;
    rescans += o.rescans;
    success += o.success;
    re_enqueue += o.re_enqueue;
    dequeue += o.dequeue;
    continues += o.continues;
    stale += o.stale;
    pops += o.pops;
    published += o.published;
    flashes += o.flashes;
    reused += o.reused;
  }
};

// Variant C's counts as reported (after OpCounts' kOpCountNames; op_counts.hpp).
inline constexpr unsigned kChunkCountValues = kOpCountValues + 11;
inline constexpr const char* kChunkCountNames[kChunkCountValues] = {
    "sem_cas",   "reserve_spins", "slot_spins", "chunks",     "queue_chunks", "queue_recycled",
    "traversal", "rescans",       "success",    "re_enqueue", "dequeue",      "continue",
    "stale",     "pops",          "published",  "flashes",    "reused"};
ALLOCLAB_HD void chunk_count_values(const ChunkCounts& c, std::uint32_t* out) {
  op_count_values(c.ops, out);
  const std::uint32_t mine[] = {c.traversal, c.rescans,   c.success, c.re_enqueue,
                                c.dequeue,   c.continues, c.stale,   c.pops,
                                c.published, c.flashes,   c.reused};
  for (unsigned i = 0; i < kChunkCountValues - kOpCountValues; ++i)
    out[kOpCountValues + i] = mine[i];
}

// ---- Where a queue's entries live, as a policy type (mallocMC style) ----
// The standard ring (S) here; the virtualized array (VA) and linked (VL) queues of Queue-Chunks
// in chunk_queue_virtual.hpp. A policy names two step machines:
//   Locate  finds the word of position p of class k's queue for one use (EntryUse) and says
//           where it found it (a ChunkCursor, which serves the next positions of a walk), or,
//           for a walk that found no Queue-Chunk there, the first position that may hold an
//           entry (skip_to: the walk passes the positions of a chunk not there in one step);
//   Popped  what follows the removal of the entry at p from front (VA, VL: count it, and give
//           the Queue-Chunk back when that uses it up);
// and covered(q, k, p, cursor), the word of p where the cursor serves it (null otherwise): a walk
// passes a Queue-Chunk's positions with one load each, no locate (whose state a GPU lane would
// copy at every position).
enum class EntryUse : std::uint8_t {
  write,  // a publish (its position is claimed, nothing is there yet): waits for the chunk
  walk,   // a walking lane's read: none there means no entry (not written yet, or gone)
  pop,    // the front remover's exchange: the chunk is there
  hole,   // a flasher's CAS of its entry: none there means the front remover has it
};

// Where a locate found a position: the Queue-Chunk of positions first .. first + 1023.
struct ChunkCursor {
  std::uint64_t first = ~std::uint64_t{0};
  std::uint32_t chunk = kDeletionMarker;
  ALLOCLAB_HD bool covers(std::uint64_t position) const {
    return chunk != kDeletionMarker && position >= first && position - first < kChunkQueueEntries;
  }
};

template <class Atomics>
struct ChunkRing {
  static constexpr bool kVirtual = false;
  static constexpr std::uint32_t kTrail = 0;
  class Locate {
   public:
    ALLOCLAB_HD Locate() = default;
    ALLOCLAB_HD Locate(const ChunkQueues& q, unsigned k, std::uint64_t position, EntryUse,
                       ChunkCursor = {})
        : word_(&q.slots[k][ring_slot(position, q.capacity[k])]) {}
    ALLOCLAB_HD bool done() const { return true; }
    ALLOCLAB_HD bool stale() const { return false; }
    ALLOCLAB_HD std::uint64_t skip_to() const { return 0; }
    ALLOCLAB_HD std::uint64_t* word() const { return word_; }
    ALLOCLAB_HD ChunkCursor cursor() const { return {}; }
    ALLOCLAB_HD OpStatus step(const ChunkQueues&, ChunkCounts&) { return OpStatus::done; }

   private:
    std::uint64_t* word_ = nullptr;
  };
  class Popped {
   public:
    ALLOCLAB_HD Popped() = default;
    ALLOCLAB_HD Popped(unsigned, std::uint64_t, ChunkCursor) {}
    ALLOCLAB_HD bool done() const { return true; }
    ALLOCLAB_HD OpStatus step(const ChunkQueues&, ChunkCounts&) { return OpStatus::done; }
  };
  // The word of `position` without a locate, where the cursor serves it (always, for a ring).
  ALLOCLAB_HD static std::uint64_t* covered(const ChunkQueues& q, unsigned k,
                                            std::uint64_t position, ChunkCursor) {
    return &q.slots[k][ring_slot(position, q.capacity[k])];
  }
  static std::uint32_t words_per_class(std::uint32_t) { return 0; }
};

// ---- Putting a chunk in its class's queue (at most once: the in-queue flag) ----
enum class PublishPhase : std::uint8_t { read_flags, flag, claim, locate, write, record, done };

template <class Atomics, class Layout = ChunkRing<Atomics>>
class PublishOp {
 public:
  ALLOCLAB_HD PublishOp(std::uint32_t chunk = 0, std::uint32_t epoch = 0, unsigned page_class = 0)
      : chunk_(chunk), epoch_(epoch), k_(page_class) {}
  ALLOCLAB_HD PublishPhase phase() const { return phase_; }
  ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
    using M = CountedOps<Atomics>;
    switch (phase_) {
      case PublishPhase::read_flags:
        flags_ = M::load(q.meta[chunk_].flags, c.ops);
        phase_ = PublishPhase::flag;
        return OpStatus::running;
      case PublishPhase::flag: {
        // Already in its queue (its entry serves), flashed, or of another life: nothing to do.
        if (!flags_epoch_is(flags_, epoch_) || (flags_ & (kChunkInQueue | kChunkRetired))) {
          phase_ = PublishPhase::done;
          return OpStatus::done;
        }
        const std::uint32_t old =
            M::cas(q.meta[chunk_].flags, flags_, flags_ | kChunkInQueue, c.ops);
        if (old != flags_) {
          ++c.ops.failed;
          flags_ = old;
          return OpStatus::running;
        }
        phase_ = PublishPhase::claim;
        return OpStatus::running;
      }
      case PublishPhase::claim:
        position_ = M::add(q.words[k_].back, std::uint64_t{1}, c.ops);
        locate_ = typename Layout::Locate(q, k_, position_, EntryUse::write);
        phase_ = locate_.done() ? PublishPhase::write : PublishPhase::locate;
        return OpStatus::running;
      case PublishPhase::locate: {
        const OpStatus s = locate_.step(q, c);
        if (s == OpStatus::done) phase_ = PublishPhase::write;
        return s == OpStatus::spinning ? s : OpStatus::running;
      }
      case PublishPhase::write: {
        // The slot may still hold the entry of the previous lap, whose remover has moved front
        // but not yet emptied the slot (Alg. 1 l.6).
        std::uint64_t& slot = *locate_.word();
        if (M::cas(slot, kEmptyEntry, make_entry(chunk_, epoch_, position_), c.ops) !=
            kEmptyEntry) {
          ++c.ops.failed;
          ++c.ops.slot_spins;
          return OpStatus::spinning;
        }
        ++c.published;
        phase_ = PublishPhase::record;
        return OpStatus::running;
      }
      case PublishPhase::record:  // where the entry is, for a flasher that takes it out
        M::exchange(q.meta[chunk_].position, position_ + 1, c.ops);
        phase_ = PublishPhase::done;
        return OpStatus::done;
      case PublishPhase::done:
        break;
    }
    return OpStatus::done;
  }

 private:
  std::uint32_t chunk_;
  std::uint32_t epoch_;
  unsigned k_;
  PublishPhase phase_ = PublishPhase::read_flags;
  std::uint32_t flags_ = 0;
  std::uint64_t position_ = 0;
  typename Layout::Locate locate_;
};

// The same for variant C's counts.
template <class QueueOp>
ALLOCLAB_HD OpStatus step_index_queue(QueueOp& op, IndexQueueRef q, ChunkCounts& c) {
  return step_index_queue(op, q, c.ops);
}

// ---- The leader's part: wait for n pages, growing the queue by a chunk as the grower ----
enum class ChunkReservePhase : std::uint8_t {
  wait,            // the semaphore (SemaphoreWait steps)
  admit,           // grower: pages += #pages (the class's semaphore must count them all)
  admit_undo,      // full, or no chunk: pages -= #pages, then the grow fails
  reserve,         // VA, VL: the class's Queue-Chunks kept in the pool (none yet: commit them)
  reserve_commit,  // committed += the reserve (more than the pool: reserve_undo, then fail)
  reserve_cas,     // the class's reserve from 0 (lost to another grower: reserve_undo)
  reserve_undo,    // committed -= the reserve
  reuse,           // grower: a chunk from the reuse queue (Alg. 1 dequeue steps)
  commit,          // VA, VL: committed += 1 for a fresh chunk (none left: commit_undo, then fail)
  commit_undo,     // committed -= 1
  fresh,           // none there: next_chunk += 1 and read that chunk's id (or none left)
  set_class,       // the chunk's class
  set_bits,        // every page free: one store per mask word
  read_epoch,      // the chunk's epoch
  set_flags,       // not in a queue, not retired
  fill,            // fence, then count += #pages (an up-crossing: publish)
  publish,         // the chunk into the class's queue (Alg. 4 l.3)
  signal,          // C += #pages, E -= #pages (Alg. 4 l.4)
  done,
};

template <class Atomics, class Layout = ChunkRing<Atomics>>
class ChunkReserveOp {
 public:
  ALLOCLAB_HD ChunkReserveOp(std::uint32_t n, unsigned page_class)
      : k_(page_class),
        per_chunk_(pages_per_chunk(page_class)),
        wait_(n, per_chunk_, SpinExit::covered, FastPath::printed_then_guarded) {}

  ALLOCLAB_HD ChunkReservePhase phase() const { return phase_; }
  ALLOCLAB_HD ReserveOutcome outcome() const { return outcome_; }
  ALLOCLAB_HD bool can_abandon() const { return phase_ == ChunkReservePhase::wait; }

  ALLOCLAB_HD OpStatus step(const ChunkQueues& q, ChunkCounts& c) {
    using M = CountedOps<Atomics>;
    switch (phase_) {
      case ChunkReservePhase::wait: {
        const WaitResult before = wait_.result();
        const WaitStatus s = wait_.step(q.words[k_].semaphore);
        account_wait(before, c.ops);
        if (s == WaitStatus::need_chunk) {
          phase_ = ChunkReservePhase::admit;
          return OpStatus::running;
        }
        if (s == WaitStatus::spinning) return OpStatus::spinning;
        if (s != WaitStatus::done) return OpStatus::running;
        switch (wait_.result().outcome) {
          case WaitOutcome::ok:
            return finish(ReserveOutcome::ok);
          case WaitOutcome::counter_overflow:
            return finish(ReserveOutcome::counter_overflow);
          case WaitOutcome::gave_up:
            return finish(ReserveOutcome::gave_up);
          default:  // the grow failed: grow_failure_ says why
            return finish(grow_failure_);
        }
      }
      case ChunkReservePhase::admit: {
        const std::uint64_t old = M::add(q.words[k_].pages, std::uint64_t{per_chunk_}, c.ops);
        if (old + per_chunk_ > q.class_pages) {
          grow_failure_ = ReserveOutcome::queue_full;
          phase_ = ChunkReservePhase::admit_undo;
        } else {
          begin_reuse();
          if (Layout::kVirtual) phase_ = ChunkReservePhase::reserve;
        }
        return OpStatus::running;
      }
      case ChunkReservePhase::reserve:
        if (M::load(q.words[k_].queue_chunks, c.ops) != 0)
          begin_reuse();
        else
          phase_ = ChunkReservePhase::reserve_commit;
        return OpStatus::running;
      case ChunkReservePhase::reserve_commit: {
        const std::uint64_t r = q.virt->reserve_per_class;
        const std::uint64_t old = M::add(q.fresh->committed, r, c.ops);
        reserve_failed_ = old + r > q.available_count;
        phase_ = reserve_failed_ ? ChunkReservePhase::reserve_undo : ChunkReservePhase::reserve_cas;
        return OpStatus::running;
      }
      case ChunkReservePhase::reserve_cas:
        if (M::cas(q.words[k_].queue_chunks, std::uint64_t{0},
                   std::uint64_t{q.virt->reserve_per_class}, c.ops) == 0) {
          begin_reuse();
        } else {  // another grower committed it first
          ++c.ops.failed;
          phase_ = ChunkReservePhase::reserve_undo;
        }
        return OpStatus::running;
      case ChunkReservePhase::reserve_undo:
        M::add(q.fresh->committed, std::uint64_t{0} - q.virt->reserve_per_class, c.ops);
        if (reserve_failed_) {
          grow_failure_ = ReserveOutcome::out_of_memory;
          phase_ = ChunkReservePhase::admit_undo;
        } else {
          begin_reuse();
        }
        return OpStatus::running;
      case ChunkReservePhase::commit: {
        const std::uint64_t old = M::add(q.fresh->committed, std::uint64_t{1}, c.ops);
        phase_ =
            old + 1 > q.available_count ? ChunkReservePhase::commit_undo : ChunkReservePhase::fresh;
        return OpStatus::running;
      }
      case ChunkReservePhase::commit_undo:
        M::add(q.fresh->committed, ~std::uint64_t{0}, c.ops);
        grow_failure_ = ReserveOutcome::out_of_memory;
        phase_ = ChunkReservePhase::admit_undo;
        return OpStatus::running;
      case ChunkReservePhase::admit_undo:
        M::add(q.words[k_].pages, std::uint64_t{0} - per_chunk_, c.ops);
        wait_.chunk_failed();  // the wait's next step withdraws the promise (E)
        phase_ = ChunkReservePhase::wait;
        return OpStatus::running;
      case ChunkReservePhase::reuse: {
        const OpStatus s = step_index_queue(dequeue_, q.reuse, c);
        if (s != OpStatus::done) return s;
        if (dequeue_.outcome() == QueueOutcome::ok) {
          chunk_ = dequeue_.index();
          ++c.reused;
          phase_ = ChunkReservePhase::set_class;
        } else {
          phase_ = Layout::kVirtual ? ChunkReservePhase::commit : ChunkReservePhase::fresh;
        }
        return OpStatus::running;
      }
      case ChunkReservePhase::fresh: {
        const std::uint64_t nth = M::add(q.fresh->next_chunk, std::uint64_t{1}, c.ops);
        if (nth >= q.available_count) {
          grow_failure_ = ReserveOutcome::out_of_memory;
          phase_ = ChunkReservePhase::admit_undo;
          return OpStatus::running;
        }
        ++c.ops.memory_ops;
        chunk_ = q.available[nth];  // read-only after set-up
        phase_ = ChunkReservePhase::set_class;
        return OpStatus::running;
      }
      case ChunkReservePhase::set_class:
        ++c.ops.memory_ops;
        q.chunk_class[chunk_] = static_cast<std::uint8_t>(k_);
        word_ = 0;
        phase_ = ChunkReservePhase::set_bits;
        return OpStatus::running;
      case ChunkReservePhase::set_bits:
        M::exchange(q.meta[chunk_].bits[word_], full_mask_word(k_), c.ops);
        if (++word_ == mask_words(k_)) phase_ = ChunkReservePhase::read_epoch;
        return OpStatus::running;
      case ChunkReservePhase::read_epoch:  // the chunk's life now (flashes advanced it)
        epoch_ = state_epoch(M::load(q.meta[chunk_].state, c.ops));
        phase_ = ChunkReservePhase::set_flags;
        return OpStatus::running;
      case ChunkReservePhase::set_flags:
        M::exchange(q.meta[chunk_].flags, flags_of_epoch(epoch_), c.ops);
        phase_ = ChunkReservePhase::fill;
        return OpStatus::running;
      case ChunkReservePhase::fill: {
        Atomics::fence();  // class, bits and flags before anyone can see a free page
        const std::uint64_t old = M::add(q.meta[chunk_].state, std::uint64_t{per_chunk_}, c.ops);
        const std::int64_t before = state_free(old);
        if (before <= 0 && before + per_chunk_ > 0) {
          publish_ = PublishOp<Atomics, Layout>(chunk_, state_epoch(old), k_);
          phase_ = ChunkReservePhase::publish;
        } else {  // threads' undos are in flight; the one that crosses publishes
          phase_ = ChunkReservePhase::signal;
        }
        return OpStatus::running;
      }
      case ChunkReservePhase::publish: {
        const OpStatus s = publish_.step(q, c);
        if (s == OpStatus::done) phase_ = ChunkReservePhase::signal;
        return s == OpStatus::spinning ? s : OpStatus::running;
      }
      case ChunkReservePhase::signal:
        ++c.ops.chunks;
        ++c.ops.memory_ops;
        ++c.ops.atomics;
        sem_signal<Atomics>(q.words[k_].semaphore, per_chunk_, per_chunk_);
        wait_.chunk_allocated();  // compete for a page like everyone else
        phase_ = ChunkReservePhase::wait;
        return OpStatus::running;
      case ChunkReservePhase::done:
        break;
    }
    return OpStatus::done;
  }

  ALLOCLAB_HD void abandon(const ChunkQueues& q, ChunkCounts& c) {
    if (!can_abandon()) return;
    const WaitResult before = wait_.result();
    wait_.abandon(q.words[k_].semaphore);
    account_wait(before, c.ops);
    finish(ReserveOutcome::gave_up);
  }

 private:
  ALLOCLAB_HD void begin_reuse() {
    dequeue_ = DequeueOp<Atomics>();
    phase_ = ChunkReservePhase::reuse;
  }
  ALLOCLAB_HD void account_wait(const WaitResult& before, OpCounts& c) {
    ouro::account_wait(before, wait_.result(), c);
  }
  ALLOCLAB_HD OpStatus finish(ReserveOutcome o) {
    outcome_ = o;
    phase_ = ChunkReservePhase::done;
    return OpStatus::done;
  }

  bool reserve_failed_ = false;
  unsigned k_;
  std::uint32_t per_chunk_;
  SemaphoreWait<Atomics> wait_;
  ChunkReservePhase phase_ = ChunkReservePhase::wait;
  ReserveOutcome outcome_ = ReserveOutcome::pending;
  ReserveOutcome grow_failure_ = ReserveOutcome::out_of_memory;
  DequeueOp<Atomics> dequeue_;
  PublishOp<Atomics, Layout> publish_;
  std::uint32_t chunk_ = 0, epoch_ = 0;
  unsigned word_ = 0;
};

}  // namespace alloclab::ouro
