// Gallatin's GPU van Emde Boas tree (McCoy & Pandey, PPoPP'24 §3.2): a 64-ary hierarchical
// bitmap over a universe of U indices, shared by the CPU simulator and the GPU. The paper fixes
// every node to one 64-bit word and drops the classic min/max, so each node operation is one
// atomic on one word and the height is a small constant; it gives no pseudocode
// (studies/gallatin/shared-code.md, "The vEB tree").
//
// Layout: L levels, level 0 the root, level L-1 the leaves; bit b of word h at level l stands for
// the 64^(L-1-l) indices from (64h + b) * 64^(L-1-l). A leaf bit set = the index is in the set;
// an upper bit set = its child word is not empty. Level l has ceil(U / 64^(L-l)) words (at least
// one), stored level after level in one array. Bits for indices >= U are never set.
//
// Levels: the paper's count is L = ceil(log64 U) ("a 3-level vEB tree can cover up to 4
// terabytes" = 64^3 segments of 16 MB); the public code's is (bitlen(U) - 1) / 6 + 1, one more
// exactly when U is a power of 64 (U = 64, 4096, 262144, ...). The tree works with either (any
// L >= the paper's): veb_levels_paper, veb_levels_public.
//
// Operations, each through the atomics policy `Atomics` (core/ouroboros/host_atomics.hpp) and
// counted in VebCounts:
//  * insert(x) with the forced upward update: atomicOr on the leaf; when the word was empty,
//    atomicOr of its bit in the parent, and so on up while words turn non-empty.
//  * remove(x) ("claimIndex"): atomicAnd on the leaf; true when this call cleared the bit; when
//    the word became empty, atomicAnd of its bit in the parent, and so on up.
//  * successor(x): the smallest index >= x in the set: the leaf word masked from x, then float up
//    (one word per level, masked past the position) until a word has a set bit, then float down
//    taking the lowest set bit of one word per level. Read only; <= 2L - 1 word loads.
//  * predecessor(x): the largest index <= x, the mirror of successor (masked below the position
//    going up, the highest set bit going down; §4.1's search for large allocations from the back
//    of the segment tree). Read only; <= 2L - 1 word loads.
//  * lock_offset(start): claim the lowest index >= start: successor, then remove; a remove that
//    finds the bit already cleared lost the race to another claimer: search again (a restart).
//
// Concurrency (alloclab's addition, not in the paper): with independent atomics an upward write
// can land after a newer one, e.g. a remover empties a leaf word, an inserter fills it and sets
// the parent bit, then the remover clears the parent bit: the parent says empty over a non-empty
// word. Every upward write is therefore followed by one re-read of the child word; if the child's
// emptiness no longer matches the bit just written, the writer writes the bit again the other
// way (a restart), until they match. Of the writes to one parent bit, the last one was followed by
// a read that matched, and any later change of the child's emptiness was made by a thread that
// writes the parent bit after it: at rest every upper bit is the OR of its child word
// (veb_check). A search that floats down into a word found empty read a stale upper bit: it
// restarts from x (counted). Both loops are bounded (kVebMaxAttempts); sequentially neither ever
// repeats, so insert and remove issue at most L atomics and L - 1 re-reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gallatin {

inline constexpr unsigned kVebMaxLevels = 8;  // 64^8 = 2^48 indices
inline constexpr std::uint64_t kVebFail = ~std::uint64_t{0};
// A search or a settle that has lost this many races gives up (returns kVebFail / leaves the
// bit to the thread that keeps changing it); only contention makes them repeat at all.
inline constexpr std::uint32_t kVebMaxAttempts = 4096;

// Index of the highest set bit of x != 0 (the predecessor search's float down).
ALLOCLAB_HD unsigned highest_bit(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return 63u - static_cast<unsigned>(__clzll(static_cast<long long>(x)));
#else
  return 63u - static_cast<unsigned>(__builtin_clzll(x));
#endif
}

// The paper's level count: ceil(log64 U), at least 1.
ALLOCLAB_HD unsigned veb_levels_paper(std::uint64_t universe) {
  unsigned levels = 1;
  std::uint64_t span = 64;  // indices a tree of `levels` levels covers
  while (span < universe && levels < kVebMaxLevels) {
    ++levels;
    span = span > (~std::uint64_t{0} >> 6) ? ~std::uint64_t{0} : span * 64;
  }
  return levels;
}
// The public code's level count: (bitlen(U) - 1) / 6 + 1, bitlen(U) the bits of U (U >= 1).
ALLOCLAB_HD unsigned veb_levels_public(std::uint64_t universe) {
  unsigned bitlen = 0;
  for (std::uint64_t u = universe; u != 0; u >>= 1) ++bitlen;
  return (bitlen == 0 ? 0 : (bitlen - 1)) / 6 + 1;
}

