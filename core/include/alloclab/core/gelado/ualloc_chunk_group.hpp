// The collective chunk-list mutex of UAlloc (Gelado & Garland, PPoPP'19 §4.2.2) as a step machine
// over UAllocView: the growers of one group, the growers of a warp waiting for the arena's chunk
// mutex when one of them takes it (the GPU: those registered in the warp's waiting mask, which
// the taker empties; the simulator's lockstep: those that reach the mutex while the group's
// leader still waits for it), get their bins under ONE acquisition, taken and released by the
// leader for all of them (collective acquire: an elected thread acquires; collective release:
// the elected thread releases once every member is served).
//
//  lock     try-lock the arena's chunk mutex (a held mutex: spinning).
//  pick     §4.2.2's rank walk: member r gets the r-th free bin of the first chunk's free-bin
//           words, all of a word's with one fetch_or (ualloc_take_bins); a chunk filled is popped.
//  buddy    the list ran out: one chunk from TBuddy (its alloc machine, step by step, as a single
//           grower's), then `add` puts it on the list and pick goes on. A fresh chunk has
//           bins_per_chunk - 2 >= 62 free bins, more than a group of 32 can want, so a group
//           takes at most one chunk. TBuddy out of memory: the members without a bin fail.
//  release  unlock.
// Each member's UAllocAlloc then continues from its bin (UAllocAlloc::grant_bin): it initialises
// and links its bin and signals as a single grower would. With groups of one this is the
// single-thread mutex of ualloc_alloc.hpp step for step, apart from the take's word operations.
#pragma once

#include <cstdint>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/ualloc_sync.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

// Under arena a's chunk mutex: up to `want` bins of the first chunk on the list into out[0..),
// the r-th free bin (in bin order) to out[r], with one fetch_or a free-bin word that has any; the
// chunk is popped once full. Returns the bins taken (0: the list is empty).
template <class Atomics>
ALLOCLAB_HD std::uint32_t ualloc_take_bins(const UAllocView& v, std::uint32_t a, std::uint32_t want,
                                           std::uint32_t* out, UAllocStats& s) {
  const std::uint32_t c = Atomics::load(v.chunk_heads[a]);
  ++s.memory_ops;
  if (c == kNoBin || want == 0) return 0;
  std::uint32_t got = 0;
  bool full = true;
  for (std::uint32_t w = 0; w < 2; ++w) {
    const std::uint64_t word = Atomics::load(v.chunk_bins[2 * c + w]);
    ++s.memory_ops;
    std::uint64_t take = 0;
    for (std::uint64_t free = ~word; free != 0 && got < want; free &= free - 1) {
      const std::uint32_t b = static_cast<std::uint32_t>(bits::count_trailing_zeros(free));
      take |= std::uint64_t{1} << b;
      out[got++] = (c << v.chunk_order) + w * 64 + b;
    }
    if (take != 0) {
      Atomics::fetch_or(v.chunk_bins[2 * c + w], take);
      ++s.memory_ops;
    }
    full = full && (word | take) == ~std::uint64_t{0};
  }
  if (full) {  // pop it
    Atomics::exchange(v.chunk_heads[a], Atomics::load(v.chunk_next[c]));
    s.memory_ops += 2;
  }
  return got;
}

enum class UAllocChunkGroupPhase : std::uint8_t { lock, pick, buddy, add, release, done };

template <class Atomics>
class UAllocChunkGroup {
 public:
  static constexpr std::uint32_t kMostMembers = 32;  // a warp

  // `want` members (1..32) of arena `arena`; `scatter` for TBuddy's walk (the leader's).
  ALLOCLAB_HD UAllocChunkGroup(const UAllocView& v, std::uint32_t arena, std::uint32_t want,
                               std::uint32_t scatter)
      : arena_(arena),
        want_(want == 0             ? 1
              : want > kMostMembers ? kMostMembers
                                    : want),
        buddy_(v.chunk_order, scatter) {
    for (std::uint32_t& b : bins_) b = kNoBin;
  }

