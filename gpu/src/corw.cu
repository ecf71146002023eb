// CoRW (paper 000, Algorithm 2): every lane of a warp reads one random word per round
// (bitmap_probe_word, k = round), and the free bits found are shared among the lanes that still
// need a page, in the paper's order (Figure 5): offers go iteration by iteration - the lowest
// remaining free bit of each lane holding some, in lane order - and the needing lane of rank s
// gets the s-th offer. Deviation: no LockMap. Each lane instead computes, from warp ballots, how
// many of its word's free bits the first n offers (n = lanes in need) would use, and claims
// exactly those with one atomicOr; without contention that hands out the very pages of Figure 5,
// with contention the bits a lane really won (claim & ~old) are distributed in the same order and
// the losers stay in need. Nothing is claimed that is not handed out. A lane's steps = the round
// in which it was served (the warp's rounds = WAS).
#include "common.cuh"

namespace alloclab::gpu::detail {
namespace {

__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// The lowest c set bits of x (c <= popcount(x)).
__device__ __forceinline__ std::uint64_t lowest_set_bits(std::uint64_t x, unsigned c) {
  if (c == 0) return 0;
  if (c == 1) return x & (~x + 1);  // the common case at high free fractions
  const int pos = bits::find_kth_set_bit(x, c);
  return x & bits::low_mask(static_cast<unsigned>(pos) + 1);
}

template <typename Word, bool kCounters>
__global__ void corw_alloc_kernel(KernelArgs a) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N) return;
  constexpr unsigned w = sizeof(Word) * 8;
  auto* bitmap = static_cast<Word*>(a.bitmap);
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t warp_base = i - lane;
  const unsigned members = a.N - warp_base >= 32 ? 0xffffffffu : ((1u << (a.N - warp_base)) - 1u);
  const unsigned lt = lanemask_lt();
  std::uint64_t k = 0;

  for (unsigned r = 0; r < a.per_thread; ++r) {
    bool need = true;
    std::uint32_t steps = 0, lost = 0;
    std::uint64_t got_page = kFailed;
    unsigned need_mask = members;
    std::uint32_t round = 0;
    while (need_mask != 0 && round < a.max_steps) {
      ++round;
      const std::uint64_t p = bitmap_probe_word(a.seed, i, k++, a.words);
      const Word word = load_word(&bitmap[p]);
      const std::uint64_t free_bits = ~static_cast<std::uint64_t>(word) & bits::low_mask(w);
      const unsigned f = bits::popcount(free_bits);
      const unsigned n = __popc(need_mask);

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
      const std::uint64_t claim = lowest_set_bits(free_bits, claim_count);
      std::uint64_t won = 0;
      if (claim != 0) {
        const Word old = atomic_or_word(&bitmap[p], static_cast<Word>(claim));
        won = claim & ~static_cast<std::uint64_t>(old);
        lost += bits::popcount(claim & static_cast<std::uint64_t>(old));
      }

      // Hand the won bits out in the same order: the needing lane of rank s takes offer s.
      const unsigned g = bits::popcount(won);
      const unsigned s = __popc(need_mask & lt);
      int src = -1;
      unsigned src_bit_rank = 0;
      cum = 0;
      for (unsigned j = 0; j < w && cum < n; ++j) {
        const unsigned hm = __ballot_sync(members, g > j);
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
    const std::uint64_t slot = r * a.N + i;
    a.page[slot] = got_page;
    if constexpr (kCounters) {
      a.steps[slot] = steps;
      a.collisions[slot] = lost;
    }
  }
}

template <typename Word>
void launch_alloc(const KernelArgs& a, bool counters) {
  if (counters)
    corw_alloc_kernel<Word, true><<<blocks_for(a.N, 256), 256>>>(a);
  else
    corw_alloc_kernel<Word, false><<<blocks_for(a.N, 256), 256>>>(a);
}

}  // namespace

void launch_corw_alloc(const KernelArgs& a, bool counters) {
  if (a.w == 32)
    launch_alloc<std::uint32_t>(a, counters);
  else
    launch_alloc<std::uint64_t>(a, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace alloclab::gpu::detail
