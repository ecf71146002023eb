// Ouroboros variant C, the free of a page (Alg. 4 l.17-22 and the flash of §4.2); the walk and
// the take are in chunk_page.hpp, the decisions in chunk_queue.hpp's header comment.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/chunk_queue.hpp"

namespace alloclab::ouro {

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
  // The page's last user's writes before its bit says free (the taker's acquire pairs with it).
  Atomics::fence_release();
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