  // A grower that reaches the chunk mutex while the group still waits for it joins the group:
  // its rank, or kMostMembers when the group is closed (the mutex taken, or 32 members).
  ALLOCLAB_HD std::uint32_t join() {
    if (phase_ != UAllocChunkGroupPhase::lock || want_ == kMostMembers) return kMostMembers;
    return want_++;
  }

  // A leader that took the mutex (phase pick, nothing taken yet) and only then learns whom it
  // serves (the GPU: the lanes registered as waiting when it took it): 0..32 members (0: it
  // only releases the mutex).
  ALLOCLAB_HD void set_members(std::uint32_t n) {
    if (phase_ != UAllocChunkGroupPhase::pick || got_ != 0) return;
    want_ = n > kMostMembers ? kMostMembers : n;
    if (n == 0) phase_ = UAllocChunkGroupPhase::release;
  }

  ALLOCLAB_HD UAllocChunkGroupPhase phase() const { return phase_; }
  ALLOCLAB_HD std::uint32_t want() const { return want_; }
  ALLOCLAB_HD std::uint32_t got() const { return got_; }
  // Member r's bin (after done), or kNoBin: TBuddy had no chunk for it.
  ALLOCLAB_HD std::uint32_t bin(std::uint32_t r) const {
    return r < kMostMembers ? bins_[r] : kNoBin;
  }
  ALLOCLAB_HD const UAllocStats& stats() const { return stats_; }
  ALLOCLAB_HD const TBuddyStats& buddy_stats() const { return buddy_.stats(); }
  ALLOCLAB_HD bool overflowed() const { return buddy_.overflowed(); }

  ALLOCLAB_HD StepStatus step(const UAllocView& v) {
    switch (phase_) {
      case UAllocChunkGroupPhase::lock:
        if (!ualloc_try_lock<Atomics>(v.chunk_locks[arena_], stats_)) return StepStatus::spinning;
        ++stats_.chunk_locks;
        phase_ = UAllocChunkGroupPhase::pick;
        return StepStatus::running;
      case UAllocChunkGroupPhase::pick:
        got_ += ualloc_take_bins<Atomics>(v, arena_, want_ - got_, bins_ + got_, stats_);
        phase_ = got_ == want_ || refilled_ || v.chunk_order > v.buddy.height
                     ? UAllocChunkGroupPhase::release  // served, or no (further) chunk fits
                     : UAllocChunkGroupPhase::buddy;
        return StepStatus::running;
      case UAllocChunkGroupPhase::buddy: {
        const StepStatus r = buddy_.step(v.buddy);
        if (r != StepStatus::done) return r;
        if (buddy_.node() == 0) {
          phase_ = UAllocChunkGroupPhase::release;  // TBuddy out of memory
        } else {
          chunk_ = tb_offset(v.buddy.height, buddy_.node()) >> v.chunk_order;
          phase_ = UAllocChunkGroupPhase::add;
        }
        return StepStatus::running;
      }
      case UAllocChunkGroupPhase::add:
        ualloc_add_chunk<Atomics>(v, arena_, chunk_, stats_);
        refilled_ = true;
        phase_ = UAllocChunkGroupPhase::pick;
        return StepStatus::running;
      case UAllocChunkGroupPhase::release:
        ualloc_unlock<Atomics>(v.chunk_locks[arena_], stats_);
        phase_ = UAllocChunkGroupPhase::done;
        return StepStatus::done;
      case UAllocChunkGroupPhase::done:
        break;
    }
    return StepStatus::done;
  }

 private:
  std::uint32_t arena_, want_, got_ = 0, chunk_ = 0;
  bool refilled_ = false;
  UAllocChunkGroupPhase phase_ = UAllocChunkGroupPhase::lock;
  std::uint32_t bins_[kMostMembers];
  TBuddyAlloc<Atomics> buddy_;
  UAllocStats stats_;
};

}  // namespace alloclab::gelado
