// Host side of the hierarchical bitmap (hbitmap.hpp): Def. 1's container consistency as a checker,
// indices() (Alg. 5; sequential here, the paper's parallel loop over containers gives the same
// set in another order), and building a bitmap from a set of bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/hbitmap.hpp"

namespace alloclab::dynasoar {

// "" if every bit of level l + 1 equals the OR of its container of level l (Def. 1) and no bit
// past a level's bit count is set; else what is wrong, first.
inline std::string hbitmap_consistency_error(const HBitmap& b) {
  const unsigned levels = b.levels();
  std::uint64_t level_bits = b.bits;
  for (unsigned l = 0; l < levels; ++l) {
    const std::uint64_t words = hb_level_words(b.bits, l);
    for (std::uint64_t i = 0; i < words; ++i) {
      const std::uint64_t w = b.word(l, i);
      const std::uint64_t valid = level_bits - i * 64;
      if (valid < 64 && (w >> valid) != 0)
        return "level " + std::to_string(l) + " word " + std::to_string(i) +
               " has a bit set past the level's " + std::to_string(level_bits) + " bits";
      if (l + 1 < levels) {
        const bool up = (b.word(l + 1, i / 64) >> (i % 64)) & 1u;
        if (up != (w != 0))
          return "level " + std::to_string(l + 1) + " bit " + std::to_string(i) + " is " +
                 (up ? "1" : "0") + " but container " + std::to_string(i) + " of level " +
                 std::to_string(l) + (w ? " has a set bit" : " is empty") + " (Def. 1)";
      }
    }
    level_bits = words;
  }
  return "";
}

// Alg. 5: the positions of the set bits, visiting only the containers the level above selects.
// Ascending here (the paper's parallel version is unordered).
inline std::vector<std::uint64_t> hbitmap_indices(const HBitmap& b) {
  std::vector<std::uint64_t> selected{0};
  for (unsigned l = b.levels(); l-- > 0;) {
    std::vector<std::uint64_t> next;
    for (const std::uint64_t cid : selected) {
      for (std::uint64_t c = b.word(l, cid); c != 0; c &= c - 1)
        next.push_back(cid * 64 + bits::count_trailing_zeros(c));
    }
    selected.swap(next);
  }
  return selected;
}

// Storage for one bitmap of `bits` bits, all clear.
struct HBitmapStorage {
  std::vector<std::uint64_t> words;
  HBitmap bitmap;
  explicit HBitmapStorage(std::uint64_t bits) : words(hb_total_words(bits), 0) {
    bitmap = HBitmap{words.data(), bits};
  }
  HBitmapStorage(const HBitmapStorage&) = delete;
  HBitmapStorage& operator=(const HBitmapStorage&) = delete;
};

// Writes the bitmap whose level-0 bit i is set[i] (consistent by construction), at rest.
inline void hbitmap_assign(const HBitmap& b, const std::vector<bool>& set) {
  for (std::uint64_t k = 0; k < hb_total_words(b.bits); ++k) b.words[k] = 0;
  for (std::uint64_t i = 0; i < b.bits && i < set.size(); ++i) {
    if (!set[i]) continue;
    std::uint64_t pos = i;
    for (unsigned l = 0; l < b.levels(); ++l, pos /= 64)
      b.word(l, pos / 64) |= std::uint64_t{1} << (pos % 64);
  }
}

// Writes levels 1.. from level 0 as it stands (consistent by construction), at rest: a bitmap
// whose level 0 was filled elsewhere (the GPU's, computed on the device) gets its upper levels.
inline void hbitmap_build_upper(const HBitmap& b) {
  for (unsigned l = 0; l + 1 < b.levels(); ++l) {
    for (std::uint64_t k = 0; k < hb_level_words(b.bits, l + 1); ++k) b.word(l + 1, k) = 0;
    for (std::uint64_t i = 0; i < hb_level_words(b.bits, l); ++i)
      if (b.word(l, i) != 0) b.word(l + 1, i / 64) |= std::uint64_t{1} << (i % 64);
  }
}

}  // namespace alloclab::dynasoar