// What operations did (summed by the caller).
struct VebCounts {
  std::uint32_t loads = 0;     // plain word reads (search, re-reads after upward writes)
  std::uint32_t atomics = 0;   // atomicOr / atomicAnd
  std::uint32_t levels = 0;    // per operation, the distinct levels it read or wrote
  std::uint32_t restarts = 0;  // lost races: a stale upper bit, a claim of a cleared index, a
                               // settle that had to write a parent bit again
  ALLOCLAB_HD void add(const VebCounts& o) {
    loads += o.loads;
    atomics += o.atomics;
    levels += o.levels;
    restarts += o.restarts;
  }
};

// A view of one tree: its words, universe and levels.
struct VebTree {
  std::uint64_t* words = nullptr;
  std::uint64_t universe = 0;
  unsigned levels = 1;
  std::uint64_t offset[kVebMaxLevels] = {};  // first word of each level in `words`
};

// Words of level `level` of a tree of `levels` levels over `universe`.
ALLOCLAB_HD std::uint64_t veb_words_at(std::uint64_t universe, unsigned levels, unsigned level) {
  std::uint64_t n = universe;
  for (unsigned k = level; k < levels; ++k) n = (n + 63) / 64;
  return n == 0 ? 1 : n;
}
// The tree's layout over `words` (veb_total_words of them).
ALLOCLAB_HD VebTree veb_layout(std::uint64_t* words, std::uint64_t universe, unsigned levels) {
  VebTree t;
  t.words = words;
  t.universe = universe;
  t.levels = levels;
  std::uint64_t at = 0;
  for (unsigned l = 0; l < levels; ++l) {
    t.offset[l] = at;
    at += veb_words_at(universe, levels, l);
  }
  return t;
}
ALLOCLAB_HD std::uint64_t veb_total_words(std::uint64_t universe, unsigned levels) {
  std::uint64_t at = 0;
  for (unsigned l = 0; l < levels; ++l) at += veb_words_at(universe, levels, l);
  return at;
}

template <class Atomics>
struct Veb {
  // One operation's bookkeeping: the levels it touched, added to c.levels at its end.
  struct Touch {
    VebCounts& c;
    unsigned mask = 0;
    ALLOCLAB_HD explicit Touch(VebCounts& counts) : c(counts) {}
    ALLOCLAB_HD void at(unsigned level) { mask |= 1u << level; }
    ALLOCLAB_HD ~Touch() { c.levels += bits::popcount(mask); }
  };
  ALLOCLAB_HD static std::uint64_t& word(const VebTree& t, unsigned level, std::uint64_t h) {
    return t.words[t.offset[level] + h];
  }
  ALLOCLAB_HD static std::uint64_t load(const VebTree& t, unsigned level, std::uint64_t h,
                                        Touch& tc) {
    tc.at(level);
    ++tc.c.loads;
    return Atomics::load(word(t, level, h));
  }

  // Makes bit (position & 63) of the parent of child word `child` at level `level` (level >= 1)
  // say whether that word is non-empty, starting with `want` (what the caller knows it just made
  // it); returns whether any write of this call changed the parent word's emptiness.
  ALLOCLAB_HD static bool settle(const VebTree& t, unsigned level, std::uint64_t child, bool want,
                                 Touch& tc) {
    const unsigned up = level - 1;
    const std::uint64_t h = child >> 6;
    const std::uint64_t bit = std::uint64_t{1} << (child & 63);
    bool changed = false;
    for (std::uint32_t attempt = 0; attempt < kVebMaxAttempts; ++attempt) {
      tc.at(up);
      ++tc.c.atomics;
      if (want) {
        changed = (Atomics::fetch_or(word(t, up, h), bit) == 0) || changed;
      } else {
        changed = (Atomics::fetch_and(word(t, up, h), ~bit) == bit) || changed;
      }
      const bool now = load(t, level, child, tc) != 0;
      if (now == want) return changed;
      ++tc.c.restarts;  // the child changed under us: write the bit the other way
      want = now;
    }
    return changed;
  }

