// A DynaSOAr heap on the host (heap.hpp): its storage, the initial pool read as blocks, a block
// placed by hand (tests), and the structural check at rest (studies/dynasoar/README.md). Host only.
//
// The initial pool: the pages the pool leaves used (core/pool.hpp, --free) are the application's
// objects of the smallest type (one page each): a block holding any of them is a block of type 1,
// allocated, and active unless full; a block with none is free. The application never frees them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/dynasoar/heap.hpp"

namespace alloclab::dynasoar {

// The capacities N_T of a typed heap's type ids (index n = type id, 1..64; index 0 unused).
struct TypedCapacities {
  std::vector<std::uint8_t> caps;
};

struct HeapStorage {
  std::vector<std::uint64_t> free_words, type_words, slots;
  std::vector<std::uint32_t> types;
  std::vector<std::uint8_t> caps;  // a typed heap's capacities (empty: types of n pages)
  Heap heap;

  // A typed heap of `blocks` whole blocks, all free, whose type ids have capacities `c`
  // (types.hpp). Its "pages" are the slots of the smallest type, 64 a block.
  HeapStorage(std::uint64_t blocks, TypedCapacities c)
      : HeapStorage(64 * blocks, std::vector<std::uint64_t>(blocks, 0)) {
    caps = std::move(c.caps);
    heap.caps = caps.data();
  }

  // `app_page[p]`: page p is the application's (used before any request).
  HeapStorage(std::uint64_t pages, const std::vector<bool>& app_page)
      : HeapStorage(pages, app_block_words(pages, app_page)) {}
  // `app_words[b]`: bit k set = page 64 b + k is the application's (bits past `pages` clear). The
  // GPU computes these words on the device (one per block) and builds the heap from them here.
  HeapStorage(std::uint64_t pages, const std::vector<std::uint64_t>& app_words) {
    const std::uint64_t M = heap_blocks(pages);
    free_words.assign(hb_total_words(M), 0);
    type_words.assign(heap_type_words(M), 0);
    slots.assign(M, kAllOnes);
    types.assign(M, 0);
    heap = Heap{M, pages, free_words.data(), type_words.data(), slots.data(), types.data()};
    // Level 0 of free, allocated[1] and active[1] word by word, then the levels above: a GPU heap
    // has millions of blocks.
    const HBitmap is_free = heap.free(), allocated = heap.allocated(1), active = heap.active(1);
    for (std::uint64_t b = 0; b < M; ++b) {
      const std::uint64_t bit = std::uint64_t{1} << (b % 64);
      const std::uint64_t used = app_words[b];
      if (used == 0) {
        is_free.word(0, b / 64) |= bit;
        continue;
      }
      types[b] = 1;
      slots[b] = used | preset_mask(1, b, pages);
      allocated.word(0, b / 64) |= bit;
      if (slots[b] != kAllOnes) active.word(0, b / 64) |= bit;
    }
    hbitmap_build_upper(is_free);
    hbitmap_build_upper(allocated);
    hbitmap_build_upper(active);
  }
  // The application's pages of each block as words (bit k of word b: page 64 b + k).
  static std::vector<std::uint64_t> app_block_words(std::uint64_t pages,
                                                    const std::vector<bool>& app_page) {
    std::vector<std::uint64_t> words(heap_blocks(pages), 0);
    for (std::uint64_t p = 0; p < pages; ++p)
      if (app_page[p]) words[p / 64] |= std::uint64_t{1} << (p % 64);
    return words;
  }
  // Makes block bid, at rest, a block of type n whose held slots are `live` (not empty): out of
  // free, in allocated[n], in active[n] unless full. For hand-built states (tests).
  void place(std::uint64_t bid, unsigned n, std::uint64_t live) {
    auto set_bit = [](const HBitmap& b, std::uint64_t i, bool on) {
      std::vector<bool> bits(b.bits);
      for (std::uint64_t k = 0; k < b.bits; ++k) bits[k] = (b.word(0, k / 64) >> (k % 64)) & 1u;
      bits[i] = on;
      hbitmap_assign(b, bits);
    };
    for (unsigned t = 1; t <= kMaxTypePages; ++t) {
      set_bit(heap.allocated(t), bid, false);
      set_bit(heap.active(t), bid, false);
    }
    set_bit(heap.free(), bid, false);
    types[bid] = n;
    slots[bid] = heap.preset(n, bid) | live;
    set_bit(heap.allocated(n), bid, true);
    set_bit(heap.active(n), bid, slots[bid] != kAllOnes);
  }
  // §6.3's fragmentation F at rest: over the blocks in use, the free valid slots over the valid
  // slots (0 with none). The simulator's typed heap and the GPU's compute it here.
  double fragmentation() const {
    std::uint64_t valid = 0, used = 0;
    for (std::uint64_t b = 0; b < heap.blocks; ++b) {
      if (types[b] == 0 || is_free(b)) continue;
      const unsigned cap = heap.valid(types[b], b);
      valid += cap;
      used += bits::popcount(slots[b] & bits::low_mask(cap));
    }
    return valid == 0 ? 0.0 : static_cast<double>(valid - used) / static_cast<double>(valid);
  }
  bool is_free(std::uint64_t b) const { return (heap.free().word(0, b / 64) >> (b % 64)) & 1u; }
  std::uint64_t blocks_in_use() const {
    std::uint64_t n = 0;
    for (std::uint64_t b = 0; b < heap.blocks; ++b) n += !is_free(b);
    return n;
  }
  HeapStorage(const HeapStorage&) = delete;
  HeapStorage& operator=(const HeapStorage&) = delete;

