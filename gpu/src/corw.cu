// CoRW (paper 000, Algorithm 2): every lane of a warp reads one random word per round
// (bitmap_probe_word, k = round), and the free bits found are shared among the lanes that still
// need a page, in the paper's order (Figure 5): offers go iteration by iteration - the lowest
// remaining free bit of each lane holding some, in lane order - and the needing lane of rank s
// gets the s-th offer. Deviation: no LockMap. Each lane instead computes, from warp ballots, how
// many of its word's free bits the first n offers (n = lanes in need) would use, and claims
// exactly those with one atomicOr; without contention that hands out the very pages of Figure 5.
// A bit lost to another thread (claim & old) is replaced at once by another free bit of the value
// the atomic returned (as RW-BM retries), within the same round, until the lane holds its share or
// its word is full; the bits a lane really won are then distributed in the same order, and needing
// lanes left without one stay in need. Nothing is claimed that is not handed out. A lane's steps =
// the round in which it was served (the warp's rounds = WAS); each lost bit is one collision.
// (Before the retry, a lane that lost its bit to a lane of another warp - or of its own warp that
// read the same word - sent its needing lane to the next round: at 2^20 threads on 2^20 words
// ~63% of lanes share their word with another thread, and ~75% of warps needed a second round.)
//
// Speed (same pages, steps and collisions as the plain loop):
// - Philox: probe k is half k&1 of block k/2 (probe_sequence.hpp), so a lane keeps both halves
//   and evaluates Philox once per two rounds (selecting the half without indexing an array,
//   which put the block on the stack).
// - Lazy reads: only lanes that can be offered from read their word. With n lanes in need, if the
//   words of lanes 0..n-1 already hold n free bits in iteration 0 (one lowest free bit per holder),
//   the first n offers all come from those lanes and every higher lane would claim nothing, so
//   higher lanes skip the read (k still advances). Otherwise they read too and the full rule
//   runs. In round 1 (all lanes need) every lane reads; in a later round (a few losers left)
//   usually only lanes 0..n-1 do, instead of all 32.
// - Hand-out fast path: when the lanes that won bits are exactly the lanes in need, the needing
//   lane of rank s is the s-th winner, i.e. itself, and takes its own lowest won bit (offer s of
//   iteration 0) - the shuffles and the search are skipped. That is the common first round at
//   high free fractions: every lane holds >= 1 free bit, claims its lowest and wins it.
// Free clears one bit per page, as for RW-BM (the bitmap pool's launch_bitmap_free).
#include "alloclab/core/errors.hpp"
#include "bitmap_pool.cuh"
#include "gpu_entry.cuh"

namespace alloclab::gpu::detail {
namespace {

__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// The most threads per block the kernel is compiled for (--block above it is an input error).
constexpr unsigned kBlock = 256;

template <typename Word, bool kCounters>
__global__ void __launch_bounds__(kBlock) corw_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N) return;
  constexpr unsigned w = sizeof(Word) * 8;
  auto* bitmap = static_cast<Word*>(pool.bitmap);
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t warp_base = i - lane;
  // The warp's live lanes are lanes 0 .. member_count-1.
  const unsigned member_count =
      a.N - warp_base >= 32 ? 32u : static_cast<unsigned>(a.N - warp_base);
  const unsigned members = member_count == 32 ? 0xffffffffu : ((1u << member_count) - 1u);
  const unsigned lt = lanemask_lt();
  // A lane that does not ask (workloads) still reads and offers its word's free bits.
  const bool asking = asks(a, i);
  const PhiloxStream stream(a.seed, StreamDomain::probe, i);
  std::uint64_t k = 0;
  // bitmap_probe_word(a.seed, i, k, pool.words) with one Philox call per two probes: a read at an
  // even k keeps the other half of the block for k + 1 (rounds advance k by exactly 1).
  bool have_next = false;
  std::uint64_t next_bits = 0;
  auto probe_word = [&](std::uint64_t kk) {
    std::uint64_t bits;
    if (have_next) {  // kk is odd and block kk / 2 was evaluated in the previous round
      bits = next_bits;
    } else {
      std::uint64_t out[2];
      stream.bits2(kk >> 1, out);
      bits = (kk & 1) ? out[1] : out[0];
      next_bits = out[1];
    }
    return mul_high_u64(bits, pool.words);
  };

