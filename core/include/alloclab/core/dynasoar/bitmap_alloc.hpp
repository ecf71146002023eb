// DynaSOAr's BitmapAlloc baseline (Springer & Masuhara, ECOOP'19 §6, Table 2): the whole heap is
// one array of equal objects and one hierarchical bitmap (hbitmap.hpp) whose set bits are the free
// slots. Allocation is the bitmap's clear() (try_find_set, rotated by seed + warp id, then
// try_clear, retried with the next seed when another thread took the bit); free is set(slot).
//
// Give-up (alloclab; the paper's clear() loops while nothing is found): a try_find_set that finds
// nothing ends a round; after `max_empty_rounds` such rounds, or once the machine has made
// `max_steps` steps at a round's start, the allocation ends out of memory.
#pragma once

#include <cstdint>

#include "alloclab/core/dynasoar/hbitmap.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::dynasoar {

template <class Atomics>
class BitmapAllocOp {
 public:
  BitmapAllocOp() = default;
  ALLOCLAB_HD BitmapAllocOp(const HBitmap& b, unsigned warp, unsigned seed,
                            unsigned max_empty_rounds, std::uint64_t max_steps)
      : warp_(warp),
        seed_(seed),
        max_empty_(max_empty_rounds),
        max_steps_(max_steps),
        claim_(b, seed, warp) {}
  ALLOCLAB_HD std::int64_t result() const { return result_; }  // the slot, or kNoBit
  ALLOCLAB_HD bool finished() const { return done_; }
  ALLOCLAB_HD std::uint64_t steps() const { return steps_; }
  ALLOCLAB_HD std::uint32_t empty_rounds() const { return empty_; }

  ALLOCLAB_HD BitStatus step(const HBitmap& b, BitmapCounts& c) {
    if (done_) return BitStatus::done;
    ++steps_;
    const BitStatus s = claim_.step(b, c);
    if (s != BitStatus::done) return s;
    if (claim_.result() != kNoBit) {
      result_ = claim_.result();
      // The slot's previous owner's bytes (its free's release before the bit was set) before
      // the caller uses it.
      Atomics::fence_acquire();
      done_ = true;
      return BitStatus::done;
    }
    if (++empty_ >= max_empty_ || steps_ >= max_steps_) {
      done_ = true;  // out of memory
      return BitStatus::done;
    }
    seed_ += 64;  // a new round starts elsewhere (the claim's own retries step the seed by 1)
    claim_ = ClaimOp<Atomics>(b, seed_, warp_);
    return BitStatus::spinning;
  }

 private:
  unsigned warp_ = 0, seed_ = 0, max_empty_ = 1;
  std::uint64_t max_steps_ = ~std::uint64_t{0};
  std::uint64_t steps_ = 0;
  std::uint32_t empty_ = 0;
  bool done_ = false;
  std::int64_t result_ = kNoBit;
  ClaimOp<Atomics> claim_;
};

}  // namespace alloclab::dynasoar
