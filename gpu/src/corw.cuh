// CoRW's device-side API (paper 000, Algorithm 2): a WARP asks for pages together. Every lane of
// the warp reads one random word per round (bitmap_probe_word, k = round), and the free bits
// found are shared among the lanes that still need a page, in the paper's order (Figure 5):
// offers go iteration by iteration - the lowest remaining free bit of each lane holding some, in
// lane order - and the needing lane of rank s gets the s-th offer. The allocation kernel
// (corw.cu) is a loop over malloc_page; other kernels (a workload, a heap) call the same code.
//
// Deviation: no LockMap. Each lane instead computes, from warp ballots, how many of its word's
// free bits the first n offers (n = lanes in need) would use, and claims exactly those with one
// atomicOr; without contention that hands out the very pages of Figure 5. A bit lost to another
// thread (claim & old) is replaced at once by another free bit of the value the atomic returned
// (as RW-BM retries), within the same round, until the lane holds its share or its word is full;
// the bits a lane really won are then distributed in the same order, and needing lanes left
// without one stay in need. Nothing is claimed that is not handed out. A lane's steps = the round
// in which it was served (the warp's rounds = WAS); each lost bit is one collision (`lost`); an
// atomicOr that lost at least one bit is one failed claim (`lost - extra_lost_bits`).
// (Before the retry, a lane that lost its bit to a lane of another warp - or of its own warp that
// read the same word - sent its needing lane to the next round: at 2^20 threads on 2^20 words
// ~63% of lanes share their word with another thread, and ~75% of warps needed a second round.)
//
// Bit order (`kChoice`, core/bit_choice.hpp): lowest (the paper's) or rotated: lane l views its
// word rotated by rot = rotation_offset(l, w, 32), view bit j = word bit (j + rot) mod w, and
// takes every bit set of its word - its offers, its share, the replacements of lost bits, the
// hand-out - in that view. Threads of other warps that read the same word at once then target
// different bits instead of all the lowest (fewer lost claims where ~N/words threads share a
// word: 4096 B pages). With lowest, rot is the constant 0 and every rotation compiles away.
//
// Speed (same pages, steps and collisions as the plain loop):
// - Philox: probe k is half k&1 of block k/2 (probe_sequence.hpp), so a lane keeps both halves
//   and evaluates Philox once per two rounds (selecting the half without indexing an array,
//   which put the block on the stack).
// - Lazy reads: only lanes that can be offered from read their word. With n lanes in need, if the
//   words of the n lowest calling lanes already hold n free bits in iteration 0 (one lowest free
//   bit per holder), the first n offers all come from those lanes and every higher lane would
//   claim nothing, so higher lanes skip the read (k still advances). Otherwise they read too and
//   the full rule runs. In the first round (all lanes need) every lane reads; in a later round (a
//   few losers left) usually only the n lowest do, instead of all 32.
// - Hand-out fast path: when the lanes that won bits are exactly the lanes in need, the needing
//   lane of rank s is the s-th winner, i.e. itself, and takes its own lowest won bit (offer s of
//   iteration 0) - the shuffles and the search are skipped. That is the common first round at
//   high free fractions: every lane holds >= 1 free bit, claims its lowest and wins it.
#pragma once

#include "bitmap_pool.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {

// One lane's state across its requests: where it is in its warp and its probe stream
// (bitmap_probe_word(seed, thread, k, words) with one Philox call per two probes). Made by
// CorwDevice::lane.
struct CorwLane {
  unsigned lane;  // the hardware lane (%laneid: threadIdx.x % 32 in one-dimensional blocks)
  unsigned lt;    // the lanes below it (%lanemask_lt)
  PhiloxStream stream;
  std::uint64_t k;  // the next probe (rounds advance it by exactly 1, read or not)
  bool have_next = false;
  std::uint64_t next_bits = 0;  // half 1 of block k / 2 where have_next

  __device__ CorwLane(std::uint64_t seed, std::uint64_t thread, std::uint64_t first_probe)
      : stream(seed, StreamDomain::probe, thread), k(first_probe) {
    lane = lane_id();
    lt = lanemask_lt();
  }