  // At rest (no operation in flight): "" if the heap is consistent, else the first fault.
  //  * Def. 1 in free and in every allocated[n], active[n];
  //  * a free block: bitmap all ones (invalidated or never used), in no allocated or active
  //    bitmap; otherwise a type n in 1..64, in allocated[n] only, in active[n] iff not full
  //    (Fig. 5), at least one live slot (an empty block is deleted), and its bitmap is exactly its
  //    preset bits plus the slots `live(page)` says are held (the first page of each).
  template <class Live>
  std::string check(Live live) const {
    return check_slots(
        [&](std::uint64_t b, unsigned k, unsigned n) { return live(slot_first_page(b, k, n)); });
  }
  // The same check where `live(block, slot, type)` says whether a slot is held.
  template <class LiveSlot>
  std::string check_slots(LiveSlot live) const {
    const std::uint64_t M = heap.blocks;
    if (std::string e = hbitmap_consistency_error(heap.free()); !e.empty()) return "free: " + e;
    for (unsigned n = 1; n <= kMaxTypePages; ++n) {
      if (std::string e = hbitmap_consistency_error(heap.allocated(n)); !e.empty())
        return "allocated[" + std::to_string(n) + "]: " + e;
      if (std::string e = hbitmap_consistency_error(heap.active(n)); !e.empty())
        return "active[" + std::to_string(n) + "]: " + e;
    }
    auto bit = [](const HBitmap& b, std::uint64_t i) {
      return (b.word(0, i / 64) >> (i % 64)) & 1u;
    };
    // Per block, the type whose allocated / active bitmap holds it, 0 for none, 65 for more than
    // one: read from the set bits of each level 0 (a GPU heap has millions of blocks; asking
    // every typed bitmap about every block would take 128 reads a block).
    std::vector<std::uint8_t> in_allocated_of(M, 0), in_active_of(M, 0);
    auto mark = [M](const HBitmap& b, unsigned n, std::vector<std::uint8_t>& in) {
      for (std::uint64_t j = 0; j < hb_level_words(M, 0); ++j)
        for (std::uint64_t w = b.word(0, j); w != 0; w &= w - 1) {
          const std::uint64_t i = j * 64 + bits::count_trailing_zeros(w);
          if (i < M) in[i] = static_cast<std::uint8_t>(in[i] ? 65 : n);
        }
    };
    for (unsigned n = 1; n <= kMaxTypePages; ++n) {
      mark(heap.allocated(n), n, in_allocated_of);
      mark(heap.active(n), n, in_active_of);
    }
    for (std::uint64_t b = 0; b < M; ++b) {
      // Built only for the message (millions of blocks on a GPU heap).
      auto at = [b] { return "block " + std::to_string(b) + ": "; };
      const bool is_free = bit(heap.free(), b);
      const unsigned in_allocated = in_allocated_of[b], in_active = in_active_of[b];
      if (is_free) {
        if (slots[b] != kAllOnes) return at() + "free but its bitmap is not all ones";
        if (in_allocated || in_active) return at() + "free but in allocated[] or active[]";
        continue;
      }
      const unsigned n = types[b];
      if (n < 1 || n > kMaxTypePages || heap.valid(n, b) == 0)
        return at() + "neither free nor of a type";
      if (in_allocated != n) return at() + "not in allocated[its type] alone";
      const bool full = slots[b] == kAllOnes;
      if (in_active != (full ? 0u : n))
        return at() + (full ? "full but active" : "not full but not active[its type]");
      const std::uint64_t preset = heap.preset(n, b);
      std::uint64_t expect = preset;
      for (unsigned k = 0; k < heap.valid(n, b); ++k)
        if (live(b, k, n)) expect |= std::uint64_t{1} << k;
      if (expect == preset) return at() + "allocated but empty";
      if (slots[b] != expect) return at() + "its bitmap differs from the slots held";
    }
    return "";
  }
};

// A run's steady state (§6.3, Fig. 13): the mean F of the second half of its iterations (each
// with a `fragmentation`), as the simulator's Wa-Tor and the GPU's report it; 0 with none.
template <class Iteration>
double steady_fragmentation(const std::vector<Iteration>& iterations) {
  const std::size_t from = iterations.size() / 2;
  if (from == iterations.size()) return 0.0;
  double sum = 0;
  for (std::size_t k = from; k < iterations.size(); ++k) sum += iterations[k].fragmentation;
  return sum / static_cast<double>(iterations.size() - from);
}

}  // namespace alloclab::dynasoar