  // Adds x; false if it was present.
  ALLOCLAB_HD static bool insert(const VebTree& t, std::uint64_t x, VebCounts& c) {
    Touch tc(c);
    const unsigned leaf = t.levels - 1;
    tc.at(leaf);
    ++c.atomics;
    const std::uint64_t bit = std::uint64_t{1} << (x & 63);
    const std::uint64_t old = Atomics::fetch_or(word(t, leaf, x >> 6), bit);
    if (old & bit) return false;
    // The forced upward update: a word that turned non-empty sets its bit in the parent.
    bool climb = old == 0;
    std::uint64_t child = x >> 6;
    for (unsigned level = leaf; climb && level > 0; --level, child >>= 6)
      climb = settle(t, level, child, true, tc);
    return true;
  }

  // Clears x ("claimIndex"); true when this call cleared it (false: absent, or another claimer
  // cleared it first).
  ALLOCLAB_HD static bool remove(const VebTree& t, std::uint64_t x, VebCounts& c) {
    Touch tc(c);
    const unsigned leaf = t.levels - 1;
    tc.at(leaf);
    ++c.atomics;
    const std::uint64_t bit = std::uint64_t{1} << (x & 63);
    const std::uint64_t old = Atomics::fetch_and(word(t, leaf, x >> 6), ~bit);
    if (!(old & bit)) return false;
    bool climb = old == bit;  // the word became empty
    std::uint64_t child = x >> 6;
    for (unsigned level = leaf; climb && level > 0; --level, child >>= 6)
      climb = settle(t, level, child, false, tc);
    return true;
  }

  // Whether x is in the set (one load).
  ALLOCLAB_HD static bool query(const VebTree& t, std::uint64_t x, VebCounts& c) {
    Touch tc(c);
    return (load(t, t.levels - 1, x >> 6, tc) >> (x & 63)) & 1u;
  }

  // The smallest index >= x in the set, or kVebFail.
  ALLOCLAB_HD static std::uint64_t successor(const VebTree& t, std::uint64_t x, VebCounts& c) {
    if (x >= t.universe) return kVebFail;
    Touch tc(c);
    for (std::uint32_t attempt = 0; attempt < kVebMaxAttempts; ++attempt) {
      const std::uint64_t found = search(t, x, tc);
      if (found != kVebFail - 1) return found;
      ++c.restarts;  // floated down into a word emptied since its bit was read
    }
    return kVebFail;
  }

  // The largest index <= x in the set (x >= U searches from U - 1), or kVebFail.
  ALLOCLAB_HD static std::uint64_t predecessor(const VebTree& t, std::uint64_t x, VebCounts& c) {
    if (t.universe == 0) return kVebFail;
    if (x >= t.universe) x = t.universe - 1;
    Touch tc(c);
    for (std::uint32_t attempt = 0; attempt < kVebMaxAttempts; ++attempt) {
      const std::uint64_t found = search_down(t, x, tc);
      if (found != kVebFail - 1) return found;
      ++c.restarts;  // floated down into a word emptied since its bit was read
    }
    return kVebFail;
  }

  // Claims the lowest index >= start (successor, then remove), or kVebFail when none is left.
  ALLOCLAB_HD static std::uint64_t lock_offset(const VebTree& t, std::uint64_t start,
                                               VebCounts& c) {
    std::uint64_t from = start;
    for (std::uint32_t attempt = 0; attempt < kVebMaxAttempts; ++attempt) {
      const std::uint64_t s = successor(t, from, c);
      if (s == kVebFail) return kVebFail;
      if (remove(t, s, c)) return s;
      ++c.restarts;  // another claimer cleared s first: search on from it
      from = s;
    }
    return kVebFail;
  }

 private:
  // One predecessor search: the index, kVebFail (none), or kVebFail - 1 (restart).
  ALLOCLAB_HD static std::uint64_t search_down(const VebTree& t, std::uint64_t x, Touch& tc) {
    unsigned level = t.levels - 1;
    std::uint64_t h = x >> 6;
    // Bits at or below the position in the leaf word, strictly below it in the ancestors.
    std::uint64_t w = load(t, level, h, tc) & bits::low_mask(static_cast<unsigned>(x & 63) + 1);
    while (w == 0) {
      if (level == 0) return kVebFail;
      const auto below = static_cast<unsigned>(h & 63);
      h >>= 6;
      --level;
      if (below == 0) continue;  // nothing before the first bit of this word
      w = load(t, level, h, tc) & bits::low_mask(below);
    }
    // Float down: the highest set bit of one word per level.
    std::uint64_t idx = h * 64 + highest_bit(w);
    for (++level; level < t.levels; ++level) {
      const std::uint64_t child = load(t, level, idx, tc);
      if (child == 0) return kVebFail - 1;
      idx = idx * 64 + highest_bit(child);
    }
    return idx;
  }