  for (unsigned r = 0; r < a.per_thread; ++r) {
    bool need = asking;
    std::uint32_t steps = 0, lost = 0, ors = 0;
    std::uint64_t got_page = kFailed;
    unsigned need_mask = a.active ? __ballot_sync(members, need) : members;
    std::uint32_t round = 0;
    while (need_mask != 0 && round < a.max_steps) {
      ++round;
      const unsigned n = __popc(need_mask);
      // Lanes 0..n-1 read; the rest only if those words hold fewer than n offers in iteration 0.
      std::uint64_t p = 0;
      Word free_bits = 0;  // Word-sized bit sets keep w = 32 in 32-bit registers
      const bool first = lane < n;
      bool read = first;
      if (first) {
        p = probe_word(k);
        free_bits = static_cast<Word>(~load_word(&bitmap[p]));
      }
      if (n < member_count) {  // warp-uniform
        const unsigned holders = __ballot_sync(members, free_bits != 0);
        if (static_cast<unsigned>(__popc(holders)) < n && !first) {
          read = true;
          p = probe_word(k);
          free_bits = static_cast<Word>(~load_word(&bitmap[p]));
        }
      }
      have_next = read && (k & 1) == 0;
      ++k;
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
      while (claim != 0) {
        const Word old = atomic_or_word(&bitmap[p], claim);
        if constexpr (kCounters) ++ors;
        won |= static_cast<Word>(claim & ~old);
        const unsigned lost_now = bits::popcount(claim & old);
        lost += lost_now;
        const Word still_free = static_cast<Word>(~(old | claim));
        claim = bits::lowest_set_bits(still_free, min(lost_now, bits::popcount(still_free)));
      }

      const unsigned won_mask = __ballot_sync(members, won != 0);
      if (won_mask == need_mask) {
        // Offer s of iteration 0 is the lowest won bit of the s-th winner = the needing lane of
        // rank s itself; n offers, all needing lanes served.
        if (need) {
          got_page = p * w + bits::count_trailing_zeros(won);
          need = false;
          steps = round;
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
      const int from = src >= 0 ? src : static_cast<int>(lane);
      const unsigned long long src_won =
          __shfl_sync(members, static_cast<unsigned long long>(won), from);
      const unsigned long long src_p =
          __shfl_sync(members, static_cast<unsigned long long>(p), from);
      if (src >= 0) {
        got_page = src_p * w + static_cast<unsigned>(bits::find_kth_set_bit(src_won, src_bit_rank));
        need = false;
        steps = round;
      }
      need_mask = __ballot_sync(members, need);
    }
    if (need) steps = round;
    if (asking)
      record_request<kCounters>(a, r, i, got_page, steps, lost, ors);
    else
      record_helper_atomics<kCounters>(a, r, i, ors);
  }
}

template <typename Word>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    corw_alloc_kernel<Word, true><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    corw_alloc_kernel<Word, false><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
}

void launch_corw_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (pool.w == 32)
    launch_alloc<std::uint32_t>(a, pool, counters);
  else
    launch_alloc<std::uint64_t>(a, pool, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

void check_corw(const Scenario&, const MeasureOptions& o) {
  if (o.block > kBlock)
    throw InputError("--block", "the CoRW kernel is compiled for at most " +
                                    std::to_string(kBlock) + " threads per block");
}

}  // namespace

// A warp of 32 lanes (Capabilities.warp_collective: the driver checks lanes = 32).
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::corw,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_corw_alloc,
                                                         .free = &launch_bitmap_free,
                                                         .check = &check_corw})))

}  // namespace alloclab::gpu::detail
