// DynaSOAr's hierarchical bitmap (Springer & Masuhara, ECOOP'19 §4.1, App. A.5) over plain 64-bit
// words, as step machines: every step is one memory operation through the atomics policy
// `Atomics` (core/ouroboros/host_atomics.hpp on the host, a CUDA policy on the GPU), so the
// simulator's lockstep mode can interleave operations word by word and the GPU runs the same code.
//
// Layout: a bitmap of N bits has L levels (L = 1 if N <= 64, else 1 + L(ceil(N / 64)); that is
// ceil(log64 N), at least 1). Level 0 holds the N bits in ceil(N / 64) containers; bit i of level
// l + 1 says whether container i of level l has a set bit (Def. 1, container consistency). The
// levels lie one after another in one array of words, level 0 first. Bits past N (and past a
// level's own bit count) are never set.
//
// Operations (§4.1.2):
//   set(pos)       one fetch_or per level; it moves one level up only when it set the first bit of
//                  its container (Def. 2 "set-first"); a fetch_or that finds the bit already set
//                  retries (a set-spin: another operation's clear is still on its way up).
//   clear(pos)     the same with fetch_and and "clear-last"; a fetch_and that finds the bit
//                  already clear retries (a clear-spin).
//   try_clear(pos) one fetch_and on level 0 that may fail (the bit was clear); upper levels are
//                  always updated with the retrying clear (§4.1.3: a try there could drop a
//                  mandatory update during a transient inconsistency).
//   try_find_set   top-down, one load per level and no atomics: L loads. In each container it takes
//                  the first set bit at or after the rotation (seed + warp id) mod 64, cyclically
//                  (§4.2 "bitmap rotation"). It fails when the container it reaches is empty
//                  (§4.1.4: concurrently cleared, or no bit set at all).
// indices() and the Def. 1 checker are host functions (hbitmap_check.hpp).
#pragma once

#include <cstdint>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::dynasoar {

// 64^7 bits are more than any heap alloclab builds; the layout loops stop there.
inline constexpr unsigned kMaxLevels = 7;
inline constexpr std::int64_t kNoBit = -1;

// Containers of level l of an N-bit bitmap: ceil(N / 64^(l+1)).
ALLOCLAB_HD std::uint64_t hb_level_words(std::uint64_t bits, unsigned level) {
  std::uint64_t n = bits;
  for (unsigned l = 0; l <= level; ++l) n = (n + 63) / 64;
  return n;
}
// L: ceil(log64 N), at least 1.
ALLOCLAB_HD unsigned hb_levels(std::uint64_t bits) {
  unsigned levels = 1;
  for (std::uint64_t n = bits; n > 64; n = (n + 63) / 64) ++levels;
  return levels;
}
// Index of level l's first word in the array.
ALLOCLAB_HD std::uint64_t hb_level_offset(std::uint64_t bits, unsigned level) {
  std::uint64_t off = 0;
  for (unsigned l = 0; l < level; ++l) off += hb_level_words(bits, l);
  return off;
}
// Words of the whole structure.
ALLOCLAB_HD std::uint64_t hb_total_words(std::uint64_t bits) {
  return hb_level_offset(bits, hb_levels(bits));
}

// The first set bit of `word` at or after bit `rot`, cyclically; -1 if none (rot < 64).
ALLOCLAB_HD int rotated_first_set(std::uint64_t word, unsigned rot) {
  return bits::first_free_bit_from(~word, 64, rot);
}

// A bitmap: its words (total_words of them) and its bit count. Copied by value.
struct HBitmap {
  std::uint64_t* words = nullptr;
  std::uint64_t bits = 0;
  ALLOCLAB_HD unsigned levels() const { return hb_levels(bits); }
  ALLOCLAB_HD std::uint64_t& word(unsigned level, std::uint64_t i) const {
    return words[hb_level_offset(bits, level) + i];
  }
};