  // One search: the index, kVebFail (none), or kVebFail - 1 (a stale upper bit: restart).
  ALLOCLAB_HD static std::uint64_t search(const VebTree& t, std::uint64_t x, Touch& tc) {
    unsigned level = t.levels - 1;
    std::uint64_t h = x >> 6;
    unsigned from = static_cast<unsigned>(x & 63);  // first bit of interest in word h
    std::uint64_t w = load(t, level, h, tc) & ~bits::low_mask(from);  // low_mask(0) = 0
    // Float up: the bits strictly after the position in each ancestor word.
    while (w == 0) {
      if (level == 0) return kVebFail;
      from = static_cast<unsigned>(h & 63) + 1;
      h >>= 6;
      --level;
      if (from == 64) continue;  // nothing after the last bit of this word
      w = load(t, level, h, tc) & ~bits::low_mask(from);
    }
    // Float down: the lowest set bit of one word per level.
    std::uint64_t idx = h * 64 + bits::count_trailing_zeros(w);
    for (++level; level < t.levels; ++level) {
      const std::uint64_t below = load(t, level, idx, tc);
      if (below == 0) return kVebFail - 1;
      idx = idx * 64 + bits::count_trailing_zeros(below);
    }
    return idx < t.universe ? idx : kVebFail;
  }
};

// ---- Host side: storage, filling, the checker ----

// A tree's words, all zero (the empty set).
struct VebStorage {
  std::vector<std::uint64_t> words;
  VebTree tree;
  VebStorage(std::uint64_t universe, unsigned levels)
      : words(veb_total_words(universe, levels), 0) {
    tree = veb_layout(words.data(), universe, levels);
  }
  explicit VebStorage(std::uint64_t universe) : VebStorage(universe, veb_levels_paper(universe)) {}
  VebStorage(const VebStorage&) = delete;
  VebStorage& operator=(const VebStorage&) = delete;
};

// Every index of [0, U) in the set, the upper levels consistent (no atomics: set-up).
inline void veb_fill(const VebTree& t) {
  const unsigned leaf = t.levels - 1;
  for (std::uint64_t h = 0; h < veb_words_at(t.universe, t.levels, leaf); ++h) {
    const std::uint64_t first = h * 64;
    const std::uint64_t n = t.universe - first < 64 ? t.universe - first : 64;
    t.words[t.offset[leaf] + h] = bits::low_mask(static_cast<unsigned>(n));
  }
  for (unsigned l = leaf; l > 0; --l)
    for (std::uint64_t h = 0; h < veb_words_at(t.universe, t.levels, l); ++h)
      if (t.words[t.offset[l] + h] != 0)
        t.words[t.offset[l - 1] + (h >> 6)] |= std::uint64_t{1} << (h & 63);
}

// "" when the tree is consistent at rest, else the first violation in words: every upper bit is
// the OR of its child word (set exactly when that word is non-empty, clear for a child word
// that does not exist), and no leaf bit stands for an index >= U.
inline std::string veb_check(const VebTree& t) {
  const unsigned leaf = t.levels - 1;
  for (std::uint64_t h = 0; h < veb_words_at(t.universe, t.levels, leaf); ++h)
    for (unsigned b = 0; b < 64; ++b)
      if (((t.words[t.offset[leaf] + h] >> b) & 1u) && h * 64 + b >= t.universe)
        return "leaf bit " + std::to_string(h * 64 + b) +
               " is set beyond U = " + std::to_string(t.universe);
  for (unsigned l = 0; l < leaf; ++l) {
    const std::uint64_t children = veb_words_at(t.universe, t.levels, l + 1);
    for (std::uint64_t h = 0; h < veb_words_at(t.universe, t.levels, l); ++h)
      for (unsigned b = 0; b < 64; ++b) {
        const std::uint64_t child = h * 64 + b;
        const bool set = (t.words[t.offset[l] + h] >> b) & 1u;
        const bool want = child < children && t.words[t.offset[l + 1] + child] != 0;
        if (set != want)
          return "level " + std::to_string(l) + " word " + std::to_string(h) + " bit " +
                 std::to_string(b) + " is " + (set ? "set" : "clear") + " but its child word is " +
                 (want ? "non-empty" : "empty or absent");
      }
  }
  return {};
}

}  // namespace alloclab::gallatin
