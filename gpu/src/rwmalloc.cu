// RW_malloc (paper 000, Algorithm 3): n consecutive pages per request. Each round the warp reads
// the window of words [p, p + 32) (p from the lane-0 thread's stream, rwmalloc_window_start;
// words past the bitmap read as all used); each lane keeps its word's current free run of length
// >= n (core next_free_run). Then, as in lines 9-21, the lanes holding a run are visited in lane
// order and the lowest lane still in need takes the run's first n pages; the run's owner claims
// them with a compare-and-swap on its word (all n bits or nothing; a lost race is a collision and
// refreshes the owner's copy); afterwards each lane moves to its next run (the remainder of a
// taken run included). Runs do not cross word boundaries (Algorithm 3 as written; the text's
// joined runs are not done), so n <= w. A lane's steps = the round in which it was served.
#include "alloclab/core/errors.hpp"
#include "bitmap_pool.cuh"
#include "gpu_entry.cuh"

namespace alloclab::gpu::detail {
namespace {

// Next free run of length >= n at or above bit `from`; length 0 if none.
__device__ __forceinline__ bits::FreeRun next_long_run(std::uint64_t word, unsigned w,
                                                       unsigned from, unsigned n) {
  while (from < w) {
    const bits::FreeRun run = bits::next_free_run(word, w, from);
    if (run.start < 0) break;
    if (run.length >= n) return run;
    from = static_cast<unsigned>(run.start) + run.length;
  }
  return {-1, 0};
}

template <typename Word, bool kCounters>
__global__ void rwmalloc_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  // The whole warp reads the window, also lanes past N in the last warp (the contract's window is
  // always `lanes` words); such lanes only help and record nothing.
  if (i - threadIdx.x % 32 >= a.N) return;
  const bool real = i < a.N;
  const bool asking = real && asks(a, i);
  constexpr unsigned w = sizeof(Word) * 8;
  const unsigned lane = threadIdx.x % 32;
  // One n per warp (Algorithm 3's n): workloads give every lane of a warp the same pages_of.
  const unsigned n = a.pages_of ? a.pages_of[i - lane] : a.pages;
  auto* bitmap = static_cast<Word*>(pool.bitmap);
  const std::uint64_t warp_base = i - lane;
  constexpr unsigned members = 0xffffffffu;
  const std::uint64_t warp = warp_base / 32;
  std::uint64_t k = 0;  // the warp's window counter (uniform)

  for (unsigned r = 0; r < a.per_thread; ++r) {
    bool need = asking;
    std::uint32_t steps = 0, lost = 0, cas = 0;
    std::uint64_t got_page = kFailed;
    unsigned need_mask = __ballot_sync(members, need);
    std::uint32_t round = 0;
    while (need_mask != 0 && round < a.max_steps) {
      ++round;
      const std::uint64_t p0 = rwmalloc_window_start(a.seed, warp, 32, k++, pool.words);
      const std::uint64_t wi = p0 + lane;
      const bool inside = wi < pool.words;
      std::uint64_t word =
          inside ? static_cast<std::uint64_t>(load_word(&bitmap[wi])) : ~std::uint64_t{0};
      bits::FreeRun run = next_long_run(word, w, 0, n);
      unsigned has_mask = __ballot_sync(members, run.length >= n);
      while (has_mask != 0 && need_mask != 0) {
        bool visited = false;
        for (unsigned hm = has_mask; hm != 0 && need_mask != 0; hm &= hm - 1) {
          const int owner = __ffs(static_cast<int>(hm)) - 1;
          const int taker = __ffs(static_cast<int>(need_mask)) - 1;
          const int start = __shfl_sync(members, run.start, owner);
          bool ok = false;
          if (static_cast<int>(lane) == owner) {
            visited = true;
            const std::uint64_t m = bits::run_mask(static_cast<unsigned>(start), n);
            Word cur = static_cast<Word>(word);
            for (;;) {
              if (static_cast<std::uint64_t>(cur) & m) {
                ++lost;
                break;
              }
              const Word old = atomic_cas_word(&bitmap[wi], cur, static_cast<Word>(cur | m));
              if constexpr (kCounters) ++cas;
              if (old == cur) {
                ok = true;
                cur = static_cast<Word>(cur | m);
                break;
              }
              cur = old;
            }
            word = static_cast<std::uint64_t>(cur);
          }
          ok = __shfl_sync(members, ok, owner);
          if (ok) {
            if (static_cast<int>(lane) == taker) {
              got_page = (p0 + static_cast<unsigned>(owner)) * w + static_cast<unsigned>(start);
              need = false;
              steps = round;
            }
            need_mask &= ~(1u << taker);
          }
        }
        // Visited owners look again from their run's start in their updated word (the remainder
        // of a taken run, or what a lost race left); others keep their run.
        if (visited) run = next_long_run(word, w, static_cast<unsigned>(run.start), n);
        has_mask = __ballot_sync(members, run.length >= n);
      }
    }
    if (need) steps = round;
    if (!asking) {
      // Lanes past N (no slot of their own) count on the warp's first lane, which is real.
      record_helper_atomics<kCounters>(a, r, real ? i : warp_base, cas);
      continue;
    }
    record_request<kCounters>(a, r, i, got_page, steps, lost, cas);
  }
}

template <typename Word>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    rwmalloc_alloc_kernel<Word, true><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    rwmalloc_alloc_kernel<Word, false><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
}

void launch_rwmalloc_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (pool.w == 32)
    launch_alloc<std::uint32_t>(a, pool, counters);
  else
    launch_alloc<std::uint64_t>(a, pool, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

// Runs are found inside one word (Algorithm 3 as written).
void check_rwmalloc(const Scenario& s, const MeasureOptions&) {
  if (s.pages > s.w)
    throw InputError("--pages", "GPU RW_malloc finds runs inside one word: pages <= w");
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::rwmalloc,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_rwmalloc_alloc,
                                                         .free = &launch_bitmap_free,
                                                         .check = &check_rwmalloc})))

}  // namespace alloclab::gpu::detail
