// DynaSOAr's heap (Springer & Masuhara, ECOOP'19 §3): M blocks of 64 slots of the smallest type,
// each with a 64-bit object allocation bitmap and a type id, and the block bitmaps free,
// allocated[T] and active[T] (§3.4), all plain words shared by the simulator and the GPU.
//
// Types (alloclab's reading, studies/dynasoar/): the page is the smallest type T_s; a type of n
// pages (1 <= n <= 64, the paper's "at most 64 times the smallest") has block capacity
// N_T = floor(64 * size(T_s) / size(T)) = floor(64 / n), and its slot k covers pages
// [64 b + k n, 64 b + k n + n) of block b. Type ids are n (0: no type). A block whose slots would
// run past the heap's T pages (the last block when T is not a multiple of 64) has fewer valid
// slots. The bits of the slots a block cannot hold are pre-set (App. A.1: "the last 64 - N bits are
// set to 1 during block initialization"): a block is empty when its bitmap equals that preset mask
// and full when it is all ones; invalidation (Alg. 9) sets all 64 bits.
#pragma once

#include <cstdint>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/dynasoar/hbitmap.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::dynasoar {

inline constexpr unsigned kMaxTypePages = 64;  // a type at most 64x the smallest (§3.2)
inline constexpr std::uint64_t kAllOnes = ~std::uint64_t{0};

// N_T of a type of n pages (n in 1..64).
ALLOCLAB_HD unsigned block_capacity(unsigned n) {
  return 64 / n;
}
// Slots of type n that block `bid` of a heap of `pages` pages can hold (0 if none fits).
ALLOCLAB_HD unsigned valid_slots(unsigned n, std::uint64_t bid, std::uint64_t pages) {
  const std::uint64_t room = pages - 64 * bid;  // bid < M: at least one page
  const std::uint64_t fit = room / n;
  return fit < block_capacity(n) ? static_cast<unsigned>(fit) : block_capacity(n);
}
// The bits pre-set in block bid's bitmap for type n: the slots it cannot hold.
ALLOCLAB_HD std::uint64_t preset_mask(unsigned n, std::uint64_t bid, std::uint64_t pages) {
  const unsigned v = valid_slots(n, bid, pages);
  return v == 0 ? kAllOnes : ~bits::low_mask(v);
}
// The first page of slot `slot` of block `bid` for type n: what a request is handed.
ALLOCLAB_HD std::uint64_t slot_first_page(std::uint64_t bid, unsigned slot, unsigned n) {
  return 64 * bid + static_cast<std::uint64_t>(slot) * n;
}
// Blocks of a heap of `pages` pages: ceil(pages / 64).
ALLOCLAB_HD std::uint64_t heap_blocks(std::uint64_t pages) {
  return (pages + 63) / 64;
}

// The heap's words. `type_words` holds 2 * 64 bitmaps of M bits (allocated[n] then active[n] for
// n = 1..64), each hb_total_words(M) words.
struct Heap {
  std::uint64_t blocks = 0;  // M
  std::uint64_t pages = 0;   // T: pages of the smallest type
  std::uint64_t* free_words = nullptr;
  std::uint64_t* type_words = nullptr;
  std::uint64_t* slots = nullptr;  // M object allocation bitmaps
  std::uint32_t* types = nullptr;  // M type ids
  // Typed heaps of byte sizes (types.hpp): caps[n] = N_T of type id n (1..64), the heap whole
  // blocks. Null: type n is n pages (capacity 64 / n, the last block possibly short).
  const std::uint8_t* caps = nullptr;
  // Slots of type n that block bid holds, and the bits pre-set for the slots it cannot (App. A.1).
  ALLOCLAB_HD unsigned valid(unsigned n, std::uint64_t bid) const {
    return caps != nullptr ? caps[n] : valid_slots(n, bid, pages);
  }
  ALLOCLAB_HD std::uint64_t preset(unsigned n, std::uint64_t bid) const {
    const unsigned v = valid(n, bid);
    return v == 0 ? kAllOnes : ~bits::low_mask(v);
  }
  ALLOCLAB_HD HBitmap free() const { return HBitmap{free_words, blocks}; }
  ALLOCLAB_HD HBitmap allocated(unsigned n) const {
    return HBitmap{type_words + (2 * (n - 1)) * hb_total_words(blocks), blocks};
  }
  ALLOCLAB_HD HBitmap active(unsigned n) const {
    return HBitmap{type_words + (2 * (n - 1) + 1) * hb_total_words(blocks), blocks};
  }
};
// Words of each array of a heap of M blocks.
ALLOCLAB_HD std::uint64_t heap_type_words(std::uint64_t blocks) {
  return 2 * kMaxTypePages * hb_total_words(blocks);
}

