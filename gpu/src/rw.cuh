// RW's device-side API (paper 000, Algorithm 1): any thread, divergent or not, asks for one page;
// the allocation kernel (rw.cu) is a loop over it, and other kernels (a workload, a case study)
// call the same code. A step = one probe (rw_probe_page); a lost claim is a collision.
#pragma once

#include "bitmap_pool.cuh"

namespace alloclab::gpu::detail {

struct RwDevice {
  using View = BitmapView;
  static constexpr unsigned kWordBits = 32;
  BitmapView pool;  // one bit per page in 32-bit words
  std::uint64_t T = 0, seed = 0, max_steps = 0;

  // Over a pool of `pages` pages (PageHeap's host side, device_page_heap.cuh).
  static RwDevice on_pool(const View& pool, std::uint64_t pages, std::uint64_t seed,
                          std::uint64_t max_steps) {
    return {pool, pages, seed, max_steps};
  }

  // One page for `thread`, probing its stream from probe k on (k advances; a thread keeps it
  // across its requests).
  __device__ __forceinline__ PageRequest malloc_page(std::uint64_t thread, std::uint64_t& k) const {
    auto* bitmap = static_cast<std::uint32_t*>(pool.bitmap);
    PageRequest r;
    while (r.steps < max_steps) {
      const std::uint64_t p = rw_probe_page(seed, thread, k++, T);
      ++r.steps;
      const std::uint32_t bit = 1u << (p % 32);
      if (load_word(&bitmap[p / 32]) & bit) continue;
      ++r.atomics;  // every atomicOr either wins (once) or is lost
      if (!(atomic_or_word(&bitmap[p / 32], bit) & bit)) {
        r.page = p;
        break;
      }
      ++r.lost;
    }
    return r;
  }

  __device__ __forceinline__ void free_page(std::uint64_t page) const {
    bitmap_free_run<std::uint32_t>(pool, page, 1);
  }
};

}  // namespace alloclab::gpu::detail
