// UAlloc's shared state as plain words (Gelado & Garland, PPoPP'19 §4.2), a view that the CPU
// simulator and the GPU pass around like TBuddyTree, its host storage and the checker of what
// holds at rest.
//
// Per arena (one per SM on the GPU; the simulator's --arenas) and size class:
//   sems   the bulk semaphore of the class's bin free list: C = free slots the list's bins offer
//   heads  the first bin of the list (kNoBin: empty); locks: the list writers' mutex (§4.2.1)
// Per arena:
//   chunk_heads / chunk_locks  the chunks with a free bin, and the chunk list's mutex (§4.2.2)
//   rcu: epoch, readers[2] (current and previous epoch), state (bit 0: the barrier mutex is held,
//        bit 1: a barrier waits to take it over), callbacks (bins waiting to be given back)
// Per chunk c (its first TBuddy page / pages per chunk): chunk_bins (2 words: the bins in use;
// bins 0 and 1 always), chunk_next (its link in the chunk list).
// Per bin g = c x bins per chunk + b, the words of its 128 B header (on the GPU they live in the
// bin itself; here in arrays): bitmap (8 x 64 bits), count (ualloc_layout.hpp: free slots and
// the L / P flags), next (free-list link), klass (its size class, kNoBin while unused), arena,
// rcu_next (its link in the callback stack).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/srcu.hpp"
#include "alloclab/core/gelado/tbuddy_tree.hpp"
#include "alloclab/core/gelado/ualloc_layout.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

static_assert(kNoBin == kSrcuNone, "a bin's callback link ends where the SRCU stack does");

struct UAllocView {
  TBuddyTree buddy;               // the pool's 4 KB pages
  std::uint32_t chunk_order = 6;  // log2(bins per chunk): 6 (256 KB) or 7 (512 KB)
  std::uint32_t arenas = 1;
  std::uint64_t* sems = nullptr;           // arenas x classes
  std::uint32_t* heads = nullptr;          // arenas x classes
  std::uint32_t* locks = nullptr;          // arenas x classes
  std::uint32_t* chunk_heads = nullptr;    // arenas
  std::uint32_t* chunk_locks = nullptr;    // arenas
  std::uint32_t* rcu_epoch = nullptr;      // arenas
  std::uint32_t* rcu_readers = nullptr;    // 2 x arenas
  std::uint32_t* rcu_state = nullptr;      // arenas
  std::uint32_t* rcu_callbacks = nullptr;  // arenas
  std::uint64_t* chunk_bins = nullptr;     // 2 x chunks
  std::uint32_t* chunk_next = nullptr;     // chunks
  std::uint32_t* chunk_arena = nullptr;    // chunks: the arena that took it (kNoBin: none)
  std::uint64_t* bin_bitmap = nullptr;     // 8 x bins
  std::uint32_t* bin_count = nullptr;
  std::uint32_t* bin_next = nullptr;
  std::uint32_t* bin_class = nullptr;
  std::uint32_t* bin_arena = nullptr;
  std::uint32_t* bin_rcu_next = nullptr;

  ALLOCLAB_HD std::uint32_t bins_per_chunk() const { return 1u << chunk_order; }
  // Arena a's SRCU words (srcu.hpp); a bin's callback link is its header's rcu_next.
  ALLOCLAB_HD SrcuDomain srcu(std::uint32_t a) const {
    return {rcu_epoch + a, rcu_readers + 2 * a, rcu_state + a, rcu_callbacks + a, bin_rcu_next};
  }
  ALLOCLAB_HD std::uint32_t list(std::uint32_t arena, std::uint32_t k) const {
    return arena * kUAllocClasses + k;
  }
  ALLOCLAB_HD std::uint64_t chunk_bytes() const {
    return std::uint64_t{kUAllocBinBytes} << chunk_order;
  }
};

// Host storage for a pool of 2^height pages of 4 KB.
struct UAllocStorage {
  TBuddyStorage buddy;
  std::vector<std::uint64_t> sems;
  std::vector<std::uint32_t> heads, locks, chunk_heads, chunk_locks, rcu_epoch, rcu_readers,
      rcu_state, rcu_callbacks, chunk_next, chunk_arena, bin_count, bin_next, bin_class, bin_arena,
      bin_rcu_next;
  std::vector<std::uint64_t> chunk_bins, bin_bitmap;
  UAllocView view;