// What the allocator's operations did (summed by the caller per request, warp or run).
struct DsCounts {
  BitmapCounts bitmap;                   // the block bitmaps' operations
  std::uint32_t block_loads = 0;         // reads of a block's bitmap or type
  std::uint32_t block_atomics = 0;       // fetch_or / fetch_and on a block's bitmap
  std::uint32_t block_stores = 0;        // initialize_block's two writes (Alg. 8)
  std::uint32_t lookups = 0;             // try_find_set on active[T] (Alg. 1 l.2)
  std::uint32_t lookup_fails = 0;        // ... that found nothing
  std::uint32_t reserves = 0;            // Block::reserve's atomicOr (Alg. 6 l.5)
  std::uint32_t reserve_lost = 0;        // ... whose atomicOr got none of its slots
  std::uint32_t reserve_fails = 0;       // reservations that gave the block up (full, invalid)
  std::uint32_t blocks_initialised = 0;  // slow paths that initialised a block (Alg. 8)
  std::uint32_t free_lookup_fails = 0;   // the slow path found no free block
  std::uint32_t tail_skips = 0;          // a claimed block too short for the type, given back
  std::uint32_t rollbacks = 0;           // reservations in a block of another type (Alg. 1 l.14)
  std::uint32_t invalidations = 0;       // Alg. 9's atomicOr
  std::uint32_t invalidated = 0;         // ... that invalidated the block (it is deleted)
  std::uint32_t inval_rollbacks = 0;     // Alg. 9 l.8: a rollback
  std::uint32_t inval_retries = 0;       // Alg. 9 l.12: empty again, invalidate again
  std::uint32_t gave_up = 0;             // allocations that ended out of memory
  ALLOCLAB_HD void add(const DsCounts& o) {
    bitmap.add(o.bitmap);
    block_loads += o.block_loads;
    block_atomics += o.block_atomics;
    block_stores += o.block_stores;
    lookups += o.lookups;
    lookup_fails += o.lookup_fails;
    reserves += o.reserves;
    reserve_lost += o.reserve_lost;
    reserve_fails += o.reserve_fails;
    blocks_initialised += o.blocks_initialised;
    free_lookup_fails += o.free_lookup_fails;
    tail_skips += o.tail_skips;
    rollbacks += o.rollbacks;
    invalidations += o.invalidations;
    invalidated += o.invalidated;
    inval_rollbacks += o.inval_rollbacks;
    inval_retries += o.inval_retries;
    gave_up += o.gave_up;
  }
  ALLOCLAB_HD std::uint32_t memory_ops() const {
    return bitmap.loads + bitmap.atomics + block_loads + block_atomics + block_stores;
  }
  ALLOCLAB_HD std::uint32_t atomics() const { return bitmap.atomics + block_atomics; }
  // Atomics whose old value showed the bit or slot already taken (or already clear).
  ALLOCLAB_HD std::uint32_t lost_atomics() const {
    return bitmap.set_spins + bitmap.clear_spins + bitmap.try_clear_lost + reserve_lost;
  }
};

}  // namespace alloclab::dynasoar