  // The word of probe k (k not advanced): a read at an even k keeps the other half of the block
  // for k + 1.
  __device__ __forceinline__ std::uint64_t probe_word(std::uint64_t words) {
    std::uint64_t bits;
    if (have_next) {  // k is odd and block k / 2 was evaluated in the previous round
      bits = next_bits;
    } else {
      std::uint64_t out[2];
      stream.bits2(k >> 1, out);
      bits = (k & 1) ? out[1] : out[0];
      next_bits = out[1];
    }
    return mul_high_u64(bits, words);
  }
  // The end of a round: `read` says whether probe_word was called in it.
  __device__ __forceinline__ void next_round(bool read) {
    have_next = read && (k & 1) == 0;
    ++k;
  }
};

template <typename Word, BitChoice kChoice>
struct CorwDevice {
  static_assert(kChoice == BitChoice::lowest || kChoice == BitChoice::rotated,
                "CoRW implements the lowest and rotated bit orders");
  using View = BitmapView;
  static constexpr unsigned kWordBits = sizeof(Word) * 8;
  static constexpr unsigned w = kWordBits;

  BitmapView pool;  // w = kWordBits
  std::uint64_t seed = 0, max_steps = 0;

  // Over a pool of `pages` pages with every page free (a host-side heap's set-up).
  static CorwDevice on_pool(const View& pool, std::uint64_t, std::uint64_t seed,
                            std::uint64_t max_steps) {
    return {pool, seed, max_steps};
  }

  // The state of the calling lane for `thread`'s probe stream from probe `first_probe` on (the
  // allocation kernel: its global index from 0, continued across its requests).
  __device__ __forceinline__ CorwLane lane(std::uint64_t thread,
                                           std::uint64_t first_probe = 0) const {
    return CorwLane(seed, thread, first_probe);
  }

  // The start of lane `lane`'s view (0: the word's own order).
  static __device__ __forceinline__ unsigned rotation(unsigned lane) {
    return kChoice == BitChoice::rotated ? rotation_offset(lane, w, 32) : 0u;
  }
  // View bit `bit` of a lane whose view starts at `rot`, as a bit of the word.
  static __device__ __forceinline__ unsigned word_bit(unsigned bit, unsigned rot) {
    return rot == 0 ? bit : (bit + rot) % w;
  }