  UAllocStorage(std::uint32_t height, std::uint32_t chunk_order, std::uint32_t arenas)
      : buddy(height) {
    const std::size_t lists = std::size_t{arenas} * kUAllocClasses;
    const std::size_t chunks = height >= chunk_order ? std::size_t{1} << (height - chunk_order) : 0;
    const std::size_t bins = chunks << chunk_order;
    sems.assign(lists, 0);
    heads.assign(lists, kNoBin);
    locks.assign(lists, 0);
    chunk_heads.assign(arenas, kNoBin);
    chunk_locks.assign(arenas, 0);
    rcu_epoch.assign(arenas, 0);
    rcu_readers.assign(2 * std::size_t{arenas}, 0);
    rcu_state.assign(arenas, 0);
    rcu_callbacks.assign(arenas, kNoBin);
    chunk_bins.assign(2 * chunks, 0);
    chunk_next.assign(chunks, kNoBin);
    chunk_arena.assign(chunks, kNoBin);
    bin_bitmap.assign(kUAllocBitmapWords * bins, 0);
    bin_count.assign(bins, 0);
    bin_next.assign(bins, kNoBin);
    bin_class.assign(bins, kNoBin);
    bin_arena.assign(bins, kNoBin);
    bin_rcu_next.assign(bins, kNoBin);
    view.buddy = buddy.tree;
    view.chunk_order = chunk_order;
    view.arenas = arenas;
    view.sems = sems.data();
    view.heads = heads.data();
    view.locks = locks.data();
    view.chunk_heads = chunk_heads.data();
    view.chunk_locks = chunk_locks.data();
    view.rcu_epoch = rcu_epoch.data();
    view.rcu_readers = rcu_readers.data();
    view.rcu_state = rcu_state.data();
    view.rcu_callbacks = rcu_callbacks.data();
    view.chunk_bins = chunk_bins.data();
    view.chunk_next = chunk_next.data();
    view.chunk_arena = chunk_arena.data();
    view.bin_bitmap = bin_bitmap.data();
    view.bin_count = bin_count.data();
    view.bin_next = bin_next.data();
    view.bin_class = bin_class.data();
    view.bin_arena = bin_arena.data();
    view.bin_rcu_next = bin_rcu_next.data();
  }
  UAllocStorage(const UAllocStorage&) = delete;
  UAllocStorage& operator=(const UAllocStorage&) = delete;
};

