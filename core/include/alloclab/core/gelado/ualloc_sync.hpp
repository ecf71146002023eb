// The pieces of UAlloc's synchronisation (Gelado & Garland, PPoPP'19 §4.2.1-4.2.2) that its alloc
// and free share, as single steps over plain words through `Atomics`: its counts, the try-lock
// of a mutex word, the critical sections run under a held mutex, and the SRCU reader's entry.
//
// Mutexes (a list's writers, a chunk list, the RCU barrier's) are words, 0 free and 1 held,
// taken by one CAS per step (a step that finds the mutex held reports spinning) and released by
// one exchange. The chunk list's mutex taken here is §4.2.2's collective mutex for a group of
// one; ualloc_chunk_group.hpp takes it once for a warp's group (studies/gelado-garland). A critical
// section below is one step of its machine (its memory operations all counted): nobody else writes
// what it writes while the mutex is held, and the readers it races with (takers walking a list) are
// the ones RCU already allows for.
#pragma once

#include <cstdint>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/gelado/ualloc_layout.hpp"
#include "alloclab/core/gelado/ualloc_state.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

struct UAllocStats {
  std::uint32_t memory_ops = 0;          // loads and atomics on UAlloc's words (TBuddy's: its own)
  std::uint32_t list_nodes = 0;          // free-list nodes a taker read (its counter load)
  std::uint32_t bitmap_probes = 0;       // bitmap words read
  std::uint32_t bit_retries = 0;         // a fetch_or that found its bit set already
  std::uint32_t count_cas_failures = 0;  // a bin counter's CAS that found the word changed
  std::uint32_t sweeps = 0;              // list walks that reached the end without a slot
  std::uint32_t rcu_retries = 0;         // read-side entries undone because the epoch moved
  std::uint32_t refills = 0;             // bins a grower initialised (a batch)
  std::uint32_t chunk_refills = 0;       // chunks taken from TBuddy
  std::uint32_t lock_spins = 0;          // mutex attempts that found it held
  std::uint32_t chunk_locks = 0;         // chunk mutex acquisitions (one a group, §4.2.2)
  std::uint32_t unlinks = 0;             // bins taken off a free list (exhausted or retired)
  std::uint32_t relinks = 0;             // bins put back on a list by a free
  std::uint32_t retires = 0;             // empty bins a free took back from the semaphore
  std::uint32_t retire_failures = 0;     // its try-wait or counter CAS failed: the bin stays
  std::uint32_t barriers = 0;            // full RCU barriers run (epoch flipped, readers drained)
  std::uint32_t delegations = 0;         // conditional barriers that returned at once (§4.2.1)
  std::uint32_t barrier_spins = 0;       // a barrier's waits: for the mutex, for the readers
  std::uint32_t reclaimed = 0;           // bins given back to their chunk by callbacks
  std::uint32_t waits_took = 0, waits_grew = 0, reserves = 0, sem_cas_failures = 0,
                sem_spins = 0;    // the semaphore's wait (bulk_semaphore.hpp)
  std::uint32_t grow_failed = 0;  // a grower found no chunk in TBuddy: out of memory
  std::uint32_t gave_up = 0;      // stopped at the caller's step bound
};

// One try-lock step: CAS 0 -> 1. done: held; spinning: held by another thread.
template <class Atomics>
ALLOCLAB_HD bool ualloc_try_lock(std::uint32_t& m, UAllocStats& s) {
  ++s.memory_ops;
  if (Atomics::cas(m, 0u, 1u) == 0u) return true;
  ++s.lock_spins;
  return false;
}
template <class Atomics>
ALLOCLAB_HD void ualloc_unlock(std::uint32_t& m, UAllocStats& s) {
  ++s.memory_ops;
  Atomics::exchange(m, 0u);
}

// Under list li's mutex: put bin g at the head of the list (its count word gets L, loses P).
template <class Atomics>
ALLOCLAB_HD void ualloc_link(const UAllocView& v, std::uint32_t li, std::uint32_t g,
                             UAllocStats& s) {
  std::uint32_t w = Atomics::load(v.bin_count[g]);
  ++s.memory_ops;
  for (;;) {  // a reader still on the bin may decrement it meanwhile
    const std::uint32_t old = Atomics::cas(v.bin_count[g], w, (w & ~kBinPending) | kBinListed);
    ++s.memory_ops;
    if (old == w) break;
    w = old;
  }
  Atomics::exchange(v.bin_next[g], Atomics::load(v.heads[li]));
  Atomics::exchange(v.heads[li], g);
  s.memory_ops += 3;
  ++s.relinks;
}

// Under list li's mutex: take bin g off the list if it is on it (the unlinking thread decided
// from its count word; `expect` is the word it must still hold, L included, else nothing
// happens). The bin's own link stays, so a reader standing on it walks on (RCU). True: unlinked.
template <class Atomics>
ALLOCLAB_HD bool ualloc_unlink(const UAllocView& v, std::uint32_t li, std::uint32_t g,
                               std::uint32_t expect, std::uint32_t after, UAllocStats& s) {
  ++s.memory_ops;
  if (Atomics::cas(v.bin_count[g], expect, after) != expect) return false;
  const std::uint32_t next = Atomics::load(v.bin_next[g]);
  std::uint32_t p = Atomics::load(v.heads[li]);
  s.memory_ops += 2;
  if (p == g) {
    Atomics::exchange(v.heads[li], next);
  } else {
    for (;;) {  // L was set, so g is on this list: the walk finds it
      const std::uint32_t q = Atomics::load(v.bin_next[p]);
      ++s.memory_ops;
      if (q == g) break;
      p = q;
    }
    Atomics::exchange(v.bin_next[p], next);
  }
  ++s.memory_ops;
  ++s.unlinks;
  return true;
}

