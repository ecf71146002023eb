// RW_malloc's device-side API (paper 000, Algorithm 3): a group of lanes of one warp asks
// together for runs of n consecutive pages, one run per asking lane. Each round the group reads
// the window of words [p, p + 32) (p from the warp's stream, rwmalloc_window_start; words past
// the bitmap read as all used): lane l of the group reads word p + l (lanes outside the group
// read nothing); each lane keeps its word's current free run of length >= n (core next_free_run).
// Then, as in lines 9-21, the lanes holding a run are visited in lane order and the lowest lane
// still in need takes the run's first n pages; the run's owner claims them with a compare-and-swap
// on its word (all n bits or nothing; a lost race is a collision and refreshes the owner's copy);
// afterwards each lane moves to its next run (the remainder of a taken run included). Runs do not
// cross word boundaries (Algorithm 3 as written; the text's joined runs are not done), so
// 1 <= n <= w. A lane's steps = the round in which it was served.
//
// Warp-collective: every lane named in `members` must call malloc_pages at the same time (no lane
// of the mask may have exited or be on another path), with the same n, warp and k; the lanes
// outside the mask must not call it with an overlapping mask. The allocation kernel (rwmalloc.cu)
// passes the whole warp; PageHeap (page_heap.cuh) passes the lanes converged at its call
// (__activemask) and one n at a time, so divergent callers with any sizes are served.
#pragma once

#include "bitmap_pool.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {

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

template <typename Word>
struct RwmallocDevice {
  using View = BitmapView;
  static constexpr unsigned kWordBits = sizeof(Word) * 8;  // w: also the longest run
  BitmapView pool;                                         // w = kWordBits
  std::uint64_t seed = 0, max_steps = 0;

  // Over a pool of `pages` pages (PageHeap's host side, device_page_heap.cuh).
  static RwmallocDevice on_pool(const View& pool, std::uint64_t, std::uint64_t seed,
                                std::uint64_t max_steps) {
    return {pool, seed, max_steps};
  }

  // One run of n pages (1 <= n <= w; the same n on every member lane) for each lane of `members`
  // where `asking`; `warp` names the stream of windows (the warp's global index) and k is the
  // group's window counter (uniform; advances by the rounds taken). Every member lane returns:
  // page = its run's first page or kFailed (not asking, or no run within max_steps rounds),
  // steps = the round that served it (max rounds when it failed, 0 when it did not ask), lost =
  // the claims it lost as the owner of a run, atomics = the compare-and-swaps it issued (as the
  // owner of a run, asking or not).
  __device__ PageRequest malloc_pages(unsigned n, bool asking, std::uint64_t warp, std::uint64_t& k,
                                      unsigned members = 0xffffffffu) const {
    constexpr unsigned w = kWordBits;
    auto* bitmap = static_cast<Word*>(pool.bitmap);
    const unsigned lane = lane_id();
    PageRequest r;
    bool need = asking;
    unsigned need_mask = __ballot_sync(members, need);
    std::uint32_t round = 0;
    while (need_mask != 0 && round < max_steps) {
      ++round;
      const std::uint64_t p0 = rwmalloc_window_start(seed, warp, 32, k++, pool.words);
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
                ++r.lost;
                break;
              }
              const Word old = atomic_cas_word(&bitmap[wi], cur, static_cast<Word>(cur | m));
              ++r.atomics;
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
              r.page = (p0 + static_cast<unsigned>(owner)) * w + static_cast<unsigned>(start);
              need = false;
              r.steps = round;
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
    if (need) r.steps = round;
    return r;
  }

  // Frees the run of n pages from `page` (one atomic AND; any thread, no convergence needed).
  __device__ __forceinline__ void free_pages(std::uint64_t page, unsigned n) const {
    bitmap_free_run<Word>(pool, page, n);
  }
};

}  // namespace alloclab::gpu::detail
