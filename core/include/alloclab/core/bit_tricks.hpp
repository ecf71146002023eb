// Bit tricks used by both the CPU simulator and the CUDA kernels; they live here once.
// Convention everywhere in alloclab: in a bitmap word, bit i set = page (word*w + i) is USED
// (the paper's "used" bits); a free page is an unset bit. Words are up to 64 bits; a word of
// w < 64 bits keeps its pages in the low w bits.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab::bits {

ALLOCLAB_HD unsigned popcount(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__popcll(x));
#else
  return static_cast<unsigned>(__builtin_popcountll(x));
#endif
}

// Index of the lowest set bit; 64 for x == 0.
ALLOCLAB_HD unsigned count_trailing_zeros(std::uint64_t x) {
  if (x == 0) return 64;
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__ffsll(static_cast<long long>(x)) - 1);
#else
  return static_cast<unsigned>(__builtin_ctzll(x));
#endif
}

// Mask of the low w bits (w in 1..64).
ALLOCLAB_HD std::uint64_t low_mask(unsigned w) {
  return w >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << w) - 1);
}

// The paper's fks(mask, k): position of the k-th set bit (k counted from 1), or -1 if mask has
// fewer than k set bits. Binary search over popcounts of halves: log2(64) = 6 popcounts, as the
// paper describes (Sec. 4.2), instead of a loop over bits.
ALLOCLAB_HD int find_kth_set_bit(std::uint64_t mask, unsigned k) {
  if (k == 0 || popcount(mask) < k) return -1;
  int base = 0;
  for (unsigned width = 32; width >= 1; width /= 2) {
    const std::uint64_t low = mask & low_mask(width);
    const unsigned c = popcount(low);
    if (k > c) {
      k -= c;
      mask >>= width;
      base += static_cast<int>(width);
    } else {
      mask = low;
    }
  }
  return base;
}

// Lowest unset bit among the low w bits of `word` (a free page), or -1 if all w are used.
ALLOCLAB_HD int first_free_bit(std::uint64_t word, unsigned w) {
  const std::uint64_t free_bits = ~word & low_mask(w);
  return free_bits ? static_cast<int>(count_trailing_zeros(free_bits)) : -1;
}

// The lowest c set bits of x (all of them if c >= popcount(x)): the bits a CoRW lane claims when
// c of its word's free bits are its share. Word = uint32_t keeps w = 32 in 32-bit registers on
// the GPU.
template <typename Word>
ALLOCLAB_HD Word lowest_set_bits(Word x, unsigned c) {
  if (c == 0) return 0;
  if (c == 1) return x & static_cast<Word>(~x + 1);  // the common case at high free fractions
  const int pos = find_kth_set_bit(x, c);
  return pos < 0 ? x : static_cast<Word>(x & low_mask(static_cast<unsigned>(pos) + 1));
}

// First unset bit at or after bit `start` among the low w bits of `word`, wrapping around to bit
// 0 (cyclic order start, start+1, ..., w-1, 0, ..., start-1); -1 if all w are used. start < w.
// The "rotated" bit choice of RW-BM (bit_choice.hpp): threads that start at different offsets of
// one word usually target different free bits.
ALLOCLAB_HD int first_free_bit_from(std::uint64_t word, unsigned w, unsigned start) {
  const std::uint64_t free_bits = ~word & low_mask(w);
  if (free_bits == 0) return -1;
  const std::uint64_t at_or_above = free_bits & ~low_mask(start == 0 ? 0 : start);
  return static_cast<int>(count_trailing_zeros(at_or_above ? at_or_above : free_bits));
}

// x (its low w bits; the bits above w must be 0) rotated right by o < w within w bits: bit
// (j + o) mod w of x becomes bit j. With rotate_left (its inverse) it views a word in a lane's
// rotated bit order (CoRW's "rotated" bit choice, bit_choice.hpp): the view's lowest bits are the
// word's bits from o on. Word = uint32_t keeps w = 32 in 32-bit registers on the GPU.
template <typename Word>
ALLOCLAB_HD Word rotate_right(Word x, unsigned o, unsigned w) {
  if (o == 0) return x;
  return static_cast<Word>(((x >> o) | (x << (w - o))) & low_mask(w));
}
template <typename Word>
ALLOCLAB_HD Word rotate_left(Word x, unsigned o, unsigned w) {
  if (o == 0) return x;
  return static_cast<Word>(((x << o) | (x >> (w - o))) & low_mask(w));
}

// The free bit of rank floor(u * f / 2^32) (0-based, counted from bit 0) among the f unset bits
// of the low w bits of `word`; -1 if none. With u uniform on [0, 2^32) every free bit is chosen
// with probability within f / 2^32 of 1/f. The "random" bit choice of RW-BM (bit_choice.hpp).
ALLOCLAB_HD int ranked_free_bit(std::uint64_t word, unsigned w, std::uint32_t u) {
  const std::uint64_t free_bits = ~word & low_mask(w);
  const unsigned f = popcount(free_bits);
  if (f == 0) return -1;
  const auto rank = static_cast<unsigned>((static_cast<std::uint64_t>(u) * f) >> 32);
  return find_kth_set_bit(free_bits, rank + 1);
}

// A run of consecutive free (unset) bits inside one word.
struct FreeRun {
  int start;        // bit index of the first free bit, -1 if none
  unsigned length;  // number of consecutive free bits from start (0 if none)
};

// First run of free bits at or above bit `from` among the low w bits of `word`. Scanning from
// `from = run.start + run.length` enumerates all free runs of a word in order (Algorithm 3,
// lines 7 and 20, written with count-trailing-zeros instead of the paper's clz).
ALLOCLAB_HD FreeRun next_free_run(std::uint64_t word, unsigned w, unsigned from) {
  if (from >= w) return {-1, 0};
  const std::uint64_t free_bits = ~word & low_mask(w) & ~low_mask(from == 0 ? 0 : from);
  if (free_bits == 0) return {-1, 0};
  const unsigned start = count_trailing_zeros(free_bits);
  // Used bits at or above start end the run; bits at and above w count as used.
  const std::uint64_t used_above = (word | ~low_mask(w)) >> start;
  const unsigned length = used_above == 0 ? (64 - start) : count_trailing_zeros(used_above);
  return {static_cast<int>(start), length};
}

// Mask of `length` bits starting at bit `start` (start + length <= 64).
ALLOCLAB_HD std::uint64_t run_mask(unsigned start, unsigned length) {
  return low_mask(length) << start;
}

}  // namespace alloclab::bits
