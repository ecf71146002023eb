// RW-BM's device-side API (paper 000, Sec. 4.1): any thread asks for one page; each step reads
// one random w-bit word (bitmap_probe_word) and claims a free bit of it with atomicOr (the lowest,
// or as `kChoice` says: core/bit_choice.hpp); a lost claim retries on the next free bit of the
// value the atomic returned, within the same word and step (a collision each), so only an
// exhausted word costs a new step. The allocation kernel (rwbm.cu) is a loop over it.
#pragma once

#include "bitmap_pool.cuh"

namespace alloclab::gpu::detail {

template <typename Word, BitChoice kChoice>
struct RwbmDevice {
  using View = BitmapView;
  static constexpr unsigned kWordBits = sizeof(Word) * 8;
  BitmapView pool;  // w = kWordBits
  std::uint64_t seed = 0, max_steps = 0;
  unsigned lanes = 32;  // the rotated bit choice's key

  // Over a pool of `pages` pages (PageHeap's host side, device_page_heap.cuh).
  static RwbmDevice on_pool(const View& pool, std::uint64_t, std::uint64_t seed,
                            std::uint64_t max_steps) {
    return {pool, seed, max_steps, 32};
  }

  // One page for `thread`, probing its stream from probe k on (k advances).
  __device__ __forceinline__ PageRequest malloc_page(std::uint64_t thread, std::uint64_t& k) const {
    constexpr unsigned w = sizeof(Word) * 8;
    auto* bitmap = static_cast<Word*>(pool.bitmap);
    PageRequest r;
    while (r.steps < max_steps && r.page == kFailed) {
      // == bitmap_probe_word(seed, thread, k, pool.words); the low bits also key the bit choice
      const std::uint64_t probe = probe_bits(seed, thread, k++);
      const std::uint64_t p = mul_high_u64(probe, pool.words);
      ++r.steps;
      Word word = load_word(&bitmap[p]);
      while (word != static_cast<Word>(~Word{0})) {
        int b;
        if constexpr (kChoice == BitChoice::lowest)
          b = bits::first_free_bit(word, w);
        else
          b = choose_free_bit(kChoice, word, w, bit_choice_key(probe, thread, w, lanes));
        const Word bit = Word{1} << b;
        const Word old = atomic_or_word(&bitmap[p], bit);
        ++r.atomics;  // every atomicOr either wins (once) or is lost
        if (!(old & bit)) {
          r.page = p * w + static_cast<unsigned>(b);
          break;
        }
        ++r.lost;
        word = old | bit;
      }
    }
    return r;
  }

  __device__ __forceinline__ void free_page(std::uint64_t page) const {
    bitmap_free_run<Word>(pool, page, 1);
  }
};

}  // namespace alloclab::gpu::detail