// What bitmap operations did, summed by the caller.
struct BitmapCounts {
  std::uint32_t loads = 0;           // plain reads (try_find_set)
  std::uint32_t atomics = 0;         // fetch_or / fetch_and
  std::uint32_t levels = 0;          // levels an operation worked on (a spin repeats a level: no)
  std::uint32_t set_spins = 0;       // set's fetch_or found the bit set: retried
  std::uint32_t clear_spins = 0;     // clear's fetch_and found the bit clear: retried
  std::uint32_t find_fails = 0;      // try_find_set reached an empty container
  std::uint32_t try_clear_lost = 0;  // try_clear found the bit clear (another thread took it)
  ALLOCLAB_HD void add(const BitmapCounts& o) {
    loads += o.loads;
    atomics += o.atomics;
    levels += o.levels;
    set_spins += o.set_spins;
    clear_spins += o.clear_spins;
    find_fails += o.find_fails;
    try_clear_lost += o.try_clear_lost;
  }
};

enum class BitStatus : std::uint8_t {
  running,   // made progress; step again
  spinning,  // retried a word another operation has yet to update; step again
  done,
};

enum class BitOpKind : std::uint8_t { set, clear, try_clear };

// set(pos), clear(pos) or try_clear(pos), one fetch_or / fetch_and per step.
template <class Atomics>
class BitOp {
 public:
  BitOp() = default;
  ALLOCLAB_HD BitOp(BitOpKind kind, std::uint64_t pos) : kind_(kind), pos_(pos) {}
  // try_clear: whether it cleared the bit (after done); set and clear always succeed.
  ALLOCLAB_HD bool succeeded() const { return succeeded_; }
  ALLOCLAB_HD bool finished() const { return done_; }

  ALLOCLAB_HD BitStatus step(const HBitmap& b, BitmapCounts& c) {
    const std::uint64_t mask = std::uint64_t{1} << (pos_ % 64);
    std::uint64_t& w = b.word(level_, pos_ / 64);
    const bool setting = kind_ == BitOpKind::set;
    ++c.atomics;
    const std::uint64_t prev = setting ? Atomics::fetch_or(w, mask) : Atomics::fetch_and(w, ~mask);
    const bool changed = setting ? (prev & mask) == 0 : (prev & mask) != 0;
    if (!changed) {
      if (kind_ == BitOpKind::try_clear && level_ == 0) {
        ++c.levels;
        ++c.try_clear_lost;
        done_ = true;  // the bit was clear already: try_clear fails
        return BitStatus::done;
      }
      ++(setting ? c.set_spins : c.clear_spins);
      return BitStatus::spinning;
    }
    ++c.levels;
    succeeded_ = true;
    // Set-first (prev was 0) or clear-last (prev was just this bit) moves one level up.
    const bool propagate = setting ? prev == 0 : prev == mask;
    if (propagate && level_ + 1 < b.levels()) {
      ++level_;
      pos_ /= 64;
      return BitStatus::running;
    }
    done_ = true;
    return BitStatus::done;
  }

 private:
  BitOpKind kind_ = BitOpKind::set;
  std::uint64_t pos_ = 0;
  unsigned level_ = 0;
  bool succeeded_ = false;
  bool done_ = false;
};

// try_find_set with rotation `rot` (0..63): one load per step, top level first.
template <class Atomics>
class FindOp {
 public:
  FindOp() = default;
  ALLOCLAB_HD FindOp(const HBitmap& b, unsigned rot) : level_(b.levels() - 1), rot_(rot % 64) {}
  // The bit found, or kNoBit (after done).
  ALLOCLAB_HD std::int64_t result() const { return result_; }
  // It failed on the top word: the bitmap looked empty as a whole (not a container emptied
  // between two levels' loads).
  ALLOCLAB_HD bool failed_at_top(const HBitmap& b) const {
    return result_ == kNoBit && level_ + 1 == b.levels();
  }