// What holds at rest (no operation in flight), beside TBuddy's own checker, over `chunks`
// chunks. Returns "" or the first violation:
// no mutex held, no reader inside, no barrier or callback pending; every list holds bins of its
// arena and class, each once, each listed (L) and not pending (P); every bin marked L is on its
// list; every bin in use has as many free slots in its count as zero bits in its bitmap's valid
// slots, and its chunk marks it; every bin its chunk does not mark is unused; each semaphore is
// (the sum of its list's counts, 0, 0); a chunk is on its arena's chunk list exactly when it has
// a free bin.
inline std::string ualloc_check(const UAllocView& v, std::size_t chunks) {
  const std::uint32_t bins = v.bins_per_chunk();
  const std::uint32_t* chunk_owner = v.chunk_arena;
  std::vector<std::uint8_t> on_list(chunks * bins, 0), chunk_listed(chunks, 0);
  auto bin_name = [&](std::size_t g) {
    return "bin " + std::to_string(g % bins) + " of chunk " + std::to_string(g / bins);
  };
  for (std::uint32_t a = 0; a < v.arenas; ++a) {
    if (v.chunk_locks[a] || v.rcu_state[a] || v.rcu_readers[2 * a] || v.rcu_readers[2 * a + 1])
      return "arena " + std::to_string(a) + ": a mutex is held or a reader is inside at rest";
    if (v.rcu_callbacks[a] != kNoBin) return "arena " + std::to_string(a) + ": callbacks pending";
    for (std::uint32_t k = 0; k < kUAllocClasses; ++k) {
      const std::uint32_t li = v.list(a, k);
      if (v.locks[li]) return "a list mutex is held at rest";
      std::uint64_t sum = 0;
      std::size_t n = 0;
      for (std::uint32_t g = v.heads[li]; g != kNoBin; g = v.bin_next[g]) {
        if (g >= chunks * bins || ++n > chunks * bins) return "a free list is not a list";
        if (on_list[g]) return bin_name(g) + " is on a free list twice";
        on_list[g] = 1;
        if (v.bin_class[g] != k || v.bin_arena[g] != a)
          return bin_name(g) + " is on the list of another arena or class";
        if ((v.bin_count[g] & (kBinListed | kBinPending)) != kBinListed)
          return bin_name(g) + " is on its list without L, or with P";
        sum += bin_count(v.bin_count[g]);
      }
      const SemCounters c = BulkWord::unpack(v.sems[li]);
      if (c.count != static_cast<std::int64_t>(sum) || c.expected != 0 || c.reserved != 0)
        return "arena " + std::to_string(a) + " class " + std::to_string(k) + ": semaphore (" +
               std::to_string(c.count) + ", " + std::to_string(c.expected) + ", " +
               std::to_string(c.reserved) + ") but its list offers " + std::to_string(sum);
    }
    std::size_t n = 0;
    for (std::uint32_t c = v.chunk_heads[a]; c != kNoBin; c = v.chunk_next[c]) {
      if (c >= chunks || ++n > chunks) return "a chunk list is not a list";
      if (chunk_owner[c] != a || chunk_listed[c])
        return "chunk " + std::to_string(c) + " misplaced";
      chunk_listed[c] = 1;
    }
  }
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t w0 = v.chunk_bins[2 * c], w1 = v.chunk_bins[2 * c + 1];
    if (chunk_owner[c] == kNoBin) {
      if (chunk_listed[c]) return "chunk " + std::to_string(c) + " is listed but not taken";
      continue;
    }
    const bool full = w0 == ~std::uint64_t{0} && w1 == ~std::uint64_t{0};
    if (full == bool(chunk_listed[c]))
      return "chunk " + std::to_string(c) +
             (full ? " is full but listed" : " has a free bin but is not listed");
    for (std::uint32_t b = 0; b < bins; ++b) {
      const std::size_t g = c * bins + b;
      const bool used = (((b < 64 ? w0 : w1) >> (b % 64)) & 1u) != 0;
      if (b < kUAllocSpecialBins) {
        if (!used) return "chunk " + std::to_string(c) + ": a special bin is not marked";
        continue;
      }
      const std::uint32_t k = v.bin_class[g];
      if (!used) {
        if (k != kNoBin) return bin_name(g) + " has a class but its chunk says it is free";
        continue;
      }
      if (k >= kUAllocClasses) return bin_name(g) + " is marked in use but has no class";
      if (bool(v.bin_count[g] & kBinListed) != bool(on_list[g]))
        return bin_name(g) + ": L says " +
               ((v.bin_count[g] & kBinListed) ? "listed" : "not listed");
      if (v.bin_count[g] & kBinPending) return bin_name(g) + " has a link pending at rest";
      const std::uint32_t slots = ualloc_slots(k, b);
      std::uint32_t zeros = 0;
      for (std::uint32_t w = 0; w < kUAllocBitmapWords; ++w) {
        const std::uint64_t word = v.bin_bitmap[g * kUAllocBitmapWords + w];
        if ((word & ualloc_fresh_bitmap_word(slots, w)) != ualloc_fresh_bitmap_word(slots, w))
          return bin_name(g) + ": a slot past the bin's end is free";
        zeros += 64 - bits::popcount(word);
      }
      if (zeros != bin_count(v.bin_count[g]))
        return bin_name(g) + ": " + std::to_string(zeros) + " free slots but its count says " +
               std::to_string(bin_count(v.bin_count[g]));
    }
  }
  return {};
}

}  // namespace alloclab::gelado