// Under arena a's chunk mutex: take a free bin from the first chunk of the list (popping the
// chunk once it is full). Returns the global bin, or kNoBin when the list is empty.
template <class Atomics>
ALLOCLAB_HD std::uint32_t ualloc_take_bin(const UAllocView& v, std::uint32_t a, UAllocStats& s) {
  const std::uint32_t c = Atomics::load(v.chunk_heads[a]);
  ++s.memory_ops;
  if (c == kNoBin) return kNoBin;
  for (std::uint32_t w = 0; w < 2; ++w) {
    const std::uint64_t word = Atomics::load(v.chunk_bins[2 * c + w]);
    ++s.memory_ops;
    if (word == ~std::uint64_t{0}) continue;
    const std::uint32_t b = static_cast<std::uint32_t>(bits::count_trailing_zeros(~word));
    Atomics::fetch_or(v.chunk_bins[2 * c + w], std::uint64_t{1} << b);
    const std::uint64_t other = Atomics::load(v.chunk_bins[2 * c + 1 - w]);
    s.memory_ops += 2;
    if ((word | (std::uint64_t{1} << b)) == ~std::uint64_t{0} && other == ~std::uint64_t{0}) {
      Atomics::exchange(v.chunk_heads[a], Atomics::load(v.chunk_next[c]));  // full: pop it
      s.memory_ops += 2;
    }
    return (c << v.chunk_order) + w * 64 + b;
  }
  return kNoBin;  // unreachable: a listed chunk has a free bin (the checker's rule)
}

// Under arena a's chunk mutex: a chunk fresh from TBuddy, its special bins marked, on the list.
template <class Atomics>
ALLOCLAB_HD void ualloc_add_chunk(const UAllocView& v, std::uint32_t a, std::uint32_t c,
                                  UAllocStats& s) {
  Atomics::exchange(v.chunk_bins[2 * c], std::uint64_t{(1u << kUAllocSpecialBins) - 1});
  Atomics::exchange(v.chunk_bins[2 * c + 1], v.chunk_order == 6 ? ~std::uint64_t{0} : 0);
  Atomics::exchange(v.chunk_arena[c], a);
  Atomics::exchange(v.chunk_next[c], Atomics::load(v.chunk_heads[a]));
  Atomics::exchange(v.chunk_heads[a], c);
  s.memory_ops += 6;
  ++s.chunk_refills;
}

// Under arena a's chunk mutex: bin g (retired, no reader left on it) back to its chunk; the
// chunk goes back on the list if it was full.
template <class Atomics>
ALLOCLAB_HD void ualloc_reclaim(const UAllocView& v, std::uint32_t a, std::uint32_t g,
                                UAllocStats& s) {
  const std::uint32_t c = g >> v.chunk_order, b = g & (v.bins_per_chunk() - 1);
  const std::uint64_t w0 = Atomics::load(v.chunk_bins[2 * c]);
  const std::uint64_t w1 = Atomics::load(v.chunk_bins[2 * c + 1]);
  Atomics::exchange(v.bin_class[g], kNoBin);
  Atomics::fetch_and(v.chunk_bins[2 * c + b / 64], ~(std::uint64_t{1} << (b % 64)));
  s.memory_ops += 4;
  if (w0 == ~std::uint64_t{0} && w1 == ~std::uint64_t{0}) {
    Atomics::exchange(v.chunk_next[c], Atomics::load(v.chunk_heads[a]));
    Atomics::exchange(v.chunk_heads[a], c);
    s.memory_ops += 3;
  }
  ++s.reclaimed;
}

// A grower's new bin g of class k for arena a, private until linked: its header written, slot 0
// its own, the rest free. Returns the bin's slots.
template <class Atomics>
ALLOCLAB_HD std::uint32_t ualloc_init_bin(const UAllocView& v, std::uint32_t a, std::uint32_t g,
                                          std::uint32_t k, UAllocStats& s) {
  const std::uint32_t slots = ualloc_slots(k, g & (v.bins_per_chunk() - 1));
  for (std::uint32_t w = 0; w < kUAllocBitmapWords; ++w)
    Atomics::exchange(v.bin_bitmap[std::uint64_t{g} * kUAllocBitmapWords + w],
                      ualloc_fresh_bitmap_word(slots, w) | (w == 0 ? 1u : 0u));
  Atomics::exchange(v.bin_class[g], k);
  Atomics::exchange(v.bin_arena[g], a);
  Atomics::exchange(v.bin_count[g], slots - 1);
  s.memory_ops += kUAllocBitmapWords + 3;
  ++s.refills;
  return slots;
}

}  // namespace alloclab::gelado