  ALLOCLAB_HD BitStatus step(const HBitmap& b, BitmapCounts& c) {
    ++c.loads;
    ++c.levels;
    const std::uint64_t w = Atomics::load(b.word(level_, index_));
    const int pos = rotated_first_set(w, rot_);
    if (pos < 0) {
      ++c.find_fails;
      result_ = kNoBit;
      return BitStatus::done;
    }
    index_ = index_ * 64 + static_cast<std::uint64_t>(pos);
    if (level_ == 0) {
      result_ = static_cast<std::int64_t>(index_);
      return BitStatus::done;
    }
    --level_;
    return BitStatus::running;
  }

 private:
  unsigned level_ = 0;
  unsigned rot_ = 0;
  std::uint64_t index_ = 0;  // the container chosen so far (the bit, at level 0)
  std::int64_t result_ = kNoBit;
};

// The paper's clear(): find a set bit and clear it. §4.1.2 prints
// `while ((i = try_find_set()) != FAIL && try_clear(i)) {}`, whose condition is inverted; the
// intent (and the source) is to retry until a found bit is cleared. alloclab's reading: a
// try_clear that loses the bit, or a try_find_set that fails below the top level (a container
// emptied between two loads: §4.1.4's transient inconsistency), retries with the next seed; a
// try_find_set that finds the top word empty ends the claim with kNoBit, and the caller decides
// whether to look again (the paper's caller loops for ever; alloclab's callers bound it).
template <class Atomics>
class ClaimOp {
 public:
  ClaimOp() = default;
  // rotate = false: every try_find_set unrotated (plain ffs), whatever the seed.
  ALLOCLAB_HD ClaimOp(const HBitmap& b, unsigned seed, unsigned warp, bool rotate = true)
      : seed_(seed), warp_(warp), rotate_(rotate), find_(b, rotate ? seed + warp : 0) {}
  ALLOCLAB_HD std::int64_t result() const { return result_; }
  ALLOCLAB_HD std::uint32_t lost() const { return lost_; }  // try_clears that lost their bit

  ALLOCLAB_HD BitStatus step(const HBitmap& b, BitmapCounts& c) {
    if (!clearing_) {
      if (find_.step(b, c) != BitStatus::done) return BitStatus::running;
      if (find_.result() == kNoBit) {
        if (!find_.failed_at_top(b)) return retry(b);
        result_ = kNoBit;
        return BitStatus::done;
      }
      clearing_ = true;
      clear_ = BitOp<Atomics>(BitOpKind::try_clear, static_cast<std::uint64_t>(find_.result()));
      return BitStatus::running;
    }
    const BitStatus s = clear_.step(b, c);
    if (s != BitStatus::done) return s;
    if (clear_.succeeded()) {
      result_ = find_.result();
      return BitStatus::done;
    }
    ++lost_;  // another thread cleared it first: look again with the next seed
    return retry(b);
  }

 private:
  ALLOCLAB_HD BitStatus retry(const HBitmap& b) {
    clearing_ = false;
    ++seed_;
    find_ = FindOp<Atomics>(b, rotate_ ? seed_ + warp_ : 0);
    return BitStatus::spinning;
  }

  unsigned seed_ = 0, warp_ = 0;
  bool rotate_ = true;
  bool clearing_ = false;
  FindOp<Atomics> find_;
  BitOp<Atomics> clear_;
  std::int64_t result_ = kNoBit;
  std::uint32_t lost_ = 0;
};

// Runs a machine to its end (a caller alone, or one that may spin on others: `max_steps` bounds
// it; returns false if it was reached).
template <class Op>
ALLOCLAB_HD bool run_bit_op(Op& op, const HBitmap& b, BitmapCounts& c,
                            std::uint64_t max_steps = ~std::uint64_t{0}) {
  for (std::uint64_t k = 0; k < max_steps; ++k)
    if (op.step(b, c) == BitStatus::done) return true;
  return false;
}

}  // namespace alloclab::dynasoar