  // One page for every lane of `members` that is `asking`. WARP-COLLECTIVE: every lane of
  // `members` must call it together, converged (the same call, no lane of `members` missing or
  // exited), with the same `members`; the function runs warp ballots and shuffles over
  // `members`. Lanes that do not ask still read words, claim and hand out bits for the others
  // (their PageRequest: page = kFailed, steps = 0, the atomics they issued). The page a lane gets
  // depends on which lanes call and ask. `me` is this lane's state (lane(thread)), continued
  // across its requests.
  __device__ __forceinline__ PageRequest malloc_page(CorwLane& me, unsigned members,
                                                     bool asking) const {
    auto* bitmap = static_cast<Word*>(pool.bitmap);
    const unsigned member_count = static_cast<unsigned>(__popc(members));
    const unsigned member_rank = static_cast<unsigned>(__popc(members & me.lt));
    const unsigned lt = me.lt;
    const unsigned rot = rotation(me.lane);
    // The word's free bits in this lane's view.
    auto read_view = [&](std::uint64_t p) {
      return bits::rotate_right(static_cast<Word>(~load_word(&bitmap[p])), rot, w);
    };
    PageRequest r;
    bool need = asking;
    std::uint32_t failed = 0;
    unsigned need_mask = __ballot_sync(members, need);
    std::uint32_t round = 0;
    while (need_mask != 0 && round < max_steps) {
      ++round;
      const unsigned n = __popc(need_mask);
      // The n lowest calling lanes read; the rest only if those words hold fewer than n offers
      // in iteration 0.
      std::uint64_t p = 0;
      Word free_bits = 0;  // in the view; Word-sized bit sets keep w = 32 in 32-bit registers
      const bool first = member_rank < n;
      bool read = first;
      if (first) {
        p = me.probe_word(pool.words);
        free_bits = read_view(p);
      }
      if (n < member_count) {  // warp-uniform
        const unsigned holders = __ballot_sync(members, free_bits != 0);
        if (static_cast<unsigned>(__popc(holders)) < n && !first) {
          read = true;
          p = me.probe_word(pool.words);
          free_bits = read_view(p);
        }
      }
      me.next_round(read);
      const unsigned f = bits::popcount(free_bits);

      // How many of my free bits the first n offers use (iteration-major order).
      unsigned claim_count = f;
      unsigned cum = 0;
      for (unsigned j = 0; j < w; ++j) {
        const unsigned hm = __ballot_sync(members, f > j);
        const unsigned h = __popc(hm);
        if (h == 0) break;
        if (cum + h >= n) {
          const unsigned rank = __popc(hm & lt);
          claim_count = min(f, j) + ((f > j && rank < n - cum) ? 1u : 0u);
          break;
        }
        cum += h;
      }
      Word claim = bits::lowest_set_bits(free_bits, claim_count);
      Word won = 0;
      // Claim; bits lost to another thread are replaced by other free bits of the value the
      // atomic returned, in the same round, until the lane holds its share or the word is full.
      // Bits are only ever set during allocation, so each pass either wins or fills the word.
      // The atomic works on the word's own bits; its result goes back into the view.
      while (claim != 0) {
        const Word old = bits::rotate_right(
            atomic_or_word(&bitmap[p], bits::rotate_left(claim, rot, w)), rot, w);
        ++r.atomics;
        won |= static_cast<Word>(claim & ~old);
        const unsigned lost_now = bits::popcount(claim & old);
        r.lost += lost_now;
        failed += lost_now != 0;
        const Word still_free = static_cast<Word>(~(old | claim));
        claim = bits::lowest_set_bits(still_free, min(lost_now, bits::popcount(still_free)));
      }

      const unsigned won_mask = __ballot_sync(members, won != 0);
      if (won_mask == need_mask) {
        // Offer s of iteration 0 is the lowest won bit of the s-th winner = the needing lane of
        // rank s itself; n offers, all needing lanes served.
        if (need) {
          r.page = p * w + word_bit(bits::count_trailing_zeros(won), rot);
          need = false;
          r.steps = round;
        }
        need_mask = 0;
        continue;
      }

      // Hand the won bits out in the same order: the needing lane of rank s takes offer s.
      const unsigned g = bits::popcount(won);
      const unsigned s = __popc(need_mask & lt);
      int src = -1;
      unsigned src_bit_rank = 0;
      cum = 0;
      for (unsigned j = 0; j < w && cum < n; ++j) {
        const unsigned hm = j == 0 ? won_mask : __ballot_sync(members, g > j);
        const unsigned h = __popc(hm);
        if (h == 0) break;
        if (need && s >= cum && s < cum + h) {
          src = bits::find_kth_set_bit(hm, s - cum + 1);
          src_bit_rank = j + 1;
        }
        cum += h;
      }
      const int from = src >= 0 ? src : static_cast<int>(me.lane);
      const unsigned long long src_won =
          __shfl_sync(members, static_cast<unsigned long long>(won), from);
      const unsigned long long src_p =
          __shfl_sync(members, static_cast<unsigned long long>(p), from);
      if (src >= 0) {
        // The bit is in the source lane's view.
        const auto view_bit = static_cast<unsigned>(bits::find_kth_set_bit(src_won, src_bit_rank));
        r.page = src_p * w + word_bit(view_bit, rotation(static_cast<unsigned>(src)));
        need = false;
        r.steps = round;
      }
      need_mask = __ballot_sync(members, need);
    }
    if (need) r.steps = round;
    r.extra_lost_bits = r.lost - failed;
    return r;
  }

  __device__ __forceinline__ void free_page(std::uint64_t page) const {
    bitmap_free_run<Word>(pool, page, 1);
  }
};

}  // namespace alloclab::gpu::detail
